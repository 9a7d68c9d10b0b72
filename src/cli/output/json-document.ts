import { CONTROL, INVISIBLE } from '../../shared/plain-text.js';

/**
 * JSON text for stdout, with every character a terminal acts on or hides escaped. JSON escapes C0
 * controls itself (ESC is written `\u001b`), but not DEL, the C1 controls (U+009B is a CSI on some
 * terminals), the bidi overrides and isolates (U+202E reorders what is shown), or the invisible
 * characters (zero-width, Unicode tags that spell text nobody sees), so a model's answer or a tool
 * result holding them would reach a terminal through `| tee` or `cat`. Written as `\uXXXX` (a
 * character beyond U+FFFF as its two surrogate escapes) they stay in the data and parse back to
 * the same string. Every `--json`, `--events` and SARIF document goes through here.
 */
function escaped(json: string): string {
  return json.replace(CONTROL, unicodeEscape).replace(INVISIBLE, unicodeEscape);
}

const unicodeEscape = (c: string) =>
  c
    .split('')
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');

/** One indented JSON document (for `--json`). */
export function jsonDocument(value: unknown): string {
  return escaped(JSON.stringify(value, null, 2) ?? 'null');
}

/** One JSON value on one line (for JSON-lines streams such as `--events`). */
export function jsonLine(value: unknown): string {
  return escaped(JSON.stringify(value) ?? 'null');
}
