/**
 * Secret values that must never reach output: the values of every environment variable the
 * catalog names as secret (a `${env:NAME}` anywhere, or an `env` allow-list), known from the
 * moment the catalog opens, not only once a tool has filled them in. Every text toolman returns,
 * prints or records passes through `redact`, which replaces each value in every encoding it can
 * take on the way: as written, JSON-escaped (also with `\uXXXX` for non-ASCII), URL-encoded (upper-
 * and lower-case hex, `+` for spaces) and base64 (standard and URL-safe).
 *
 * Values of any length are redacted, even one character: a short secret blanks ordinary text
 * where it happens to occur, which is the price of never printing it.
 */
export class SecretSet {
  private readonly forms = new Set<string>();
  private pattern: RegExp | undefined;
  private longest = 0;

  add(value: string): void {
    if (value === '') return;
    const before = this.forms.size;
    for (const form of encodings(value)) if (form !== '') this.forms.add(form);
    if (this.forms.size !== before) {
      this.pattern = undefined;
      this.longest = Math.max(this.longest, ...[...this.forms].map((f) => f.length));
    }
  }

  /** How many distinct forms are known (each secret gives several). */
  get size(): number {
    return this.forms.size;
  }

  /** The longest form: text cut at a limit must be read this far past it before redacting. */
  get maxLength(): number {
    return this.longest;
  }

  redact(text: string): string {
    if (this.forms.size === 0 || text === '') return text;
    return text.replace(this.regExp(), '[redacted]');
  }

  /**
   * A JSON value (a server's tool list, a parsed document) with every secret removed from every
   * string in it, keys included; parts with nothing to redact are returned as they were. Below
   * `maxDepth` levels a value is replaced by "[too deep]" rather than walked.
   */
  redactValue<T>(value: T, maxDepth = 256): T {
    if (this.forms.size === 0) return value;
    const walk = (item: unknown, depth: number): unknown => {
      if (typeof item === 'string') return this.redact(item);
      if (item === null || typeof item !== 'object') return item;
      if (depth >= maxDepth) return '[too deep]';
      if (Array.isArray(item)) {
        const out = item.map((v) => walk(v, depth + 1));
        return out.some((v, i) => v !== item[i]) ? out : item;
      }
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(item)) {
        const name = this.redact(key);
        const next = walk(v, depth + 1);
        if (name !== key || next !== v) changed = true;
        // Defined, not assigned: a key "__proto__" from the server stays an ordinary key.
        Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true });
      }
      return changed ? out : item;
    };
    return walk(value, 0) as T;
  }

  /** Where secrets occur in `text`: [start, end) of each, in order. */
  spans(text: string): [number, number][] {
    if (this.forms.size === 0 || text === '') return [];
    return [...text.matchAll(this.regExp())].map((m) => [m.index, m.index + m[0].length]);
  }

  /**
   * Pieces of one text (a stream's deltas, in order) with every secret removed, also one cut
   * between pieces: each piece loses the characters of a secret it holds, and the piece where a
   * secret starts gets the marker in its place. Untouched pieces are returned as they were.
   */
  redactPieces(pieces: readonly string[]): string[] {
    const spans = this.spans(pieces.join(''));
    if (spans.length === 0) return [...pieces];
    let offset = 0;
    return pieces.map((piece) => {
      const start = offset;
      offset += piece.length;
      let out = '';
      let at = start;
      for (const [s, e] of spans) {
        if (e <= at || s >= offset) continue;
        if (s > at) out += piece.slice(at - start, s - start);
        if (s >= start) out += '[redacted]';
        at = Math.min(e, offset);
      }
      return at === start && out === '' ? piece : out + piece.slice(at - start);
    });
  }

  private regExp(): RegExp {
    // One alternation, longest first, so a value inside another value's encoding cannot leave a tail.
    this.pattern ??= new RegExp(
      [...this.forms]
        .sort((a, b) => b.length - a.length)
        .map((form) => form.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return this.pattern;
  }
}

/**
 * Secrets this process learned outside any catalog: providers' API keys (`credentialsFor`) and
 * bearer tokens (`serve --token-env`). Whatever fails, and wherever (before a catalog opens, in a
 * command with no catalog at all), every error toolman reports is redacted of them too.
 */
export const processSecrets = new SecretSet();

/**
 * Any JSON value with every secret taken out of its strings; `fallback` when a very short secret
 * broke the JSON itself (the value is then not shown).
 */
export function redactValue<T>(value: T, secrets: SecretSet, fallback: T): T {
  if (secrets.size === 0) return value;
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const redacted = secrets.redact(text);
  if (redacted === text) return value;
  try {
    return JSON.parse(redacted) as T;
  } catch {
    return fallback;
  }
}

/** The error with its message and hint redacted, in place (it is about to be reported). */
export function redactError<T>(error: T, secrets: SecretSet): T {
  if (secrets.size === 0 || !(error instanceof Error)) return error;
  error.message = secrets.redact(error.message);
  const hint = (error as { hint?: unknown }).hint;
  if (typeof hint === 'string') Object.defineProperty(error, 'hint', { value: secrets.redact(hint), writable: true, configurable: true, enumerable: true });
  return error;
}

/**
 * Redacts text that arrives in pieces (a streamed answer) as it arrives: what is passed on never
 * holds a secret, even one cut between two pieces, because the last few characters (less than the
 * longest secret form) wait for the next piece or `end()`.
 */
export class RedactingStream {
  private pending = '';

  constructor(private readonly secrets: SecretSet) {}

  push(text: string): string {
    if (this.secrets.size === 0) return text;
    this.pending += text;
    let cut = Math.max(0, this.pending.length - (this.secrets.maxLength - 1));
    // A secret that runs across the cut is whole already (it cannot be longer than maxLength): keep it together.
    for (const [s, e] of this.secrets.spans(this.pending)) if (s < cut && e > cut) cut = e;
    const out = this.secrets.redact(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
    return out;
  }

  end(): string {
    const out = this.secrets.redact(this.pending);
    this.pending = '';
    return out;
  }
}

function encodings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const asciiJson = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const url = encodeURIComponent(value);
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  return [
    value,
    json,
    asciiJson,
    asciiJson.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`),
    url,
    url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    url.replace(/%20/g, '+'),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
  ];
}
