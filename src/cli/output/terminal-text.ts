import type { OutputStream } from '../io.js';

/**
 * Text from outside toolman (tool results, descriptions from imported files and MCP servers,
 * model output) can carry terminal control sequences: cursor moves and line rewrites that hide
 * what was printed, window-title and clipboard writes (OSC 52), hyperlinks. A terminal must
 * never receive them from data.
 */
// ESC followed by: a CSI sequence, an OSC/DCS/APC/PM/SOS string (ended by BEL or ESC \), or one more character.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\|$)|[@-Z\\-_]|[\s\S]?)/g;
/** C0 controls but tab and newline, DEL, the C1 controls (which some terminals act on as escapes), and the bidi overrides and isolates (which reorder what is shown). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** SGR colour and style (`ESC [ ... m`): the only sequences toolman writes itself. */
const SGR = /^\u001b\[[0-9;]*m$/;

/** `text` with every control sequence and control character removed (tab and newline stay). */
export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** Like `plainText`, but keeps colour (SGR) sequences: for whole screens of toolman's own output. */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, (sequence) => (SGR.test(sequence) ? sequence : '')).replace(CONTROL, (c) => (c === '\u001b' ? c : ''));
}

/**
 * A terminal stream that drops control sequences other than colours and every other control
 * character, whatever reaches it: the last line of defence for text a command forgot to clean.
 * Not for pipes and files, which get the bytes as they are (JSON output escapes them anyway).
 */
export function safeTerminal(stream: OutputStream): OutputStream {
  if (!stream.isTTY) return stream;
  return { isTTY: true, write: (text: string) => stream.write(terminalSafe(text)) };
}
