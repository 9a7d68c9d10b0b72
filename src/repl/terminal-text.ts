import { oneLine, plainText } from '../shared/plain-text.js';

/** The REPL never draws text from outside toolman as it is: see shared/plain-text.ts. */
export { oneLine, plainText };

/**
 * Untrusted text ready to draw: no control sequences, and tabs as spaces (a terminal expands a
 * tab to the next stop, which the layout cannot measure, so lines could overflow the width).
 */
export function displayText(text: string): string {
  return plainText(text).replace(/\t/g, '  ');
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
