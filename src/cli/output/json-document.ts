import { CONTROL } from '../../shared/plain-text.js';

/**
 * One JSON document for `--json` output, indented, with every control character escaped: JSON
 * escapes C0 controls itself (ESC is written `\u001b`), but not DEL, the C1 controls (U+009B is
 * a CSI on some terminals) or the bidi overrides and isolates (U+202E reorders what is shown), so
 * a tool result holding them would reach a terminal through `| tee` or `cat`. Written as `\uXXXX`
 * they stay in the data, and parse back to the same string.
 */
export function jsonDocument(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
