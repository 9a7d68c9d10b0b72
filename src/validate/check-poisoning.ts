import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Reporter } from '../catalog/reporter.js';
import type { Tool } from '../catalog/types.js';
import { escapeInvisible } from '../catalog/quoted-text.js';
import { isRecord } from '../shared/is-record.js';
import { splitWords } from '../search/tokenize.js';
import { reporterFor } from './check-tools.js';
import { BARE_VERBS, leadingWord, verbKind } from './tool-words.js';

/**
 * Tool poisoning (OWASP MCP Top 10, MCP03:2025 "Tool Poisoning", and the tool-poisoning attacks
 * it cites): text a model reads as instructions hidden in a tool's definition. Every string the
 * model is sent is read (name, title, summary, description, prompts, parameter names,
 * descriptions, enum values and defaults, examples): hidden text (TM1201, TM1202), instructions
 * aimed at the model (TM1203), steering away from another source's tools (TM1204), parameters
 * that ask for secrets (TM1205), and an effect that contradicts what the text says (TM1206).
 * Offending text is quoted escaped, so a finding never carries the characters it reports.
 */
export function checkPoisoning(loaded: LoadedCatalog): void {
  const tools = loaded.catalog.tools.filter((t): t is Tool & { source: Exclude<Tool['source'], { kind: 'meta' }> } => t.source.kind !== 'meta');
  // Who wrote a tool: an MCP server, an imported file (a snapshot of someone else's tools), or the catalog's author.
  const imported = new Set([...loaded.sources].filter(([, file]) => IMPORTED.test(file.head(400))).map(([path]) => path));
  const sourceOf = (t: Tool) => (t.source.kind === 'mcp' ? `mcp:${t.source.server}` : t.source.kind !== 'meta' && imported.has(t.source.file) ? `import:${t.source.file}` : 'catalog');
  const byName = new Map<string, Tool>();
  for (const t of tools) {
    byName.set(t.name, t);
    if (t.source.kind === 'mcp' && t.source.tool !== t.name) byName.set(t.source.tool, t);
  }
  for (const tool of tools) {
    const reporter = reporterFor(loaded, tool);
    if (!reporter) continue;
    const base = segmentsOf(tool.source.pointer);
    const { hidden, prose } = textsOf(tool);
    const at = (text: ToolString) => (text.path ? pointerOf([...base, ...text.path]) : tool.source.pointer);
    for (const text of hidden) reportHidden(text, at(text), reporter);
    // One look over all the tool's prose first: most tools have nothing to report.
    // Lower-cased, for patterns without the i flag: cheaper to compile, and validate runs each once.
    const joined = prose.map((t) => t.value).join('\u0000').toLowerCase();
    const instructions = INSTRUCTION_ANY.test(joined);
    const avoids = AVOID_ANY.test(joined);
    for (const text of instructions || avoids ? prose : []) {
      const instruction = instructions ? instructionIn(text.value) : undefined;
      if (instruction) {
        reporter.report('TM1203', at(text), `${text.label()} speaks to the model: ${quote(text.value, instruction.index, instruction.length)} (${instruction.why})`, {
          hint: 'a tool definition says what the tool does; text that tells a model what to do with other tools, the user or its instructions is how poisoned servers take over a conversation. Remove it (or exclude the tool)',
        });
      }
      const shadowed = avoids ? shadowingIn(text.value, tool, byName, sourceOf) : undefined;
      if (shadowed) {
        reporter.report('TM1204', at(text), `${text.label()} steers the model away from ${JSON.stringify(shadowed.other)} of ${shadowed.source}: ${quote(text.value, shadowed.index, shadowed.length)}`, {
          hint: 'one source\'s tool telling the model not to use another\'s ("tool shadowing") can redirect calls meant for a trusted tool; exclude the tool, or confirm both come from one author',
        });
      }
    }
    checkSecretParameters(tool, base, reporter, SECRET_PROSE_ANY.test(joined));
    checkEffect(tool, base, reporter, () => declaresEffect(loaded, tool));
  }
}

