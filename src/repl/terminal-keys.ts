import type { KeyAction } from './line-editor.js';

/**
 * What the terminal sends, decoded into the REPL's key actions. Ink splits its input into events,
 * each a run of plain text or one escape sequence (its input parser), and this reads those raw
 * events rather than ink's `useInput`: `useInput` strips the ESC of sequences it does not know,
 * so a bracketed paste's markers (`ESC [200~`) or Shift+Enter (`ESC [13;2u`) would arrive as the
 * typed text "[200~" and could not be told from it.
 *
 * - Bracketed paste (`ESC [?2004h`, which the REPL turns on): everything between `ESC [200~` and
 *   `ESC [201~` is one `paste`, newlines kept, escape sequences and control characters dropped.
 *   A paste is never a key: not Enter, not an approval's answer, not Tab.
 * - A newline without sending: Alt+Enter (`ESC CR`), Shift/Alt/Ctrl+Enter in the kitty keyboard
 *   protocol (`ESC [13;2u`) and xterm's modifyOtherKeys (`ESC [27;2;13~`), Ctrl-J (a lone LF).
 *   `\` + Enter is the controller's (it looks at the text before the cursor).
 * - A terminal without bracketed paste delivers a paste as one run of text: a line break with
 *   more text after it in the same run is a newline, not Enter; a break at the end of the run is
 *   Enter (a line typed and sent at once, as tmux sends `text` then Enter). Keys typed while the
 *   REPL was busy arrive in one run too: `\` + Enter among them is a newline, as typed alone.
 * - Every other escape sequence (function keys, focus reports, mouse) is dropped: nothing the
 *   terminal sends reaches the screen as a sequence.
 */

/** A paste larger than this is cut (the REPL says so): a message is for a model, not a disk image. */
export const MAX_PASTE_CHARS = 1 << 20;

export const PASTE_START = '\u001b[200~';
export const PASTE_END = '\u001b[201~';

const CTRL_KEYS: Record<string, KeyAction> = {
  c: { type: 'ctrl_c' },
  d: { type: 'ctrl_d' },
  o: { type: 'ctrl_o' },
  l: { type: 'ctrl_l' },
  a: { type: 'home' },
  e: { type: 'end' },
  b: { type: 'left' },
  f: { type: 'right' },
  p: { type: 'up' },
  n: { type: 'down' },
  u: { type: 'kill_line' },
  w: { type: 'kill_word' },
  k: { type: 'kill_to_end' },
  h: { type: 'backspace' },
  j: { type: 'newline' },
};

/** Final letters of cursor keys (`ESC [A`, `ESC OA`, `ESC [1;5D`). */
const CURSOR: Record<string, 'up' | 'down' | 'left' | 'right' | 'home' | 'end'> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end' };
/** `ESC [N~` keys the REPL uses. */
const TILDE: Record<string, KeyAction['type']> = { '1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete' };

/** Decodes raw terminal events; keeps the state of a bracketed paste between events. */
export class TerminalKeys {
  private paste: string | undefined;
  private pasteCut = false;

  /** Whether a bracketed paste has started and not ended yet. */
  get pasting(): boolean {
    return this.paste !== undefined;
  }

  /** The actions one raw event asks for. */
  push(raw: string): KeyAction[] {
    if (this.paste !== undefined) {
      if (raw === PASTE_END) return this.endPaste();
      // Inside a paste, an escape sequence is pasted data, not a key: dropped.
      if (!raw.startsWith('\u001b')) this.addPaste(raw);
      return [];
    }
    if (raw === PASTE_START) {
      this.paste = '';
      this.pasteCut = false;
      return [];
    }
    if (raw === PASTE_END) return [];
    if (raw.startsWith('\u001b')) return escapeSequence(raw);
    return textRun(raw);
  }

  /** Ends a paste whose end marker never came (the REPL calls it after a quiet moment). */
  endPaste(): KeyAction[] {
    const text = this.paste;
    this.paste = undefined;
    if (text === undefined || text === '') return [];
    return [{ type: 'paste', text, ...(this.pasteCut ? { cut: true } : {}) }];
  }

  private addPaste(raw: string): void {
    const text = pastedText(raw);
    const room = MAX_PASTE_CHARS - this.paste!.length;
    if (text.length > room) this.pasteCut = true;
    this.paste += text.slice(0, Math.max(0, room));
  }
}

