/**
 * Text from a sub-agent is untrusted (SECURITY.md): a remote agent, or a model, decides it. Before
 * it becomes a progress line or a tool result it loses terminal escapes and control characters
 * (tab and newline stay) and is cut at a size, so it can neither drive a terminal nor fill memory.
 */

// ESC and what follows it: a CSI sequence, an OSC/DCS/APC/PM/SOS string (ended by BEL or ESC \), or one character.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\|$)|[\s\S]?)/g;
/** C0 controls but tab and newline, DEL, the C1 controls, and the bidirectional overrides that reorder what a reader sees. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` without control sequences and characters, cut to `maxChars` with a note saying how much was left out. */
export function untrustedText(text: string, maxChars: number): string {
  // Cut first (with room for what cleaning removes) so a huge answer is never scanned whole.
  const head = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  const clean = head.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
  if (clean.length <= maxChars && head.length === text.length) return clean;
  const kept = clean.slice(0, maxChars);
  return `${kept}\n[… answer cut at ${maxChars} characters of ${text.length}]`;
}

/** One line for a progress event: no newlines, at most `maxChars`. */
export function progressLine(text: string, maxChars = 200): string {
  const line = untrustedText(text, maxChars * 2).replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