interface ToolString {
  value: string;
  /** Where it is, under the tool's entry (none: the entry itself, an agent's name). */
  path?: (string | number)[];
  /** What the string is, for messages: `description`, `parameter "path" description` (made when reported). */
  label: () => string;
  /** Prose a model reads (descriptions, prompts), as opposed to names and values. */
  prose: boolean;
}

/**
 * The strings of the tool a model is sent (name, title, summary, description, docs, prompts,
 * keywords, and every string and property name of the parameters and examples) that need a
 * closer look: those with hidden characters, and the prose (descriptions, titles, prompts). The
 * walk keeps one path and copies it only for those: most strings are neither.
 */
function textsOf(tool: Tool & { source: { pointer: string } }): { hidden: ToolString[]; prose: ToolString[] } {
  const hidden: ToolString[] = [];
  const prose: ToolString[] = [];
  const isAgent = tool.source.kind === 'agent';
  const fixed = (label: string) => () => label;
  // First every string in one list, looked at in one go: hidden characters are rare, and one
  // search of the joined strings costs far less than one per string. Only when it finds some
  // does a second look say which.
  const all: string[] = [];
  const tops: ToolString[] = [];
  const top = (value: string, path: (string | number)[] | undefined, label: string, isProse: boolean) => {
    const text = { value, ...(path ? { path } : {}), label: fixed(label), prose: isProse };
    all.push(value);
    tops.push(text);
    if (isProse) prose.push(text);
  };
  top(tool.name, isAgent ? undefined : ['name'], 'the name', false);
  for (const key of ['title', 'summary', 'description', 'docs'] as const) {
    const value = tool[key];
    if (typeof value === 'string') top(value, [key], `the ${key}`, true);
  }
  for (const [key, value] of Object.entries(tool.prompts)) if (typeof value === 'string') top(value, ['prompts', key], `prompts.${key}`, true);
  tool.keywords.forEach((value, i) => top(value, ['keywords', i], 'a keyword', false));
  const path: (string | number)[] = [];
  let count = 0;
  let locate = false;
  const found = (value: string, isKey: boolean) => {
    const isProse = !isKey && (path[path.length - 1] === 'description' || path[path.length - 1] === 'title');
    if (!locate) all.push(value);
    const suspect = locate && HIDDEN_ANY.test(value);
    if (!suspect && !(isProse && !locate)) return;
    const copy = [...path];
    const text = { value, path: copy, label: () => labelOf(copy, isKey), prose: isProse };
    if (suspect) hidden.push(text);
    else prose.push(text);
  };
  const walk = (node: unknown, depth: number): void => {
    if (depth > 64 || ++count > 10_000) return;
    if (typeof node === 'string') found(node, false);
    else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        walk(node[i], depth + 1);
        path.pop();
      }
    } else if (isRecord(node)) {
      const inProperties = path[path.length - 1] === 'properties';
      for (const key in node) {
        path.push(key);
        if (inProperties) found(key, true);
        walk(node[key], depth + 1);
        path.pop();
      }
    }
  };
  const walkAll = () => {
    count = 0;
    if (!isAgent) {
      path.push('parameters');
      walk(tool.parameters, 0);
      path.pop();
    }
    tool.examples.forEach((example, i) => {
      path.push('examples', i);
      walk(example, 0);
      path.length = 0;
    });
  };
  walkAll();
  if (HIDDEN_ANY.test(all.join('\n'))) {
    for (const text of tops) if (HIDDEN_ANY.test(text.value)) hidden.push(text);
    locate = true;
    walkAll();
  }
  return { hidden, prose };
}

/**
 * What a string under the tool's `parameters` or `examples` is, for messages: `the parameters`,
 * `parameter "to" description`, `parameter name "to"` (the key itself), `examples[0]`.
 */
