import { visibleText } from '../../shared/plain-text.js';

/**
 * JSON text for stdout, with every character a terminal acts on or hides escaped. JSON escapes C0
 * controls itself (ESC is written `\u001b`), but not DEL, the C1 controls (U+009B is a CSI on some
 * terminals), the bidi overrides and isolates (U+202E reorders what is shown), or the invisible
 * characters (zero-width, Unicode tags that spell text nobody sees), so a model's answer or a tool
 * result holding them would reach a terminal through `| tee` or `cat`. `visibleText` writes them
 * as `\uXXXX` (a character beyond U+FFFF as its two surrogate escapes), which inside a JSON string
 * is the same character: the data parses back unchanged. Every `--json` and `--events` document
 * goes through here.
 */
export function jsonDocument(value: unknown): string {
  return visibleText(JSON.stringify(value, null, 2) ?? 'null');
}

/** One JSON value on one line (for JSON-lines streams such as `--events`). */
export function jsonLine(value: unknown): string {
  return visibleText(JSON.stringify(value) ?? 'null');
}
