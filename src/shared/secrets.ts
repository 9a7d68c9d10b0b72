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
    // One alternation, longest first, so a value inside another value's encoding cannot leave a tail.
    this.pattern ??= new RegExp(
      [...this.forms]
        .sort((a, b) => b.length - a.length)
        .map((form) => form.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, '[redacted]');
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
