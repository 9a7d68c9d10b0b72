/**
 * The REPL's input as plain data: edits on `{text, cursor}` (the text may span lines: a paste,
 * Alt+Enter), and the up/down history. No ink here, so every key is unit-tested.
 */

/** What a key (or a pasted run of text) asks for (decoded from the terminal in terminal-keys.ts). */
export type KeyAction =
  | { type: 'insert'; text: string }
  /** A bracketed paste, as one piece: never a key (not Enter, not an approval's answer). `cut`: it was over the size limit. */
  | { type: 'paste'; text: string; cut?: boolean }
  /** A line break in the input without sending (Alt+Enter, Shift+Enter, Ctrl-J). */
  | { type: 'newline' }
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
  | { type: 'shift_tab' }
  | { type: 'ctrl_c' }
  | { type: 'ctrl_d' }
  | { type: 'ctrl_o' }
  | { type: 'ctrl_l' };

/** The line being typed; `cursor` counts code points. */
export interface EditorState {
  text: string;
  cursor: number;
}

export const EMPTY_LINE: EditorState = { text: '', cursor: 0 };

export function lineOf(text: string): EditorState {
  return { text, cursor: Array.from(text).length };
}

/** Applies an editing key; other keys leave the text as it is. Home, End and the kills work on the cursor's line. */
export function edit(state: EditorState, action: KeyAction): EditorState {
  const chars = Array.from(state.text);
  const cursor = Math.min(Math.max(0, state.cursor), chars.length);
  const make = (next: string[], at: number): EditorState => ({ text: next.join(''), cursor: at });
  const { start, end } = lineBounds(chars, cursor);
  switch (action.type) {
    case 'insert':
    case 'paste':
    case 'newline': {
      const inserted = action.type === 'newline' ? ['\n'] : Array.from(action.text);
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
      return { text: state.text, cursor: start };
    case 'end':
      return { text: state.text, cursor: end };
    case 'word_left':
      return { text: state.text, cursor: wordStart(chars, cursor) };
    case 'word_right': {
      let at = cursor;
      while (at < chars.length && /\s/.test(chars[at]!)) at++;
      while (at < chars.length && !/\s/.test(chars[at]!)) at++;
      return { text: state.text, cursor: at };
    }
    case 'kill_line':
      // At a line's start, the break before it goes (the lines join).
      if (cursor === start && start > 0) return make([...chars.slice(0, start - 1), ...chars.slice(cursor)], start - 1);
      return make([...chars.slice(0, start), ...chars.slice(cursor)], start);
    case 'kill_word': {
      const from = wordStart(chars, cursor);
      return make([...chars.slice(0, from), ...chars.slice(cursor)], from);
    }
    case 'kill_to_end':
      // At a line's end, the break after it goes (like Emacs).
      if (cursor === end && end < chars.length) return make([...chars.slice(0, cursor), ...chars.slice(cursor + 1)], cursor);
      return make([...chars.slice(0, cursor), ...chars.slice(end)], cursor);
    default:
      return state;
  }
}

/** The line the cursor is on, as code point offsets: its start, and its end (before its break). */
export function lineBounds(chars: readonly string[], cursor: number): { start: number; end: number } {
  let start = cursor;
  while (start > 0 && chars[start - 1] !== '\n') start--;
  let end = cursor;
  while (end < chars.length && chars[end] !== '\n') end++;
  return { start, end };
}

/**
 * The cursor one line up (-1) or down (+1), at the same column or the line's end; undefined on the
 * first (last) line, where Up (Down) goes through the history instead.
 */
export function moveLine(state: EditorState, direction: -1 | 1): EditorState | undefined {
  const chars = Array.from(state.text);
  const cursor = Math.min(Math.max(0, state.cursor), chars.length);
  const { start, end } = lineBounds(chars, cursor);
  const column = cursor - start;
  if (direction < 0) {
    if (start === 0) return undefined;
    const above = lineBounds(chars, start - 1);
    return { text: state.text, cursor: Math.min(above.start + column, above.end) };
  }
  if (end >= chars.length) return undefined;
  const below = lineBounds(chars, end + 1);
  return { text: state.text, cursor: Math.min(below.start + column, below.end) };
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
