/**
 * The REPL's input line as plain data: keys decoded from what the terminal sent, edits on
 * `{text, cursor}`, and the up/down history. No ink here, so every key is unit-tested.
 */

/** What a key (or a pasted run of text) asks for. */
export type KeyAction =
  | { type: 'insert'; text: string }
  | { type: 'enter' }
  | { type: 'backspace' }
  | { type: 'delete' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'home' }
  | { type: 'end' }
  | { type: 'up' }
  | { type: 'down' }
  | { type: 'word_left' }
  | { type: 'word_right' }
  | { type: 'kill_line' }
  | { type: 'kill_word' }
  | { type: 'kill_to_end' }
  | { type: 'escape' }
  | { type: 'tab' }
  | { type: 'ctrl_c' }
  | { type: 'ctrl_d' }
  | { type: 'ctrl_o' }
  | { type: 'ctrl_l' };

/** The parts of ink's `Key` the decoder reads (ink's own type has more). */
export interface KeyFlags {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
}

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
};

/**
 * Ink hands over one key, or a run of plain text (typed fast, pasted, or sent by tmux) in one
 * piece: that run may hold Enter (CR or LF), Backspace (DEL) or Ctrl-C, so it is split here.
 * Every other control character is dropped: nothing typed reaches the screen as a sequence.
 */
export function decodeKeys(input: string, key: KeyFlags): KeyAction[] {
  if (key.return) return [{ type: 'enter' }];
  if (key.upArrow) return [{ type: 'up' }];
  if (key.downArrow) return [{ type: 'down' }];
  if (key.leftArrow) return [{ type: key.ctrl || key.meta ? 'word_left' : 'left' }];
  if (key.rightArrow) return [{ type: key.ctrl || key.meta ? 'word_right' : 'right' }];
  if (key.home) return [{ type: 'home' }];
  if (key.end) return [{ type: 'end' }];
  if (key.tab) return [{ type: 'tab' }];
  // Ink reports the Backspace key (DEL) as `delete`; forward delete is Ctrl-D.
  if (key.backspace || key.delete) return [{ type: key.meta ? 'kill_word' : 'backspace' }];
  if (key.ctrl && input.length === 1) {
    const action = CTRL_KEYS[input.toLowerCase()];
    return action ? [action] : [];
  }
  if (key.meta && input === 'b') return [{ type: 'word_left' }];
  if (key.meta && input === 'f') return [{ type: 'word_right' }];
  if (key.escape && input === '') return [{ type: 'escape' }];
  const actions: KeyAction[] = [];
  let run = '';
  const flush = () => {
    if (run) actions.push({ type: 'insert', text: run });
    run = '';
  };
  let previous = '';
  for (const ch of input) {
    const after = previous;
    previous = ch;
    if (ch === '\r' || ch === '\n') {
      flush();
      // CR LF is one Enter.
      if (!(ch === '\n' && after === '\r')) actions.push({ type: 'enter' });
    } else if (ch === '\u007f' || ch === '\b') {
      flush();
      actions.push({ type: 'backspace' });
    } else if (ch === '\u0003') {
      flush();
      actions.push({ type: 'ctrl_c' });
    } else if (ch === '\t') {
      run += ' ';
    } else if (/[\u0000-\u001f\u007f-\u009f]/.test(ch)) {
      continue;
    } else {
      run += ch;
    }
  }
  flush();
  return actions;
}

/** The line being typed; `cursor` counts code points. */
export interface EditorState {
  text: string;
  cursor: number;
}

export const EMPTY_LINE: EditorState = { text: '', cursor: 0 };

export function lineOf(text: string): EditorState {
  return { text, cursor: Array.from(text).length };
}

/** Applies an editing key; other keys leave the line as it is. */
export function edit(state: EditorState, action: KeyAction): EditorState {
  const chars = Array.from(state.text);
  const cursor = Math.min(Math.max(0, state.cursor), chars.length);
  const make = (next: string[], at: number): EditorState => ({ text: next.join(''), cursor: at });
  switch (action.type) {
    case 'insert': {
      const inserted = Array.from(action.text);
      return make([...chars.slice(0, cursor), ...inserted, ...chars.slice(cursor)], cursor + inserted.length);
    }
    case 'backspace':
      return cursor === 0 ? state : make([...chars.slice(0, cursor - 1), ...chars.slice(cursor)], cursor - 1);
    case 'delete':
    case 'ctrl_d':
      return cursor >= chars.length ? state : make([...chars.slice(0, cursor), ...chars.slice(cursor + 1)], cursor);
    case 'left':
      return { text: state.text, cursor: Math.max(0, cursor - 1) };
    case 'right':
      return { text: state.text, cursor: Math.min(chars.length, cursor + 1) };
    case 'home':
      return { text: state.text, cursor: 0 };
    case 'end':
      return { text: state.text, cursor: chars.length };
    case 'word_left':
      return { text: state.text, cursor: wordStart(chars, cursor) };
    case 'word_right': {
      let at = cursor;
      while (at < chars.length && /\s/.test(chars[at]!)) at++;
      while (at < chars.length && !/\s/.test(chars[at]!)) at++;
      return { text: state.text, cursor: at };
    }
    case 'kill_line':
      return make(chars.slice(cursor), 0);
    case 'kill_word': {
      const start = wordStart(chars, cursor);
      return make([...chars.slice(0, start), ...chars.slice(cursor)], start);
    }
    case 'kill_to_end':
      return make(chars.slice(0, cursor), cursor);
    default:
      return state;
  }
}

function wordStart(chars: string[], cursor: number): number {
  let at = cursor;
  while (at > 0 && /\s/.test(chars[at - 1]!)) at--;
  while (at > 0 && !/\s/.test(chars[at - 1]!)) at--;
  return at;
}

/**
 * Up/down through what was sent before, like a shell: the line being typed is kept as a draft
 * and comes back after the newest entry; a repeated entry is stored once.
 */
export class InputHistory {
  private readonly entries: string[] = [];
  /** Position while browsing: entries.length means "the draft". */
  private position = 0;
  private draft = '';

  constructor(private readonly limit = 500) {}

  get all(): readonly string[] {
    return this.entries;
  }

  push(line: string): void {
    if (line.trim() && this.entries.at(-1) !== line) this.entries.push(line);
    if (this.entries.length > this.limit) this.entries.shift();
    this.position = this.entries.length;
    this.draft = '';
  }

  /** The older entry, or undefined at the oldest. `current` is what the line holds now. */
  up(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    this.position--;
    return this.entries[this.position];
  }

  /** The newer entry, the draft after the newest, or undefined when already on the draft. */
  down(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position++;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}
