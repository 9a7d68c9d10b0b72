/**
 * Text from a sub-agent is untrusted (SECURITY.md): a remote agent, or a model, decides it. Before
 * it becomes a progress line or a tool result it loses terminal escapes and control characters
 * (tab and newline stay) and is cut at a size, so it can neither drive a terminal nor fill memory.
 */

import { plainText } from '../shared/plain-text.js';

/** `text` without control sequences and characters, cut to `maxChars` with a note saying how much was left out. */
export function untrustedText(text: string, maxChars: number): string {
  // Cut first (with room for what cleaning removes) so a huge answer is never scanned whole.
  const head = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  const clean = plainText(head);
  if (clean.length <= maxChars && head.length === text.length) return clean;
  const kept = clean.slice(0, maxChars);
  return `${kept}\n[… answer cut at ${maxChars} characters of ${text.length}]`;
}

/** One line for a progress event: no newlines, at most `maxChars`. */
export function progressLine(text: string, maxChars = 200): string {
  const line = untrustedText(text, maxChars * 2).replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