function labelOf(path: readonly (string | number)[], isKey: boolean): string {
  let label = path[0] === 'examples' ? `examples[${path[1]}]` : 'the parameters';
  const end = isKey ? path.length - 1 : path.length;
  for (let i = path[0] === 'examples' ? 2 : 1; i < end; i++) {
    const segment = path[i]!;
    if (typeof segment === 'string' && path[i - 1] === 'properties') label = `parameter "${escapeInvisible(segment)}"`;
    else if (segment === 'description' || segment === 'title') label = `${label} ${segment}`;
  }
  return isKey ? `parameter name "${escapeInvisible(String(path[path.length - 1]))}"` : label;
}

/** Unicode tag characters: invisible, and each one an ASCII character a model can read (U+E0041 is "A"). */
const TAG = /[\u{E0000}-\u{E007F}]/gu;
/** Bidirectional overrides, embeddings and isolates: reorder what is displayed (Trojan Source). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g;
/** Zero-width characters and directional marks: invisible where they are not needed for a script. */
const INVISIBLE = /[\u200B-\u200F\u2060\uFEFF\u061C]/g;
/** Any of the three, in one look (most strings have none). */
const HIDDEN_ANY = /[\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF\u061C\u{E0000}-\u{E007F}]/u;

function reportHidden(text: ToolString, pointer: string, reporter: Reporter): void {
  const tags = text.value.match(TAG) ?? [];
  const bidi = text.value.match(BIDI_CONTROL) ?? [];
  if (tags.length || bidi.length) {
    const decoded = tags.map((c) => c.codePointAt(0)! - 0xe0000).filter((code) => code >= 0x20 && code < 0x7f).map((code) => String.fromCharCode(code)).join('');
    const parts = [tags.length ? `${tags.length} Unicode tag character${tags.length === 1 ? '' : 's'}${decoded ? ` that spell ${JSON.stringify(decoded.length > 120 ? `${decoded.slice(0, 119)}…` : decoded)}` : ''}` : '', bidi.length ? `${bidi.length} bidirectional control${bidi.length === 1 ? '' : 's'}` : ''].filter(Boolean);
    const first = text.value.search(tags.length ? TAG : BIDI_CONTROL);
    reporter.report('TM1201', pointer, `${text.label()} hides text: ${parts.join(' and ')}: ${quote(text.value, first, 1)}`, {
      hint: 'displays show none of it, but a model reads it all: remove these characters (and distrust where the text came from)',
    });
    return;
  }
  const invisible = text.value.match(INVISIBLE) ?? [];
  if (invisible.length) {
    const kinds = [...new Set(invisible.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`))];
    reporter.report('TM1202', pointer, `${text.label()} has ${invisible.length} invisible character${invisible.length === 1 ? '' : 's'} (${kinds.join(', ')}): ${quote(text.value, text.value.search(INVISIBLE), 1)}`, {
      hint: 'zero-width characters and directional marks change what a model reads (or which name it must send) without showing: remove them unless the script needs them',
    });
  }
}

/** Phrases that address the model rather than describe the tool, with why each is suspect. */
const INSTRUCTIONS: { pattern: RegExp; why: string }[] = [
  { pattern: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)?\s*(?:instructions?|prompts?|rules|directions|guidelines|messages)\b/i, why: 'tells the model to drop its instructions' },
  { pattern: /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|disclose|notify|alert)\b[^.]{0,40}\b(?:user|human|person)\b/i, why: 'hides something from the user' },
  { pattern: /\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+(?:the\s+)?(?:user|human)\b/i, why: 'acts behind the user\'s back' },
  { pattern: /\b(?:hide|conceal|keep)\s+(?:this|it|these|them)\s+(?:secret\s+)?from\s+(?:the\s+)?(?:user|human)\b/i, why: 'hides something from the user' },
  { pattern: /<\s*\/?\s*(?:important|system|instructions?|secret|hidden)\s*>|\[\s*(?:system|hidden|instructions?)\s*\]/i, why: 'a tag that frames text as instructions for the model' },
  { pattern: /\b(?:you\s+are\s+now|new\s+instructions?\s*:|act\s+as\s+(?:an?\s+)?(?:admin|administrator|system|root|developer))/i, why: 'tries to change who the model is' },
  { pattern: /\bsystem\s+prompt\b/i, why: 'refers to the model\'s system prompt' },
];
/** Files and secrets a tool has no business telling a model to read or pass on. */
const SENSITIVE = /(?:~\/\.ssh|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\/etc\/(?:passwd|shadow)|\.aws\/credentials|\.npmrc|\.netrc|\.env\b|\bprivate\s+keys?\b|\bmcp\.json\b|claude_desktop_config|\bcredentials?\s+file)/i;
const SEND_VERBS = /\b(?:read|send|pass|include|append|attach|upload|provide|copy|forward|post|put|add)\b/i;
/** Any instruction or secret file, in one look over a tool's prose. */
const INSTRUCTION_ANY = new RegExp([...INSTRUCTIONS.map((i) => i.pattern.source), SENSITIVE.source].map((source) => `(?:${source})`).join('|'));

function instructionIn(text: string): { index: number; length: number; why: string } | undefined {
  for (const { pattern, why } of INSTRUCTIONS) {
    const match = pattern.exec(text);
    if (match) return { index: match.index, length: match[0].length, why };
  }
  const sensitive = SENSITIVE.exec(text);
  if (sensitive && SEND_VERBS.test(text)) return { index: sensitive.index, length: sensitive[0].length, why: 'asks the model to read or pass on a secret file' };
  return undefined;
}

/** The first lines `toolman import` writes: the file holds another author's tools. */
const IMPORTED = /^# Imported by toolman from /m;

const AVOID = /\b(?:instead\s+of|rather\s+than|in\s+place\s+of|never\s+(?:use|call)|do\s+not\s+(?:use|call)|don'?t\s+(?:use|call)|avoid(?:\s+using)?|not\s+(?:use|call))\s+(?:the\s+)?[`'"]?([A-Za-z0-9_.-]{2,64})/gi;
/** The same, in one look over a tool's lower-cased prose. */
const AVOID_ANY = new RegExp(AVOID.source);

/**
 * "Instead of X, always use this": a tool that names a tool of another source (another MCP server,
 * or the catalog's own tools for a server's tool) as one not to use. Tools of one source referring
 * to each other is the disambiguation TM1001 asks for, and is not reported.
 */
function shadowingIn(text: string, tool: Tool, byName: Map<string, Tool>, sourceOf: (t: Tool) => string): { other: string; source: string; index: number; length: number } | undefined {
  for (const match of text.matchAll(AVOID)) {
    const other = byName.get(match[1]!);
    if (!other || other === tool || sourceOf(other) === sourceOf(tool)) continue;
    const source = other.source.kind === 'mcp' ? `MCP server ${JSON.stringify(other.source.server)}` : sourceOf(other).startsWith('import:') ? `imported file ${other.source.kind === 'meta' ? '' : other.source.file}` : 'the catalog';
    return { other: other.name, source, index: match.index, length: match[0].length };
  }
  return undefined;
}

/** Parameter-name words that name a secret. `token` alone is one; `page_token` or `max_tokens` are not. */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'apikey', 'credential', 'credentials', 'cvv', 'cvc', 'ssn', 'otp', 'cookie', 'bearer']);
const SECRET_PAIRS = [['api', 'key'], ['access', 'key'], ['private', 'key'], ['secret', 'key'], ['ssh', 'key'], ['client', 'secret'], ['card', 'number'], ['credit', 'card'], ['session', 'id'], ['auth', 'code']];
const NOT_SECRET_TOKEN = new Set(['page', 'next', 'continuation', 'cursor', 'max', 'count', 'limit', 'sync', 'pagination', 'prev', 'previous', 'num', 'tokens', 'budget']);
const SECRET_PROSE = /\b(?:your|the\s+user'?s|user'?s|account)\s+(?:password|passphrase|api\s+key|secret\s+key|private\s+key|access\s+token|credentials|credit\s+card(?:\s+number)?|social\s+security\s+number)\b/i;
const SECRET_PROSE_ANY = new RegExp(SECRET_PROSE.source);

/** A last word that makes a name about a secret, not the secret itself (`secret_type`, `api_key_name`). */
const ABOUT_SECRET = new Set(['type', 'types', 'kind', 'name', 'names', 'id', 'ids', 'count', 'length', 'scope', 'scopes', 'policy', 'format', 'field', 'rotation', 'status', 'expiry', 'expiration', 'expires', 'label', 'hint', 'required', 'enabled', 'location', 'path', 'prefix', 'reset', 'strength', 'method', 'interval', 'file', 'url', 'endpoint', 'provider', 'header', 'parameter']);

/** Names that cannot be about a secret, at a glance. */
const SECRETISH = /pass|secret|key|cred|cvv|cvc|ssn|otp|cookie|bearer|token|card|session|auth/i;

function secretName(name: string): boolean {
  if (!SECRETISH.test(name)) return false;
  const words = splitWords(name);
  if (words.length > 1 && ABOUT_SECRET.has(words[words.length - 1]!)) return false;
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  if (SECRET_PAIRS.some(([a, b]) => words.some((w, i) => w === a && words[i + 1] === b))) return true;
  return words.includes('token') && !words.some((w) => NOT_SECRET_TOKEN.has(w));
}

/** Parameters that ask the model for a secret: the value would pass through the conversation (and the provider). */
function checkSecretParameters(tool: Tool, base: string[], reporter: Reporter, proseSaysSecret: boolean): void {
  const properties = isRecord(tool.parameters.properties) ? tool.parameters.properties : {};
  for (const [name, schema] of Object.entries(properties)) {
    const description = isRecord(schema) && typeof schema.description === 'string' ? schema.description : '';
    const prose = proseSaysSecret ? SECRET_PROSE.exec(description) : null;
    if (!secretName(name) && !prose) continue;
    reporter.report('TM1205', pointerOf([...base, 'parameters', 'properties', name]), `parameter "${escapeInvisible(name)}" asks the model for a secret${prose ? `: ${quote(description, prose.index, prose[0].length)}` : ''}`, {
      part: 'key',
      hint: 'a secret the model sends passes through the conversation, the provider and transcripts: let the handler take it from ${env:NAME} (or the MCP server from its env) and drop the parameter',
    });
  }
}

/** Kinds of action that change the world, and those that destroy. */
const CHANGING = new Set(['create', 'update', 'delete', 'write', 'send', 'move', 'merge', 'cancel', 'close', 'restore', 'deploy', 'rollback', 'pay', 'refund', 'import', 'reset', 'block', 'approve', 'reject', 'lock', 'commit', 'invite', 'assign', 'share', 'submit', 'draft', 'fork', 'star', 'subscribe', 'withdraw', 'deposit', 'book', 'scale', 'start', 'stop', 'silence', 'acknowledge']);
const DESTROYING = new Set(['delete']);
/** Phrases that say an action is for good (a read-only tool may mention deleting as something other tools do). */
const DESTRUCTIVE_PROSE = /\b(?:permanently\s+(?:delet|remov|eras|destroy)\w*|cannot\s+be\s+(?:undone|recovered|reversed)|irreversibl\w*|irrevocabl\w*)/i;
const NEGATED = /\b(?:not|never|no|without|nothing|doesn'?t|does\s+not|won'?t|will\s+not)\b[^.]{0,30}$/i;

/**
 * The effect a tool declares (an MCP server's readOnlyHint / destructiveHint become `effect`)
 * against what its name and description say it does: a read-only tool that says it deletes, or
 * a non-destructive one that says it deletes for good. OWASP MCP03's "benign-sounding operation
 * mapped to a destructive action". Policies, confirmations and `effect:read` patterns trust the
 * declared effect, so a false one turns off the user's safeguards.
 */
function checkEffect(tool: Tool & { source: { pointer: string } }, base: string[], reporter: Reporter, declared: () => boolean): void {
  // Only a declared effect can contradict: an unset one defaults to write, which asserts nothing.
  if (tool.effect === 'destructive' || tool.native || !declared()) return;
  const description = tool.description ?? '';
  const nameWords = splitWords(tool.name);
  // Only a name's first word, as a bare verb (`billing_` is a namespace, not a bill).
  const nameKind = nameWords[0] && BARE_VERBS.has(nameWords[0]) ? verbKind(nameWords[0]) : undefined;
  const lead = leadingWord(description);
  // A description opens with the tool's verb, bare or with -s ("Deletes...", "Delete..."), never -ing.
  const leadKind = lead && !/(ing|ed)$/.test(lead) ? verbKind(lead) : undefined;
  const destructive = DESTRUCTIVE_PROSE.exec(description);
  const destructiveSaid = destructive && !NEGATED.test(description.slice(0, destructive.index)) ? destructive : undefined;
  let said: string | undefined;
  if (tool.effect === 'read') {
    if (leadKind && CHANGING.has(leadKind)) said = `its description starts "${lead}"`;
    else if (nameKind && CHANGING.has(nameKind)) said = `its name starts "${nameWords[0]}"`;
    else if (destructiveSaid) said = `its description says ${quote(description, destructiveSaid.index, destructiveSaid[0].length)}`;
  } else if (tool.effect === 'write') {
    if ((leadKind && DESTROYING.has(leadKind)) || (nameKind && DESTROYING.has(nameKind))) said = leadKind && DESTROYING.has(leadKind) ? `its description starts "${lead}"` : `its name starts "${nameWords[0]}"`;
    else if (destructiveSaid && /permanent|undone|irrevers|irrevoc/i.test(destructiveSaid[0])) said = `its description says ${quote(description, destructiveSaid.index, destructiveSaid[0].length)}`;
  }
  if (!said) return;
  const what = tool.source.kind === 'mcp' ? 'readOnlyHint: true' : `effect: ${tool.effect}`;
  const pointer = tool.source.kind === 'catalog' && tool.overriddenBy === undefined ? pointerOf([...base, 'effect']) : tool.source.pointer;
  reporter.report('TM1206', pointer, `declared ${what}, but ${said}`, {
    hint: tool.effect === 'read' ? 'policies, confirmations and effect:read patterns trust the declared effect: set effect to write or destructive (override it for a server\'s tool), or correct the text' : 'a tool that deletes for good should be effect: destructive, so it asks for confirmation',
  });
}

/**
 * Whether the tool states its effect: an MCP server's tool when it says it is read-only (the
 * absence of readOnlyHint asserts nothing); a catalog tool or agent with `effect:` in its entry,
 * in its file's `defaults`, or set by an override.
 */
function declaresEffect(loaded: LoadedCatalog, tool: Tool & { source: { pointer: string; file: string } }): boolean {
  if (tool.source.kind === 'mcp') return tool.effect === 'read';
  if (tool.overriddenBy?.some((o) => o.fields.includes('effect'))) return true;
  const data = loaded.sources.get(tool.source.file)?.data;
  let entry: unknown = data;
  for (const segment of segmentsOf(tool.source.pointer)) entry = isRecord(entry) || Array.isArray(entry) ? (entry as Record<string, unknown>)[segment] : undefined;
  return (isRecord(entry) && 'effect' in entry) || (isRecord(data) && isRecord(data.defaults) && 'effect' in data.defaults);
}

/** A short piece of `text` around [index, index + length) (UTF-16 offsets), with invisible and control characters escaped. */
export function quote(text: string, index: number, length: number): string {
  // Cut at code points, never inside a surrogate pair (tag characters are astral).
  const before = [...text.slice(0, index)];
  const match = [...text.slice(index, index + Math.max(length, 1))];
  const after = [...text.slice(index + Math.max(length, 1))];
  const lead = before.slice(-24);
  const tail = after.slice(0, 24);
  const piece = `${before.length > lead.length ? '…' : ''}${lead.join('')}${match.slice(0, 80).join('')}${match.length > 80 ? '…' : ''}${tail.join('')}${after.length > tail.length ? '…' : ''}`;
  return `"${escapeInvisible(piece)}"`;
}