/** Pasted text as it goes into the input: line breaks as LF, tabs kept, every other control character dropped. */
export function pastedText(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** One run of plain text: typed (one key), typed fast, or pasted by a terminal without bracketed paste. */
function textRun(raw: string): KeyAction[] {
  if (raw === '\r') return [{ type: 'enter' }];
  if (raw === '\n') return [{ type: 'newline' }];
  if (raw === '\t') return [{ type: 'tab' }];
  if (raw === '\u007f' || raw === '\b') return [{ type: 'backspace' }];
  const chars = Array.from(raw);
  if (chars.length === 1) {
    const code = raw.codePointAt(0)!;
    if (code >= 1 && code <= 26) {
      const action = CTRL_KEYS[String.fromCharCode(code + 96)];
      return action ? [action] : [];
    }
    if (code < 32 || (code >= 0x7f && code <= 0x9f)) return [];
    return [{ type: 'insert', text: raw }];
  }
  const actions: KeyAction[] = [];
  let run = '';
  const flush = () => {
    if (run) actions.push({ type: 'insert', text: run });
    run = '';
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\r' || ch === '\n') {
      // CR LF is one break.
      if (ch === '\r' && chars[i + 1] === '\n') i++;
      // `\` + Enter typed while the REPL was busy arrives in one run: a newline, as when typed alone.
      if (run.endsWith('\\')) {
        run = `${run.slice(0, -1)}\n`;
        continue;
      }
      const rest = chars.slice(i + 1).join('');
      if (/^[\r\n]*$/.test(rest)) {
        flush();
        actions.push({ type: 'enter' });
        break;
      }
      run += '\n';
    } else if (ch === '\u007f' || ch === '\b') {
      flush();
      actions.push({ type: 'backspace' });
    } else if (ch === '\u0003') {
      flush();
      actions.push({ type: 'ctrl_c' });
    } else if (ch === '\t') {
      // Tab typed while the REPL was busy is still Tab (a paste's tabs come marked, as text).
      flush();
      actions.push({ type: 'tab' });
    } else if (!/[\u0000-\u001f\u007f-\u009f]/.test(ch)) {
      run += ch;
    }
  }
  flush();
  return actions;
}

/** One escape sequence: a key with a modifier, a cursor key, or something to drop. */
function escapeSequence(raw: string): KeyAction[] {
  if (raw === '\u001b' || raw === '\u001b\u001b') return [{ type: 'escape' }];
  if (raw === '\u001b\r' || raw === '\u001b\n') return [{ type: 'newline' }];
  if (raw === '\u001b\u007f' || raw === '\u001b\b') return [{ type: 'kill_word' }];
  if (raw === '\u001bb') return [{ type: 'word_left' }];
  if (raw === '\u001bf') return [{ type: 'word_right' }];
  if (raw === '\u001b[Z') return [{ type: 'shift_tab' }];
  // Meta + a cursor key, as some terminals send it: ESC ESC [D.
  const meta = raw.startsWith('\u001b\u001b');
  const body = meta ? raw.slice(2) : raw.slice(1);
  let match = /^[[O](?:1;(\d+))?([ABCDHF])$/.exec(body);
  if (match) {
    const modifiers = Number(match[1] ?? '1') - 1;
    const key = CURSOR[match[2]!]!;
    // Ctrl or Alt with left/right moves by word.
    if ((key === 'left' || key === 'right') && (meta || modifiers & 0b110)) return [{ type: key === 'left' ? 'word_left' : 'word_right' }];
    return [{ type: key }];
  }
  match = /^\[(\d+)(?:;\d+)?~$/.exec(body);
  if (match) {
    const type = TILDE[match[1]!];
    return type ? [{ type } as KeyAction] : [];
  }
  // xterm's modifyOtherKeys: ESC [27;MOD;CODE~.
  match = /^\[27;(\d+);(\d+)~$/.exec(body);
  if (match) return modifiedKey(Number(match[2]), Number(match[1]) - 1);
  // The kitty keyboard protocol: ESC [CODE(:ALT)*(;MOD(:EVENT)?)?(;TEXT)?u.
  match = /^\[(\d+)(?::\d*)*(?:;(\d+)(?::(\d+))?)?(?:;[\d:]*)?u$/.exec(body);
  if (match) {
    // A key's release (event 3) asks for nothing; press and repeat do.
    if (match[3] === '3') return [];
    return modifiedKey(Number(match[1]), Number(match[2] ?? '1') - 1);
  }
  return [];
}

/** A key by its code point with modifier bits (1 shift, 2 alt, 4 ctrl), from the kitty or xterm encodings. */
function modifiedKey(code: number, modifiers: number): KeyAction[] {
  const alt = (modifiers & 2) !== 0;
  const ctrl = (modifiers & 4) !== 0;
  switch (code) {
    case 13:
      return [{ type: modifiers ? 'newline' : 'enter' }];
    case 9:
      return [{ type: modifiers & 1 ? 'shift_tab' : 'tab' }];
    case 27:
      return [{ type: 'escape' }];
    case 127:
    case 8:
      return [{ type: alt || ctrl ? 'kill_word' : 'backspace' }];
  }
  if (code < 32 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return [];
  const ch = String.fromCodePoint(code);
  if (ctrl) {
    const action = CTRL_KEYS[ch.toLowerCase()];
    return action ? [action] : [];
  }
  if (alt) return ch === 'b' ? [{ type: 'word_left' }] : ch === 'f' ? [{ type: 'word_right' }] : [];
  // Kitty sends the unshifted key's code: a shifted letter is its upper case.
  return [{ type: 'insert', text: modifiers & 1 ? ch.toUpperCase() : ch }];
}
