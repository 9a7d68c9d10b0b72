/**
 * Text from outside toolman (model output, tool results, descriptions from imported catalogs) can
 * carry terminal control sequences that move the cursor, rewrite lines, set the window title or
 * write the clipboard. The REPL never draws such text as it is.
 *
 * The two patterns are copied from src/cli/output/terminal-text.ts (`plainText`): repl/ may not
 * import cli/. Keep them in step.
 */
// ESC followed by: a CSI sequence, an OSC/DCS/APC/PM/SOS string (ended by BEL or ESC \), or one more character.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\|$)|[@-Z\\-_]|[\s\S]?)/g;
/** C0 controls but tab and newline, DEL, the C1 controls (which some terminals act on as escapes), and the bidi overrides and isolates (which reorder what is shown). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control sequence and control character removed (tab and newline stay). */
export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/**
 * Untrusted text ready to draw: no control sequences, and tabs as spaces (a terminal expands a
 * tab to the next stop, which the layout cannot measure, so lines could overflow the width).
 */
export function displayText(text: string): string {
  return plainText(text).replace(/\t/g, '  ');
}

/** Untrusted text on one line: control sequences removed, whitespace runs (newlines too) as one space. */
export function oneLine(text: string): string {
  return plainText(text).replace(/\s+/g, ' ').trim();
}

/** At most `max` characters (code points), with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** A value as compact JSON on one line (strings as they are), for previews. */
export function compactJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A tool result for reading: JSON pretty-printed when it is JSON, else the text. */
export function prettyResult(content: string): string {
  const trimmed = content.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(JSON.parse(trimmed), null, 2);
    } catch {
      // not JSON after all
    }
  }
  return content;
}

/** 1234567 → "1,234,567". */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A duration for a panel: "12 ms", "1.4 s", "2 min 3 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
