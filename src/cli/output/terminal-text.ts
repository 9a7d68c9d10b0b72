import { CONTROL, ESCAPE_SEQUENCE, plainText } from '../../shared/plain-text.js';
import type { OutputStream } from '../io.js';

export { plainText };

/** SGR colour and style (`ESC [ ... m`): the only sequences toolman writes itself. */
const SGR = /^\u001b\[[0-9;]*m$/;

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
