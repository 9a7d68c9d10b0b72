// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { inputView } from '../../src/repl/components.js';
import { edit, lineOf, moveLine, type KeyAction } from '../../src/repl/line-editor.js';
import { MAX_PASTE_CHARS, PASTE_END, PASTE_START, TerminalKeys } from '../../src/repl/terminal-keys.js';
import type { ModelServer } from '../helpers/model-server.js';
import { KEY, replTestbed } from './harness.js';

const keys = (...raw: string[]) => {
  const decoder = new TerminalKeys();
  return raw.flatMap((r) => decoder.push(r));
};

describe('what the terminal sends', () => {
  it('a bracketed paste is one piece with its newlines, whatever it holds', () => {
    expect(keys(PASTE_START, 'line one\r\nline two\rline three\n', PASTE_END)).toEqual([{ type: 'paste', text: 'line one\nline two\nline three\n' }]);
    // Split over several reads, with escape sequences and controls inside: data, not keys.
    expect(keys(PASTE_START, 'a\tb', '\u001b[2J', '\u0003c\u0007', '\u001b[A', PASTE_END, 'x')).toEqual([{ type: 'paste', text: 'a\tbc' }, { type: 'insert', text: 'x' }]);
    expect(keys(PASTE_START, PASTE_END)).toEqual([]);
  });

  it('a paste over the limit is cut and says so; one without its end marker ends when asked', () => {
    const big = keys(PASTE_START, 'x'.repeat(MAX_PASTE_CHARS), 'more', PASTE_END);
    expect(big).toHaveLength(1);
    expect(big[0]).toMatchObject({ type: 'paste', cut: true });
    expect((big[0] as { text: string }).text).toHaveLength(MAX_PASTE_CHARS);
    const decoder = new TerminalKeys();
    decoder.push(PASTE_START);
    decoder.push('half a paste');
    expect(decoder.pasting).toBe(true);
    expect(decoder.endPaste()).toEqual([{ type: 'paste', text: 'half a paste' }]);
    expect(decoder.push('\r')).toEqual([{ type: 'enter' }]);
  });

  it('Alt+Enter, Shift+Enter (kitty, xterm modifyOtherKeys) and Ctrl-J insert a newline; Enter sends', () => {
    expect(keys('\u001b\r')).toEqual([{ type: 'newline' }]);
    expect(keys('\u001b[13;2u')).toEqual([{ type: 'newline' }]);
    expect(keys('\u001b[13;3u')).toEqual([{ type: 'newline' }]);
    expect(keys('\u001b[27;2;13~')).toEqual([{ type: 'newline' }]);
    expect(keys('\n')).toEqual([{ type: 'newline' }]);
    expect(keys('\r')).toEqual([{ type: 'enter' }]);
    expect(keys('\u001b[13u')).toEqual([{ type: 'enter' }]);
  });

  it('a run of text without bracketing: breaks inside are newlines, a break at its end is Enter', () => {
    expect(keys('one\ntwo\nthree')).toEqual([{ type: 'insert', text: 'one\ntwo\nthree' }]);
    expect(keys('one\r\ntwo\r\n')).toEqual([{ type: 'insert', text: 'one\ntwo' }, { type: 'enter' }]);
    expect(keys('/exit\r')).toEqual([{ type: 'insert', text: '/exit' }, { type: 'enter' }]);
    // \ + Enter typed while the REPL was busy: a newline, the backslash gone, as when typed alone.
    expect(keys('two\\\rthree')).toEqual([{ type: 'insert', text: 'two\nthree' }]);
    expect(keys('two\\\r')).toEqual([{ type: 'insert', text: 'two\n' }]);
    // So is Tab: completion, not a tab character.
    expect(keys('/sh\t')).toEqual([{ type: 'insert', text: '/sh' }, { type: 'tab' }]);
  });

  it('cursor keys, word moves and the kitty encoding of control keys', () => {
    expect(keys('\u001b[1;5D', '\u001b[1;3C', '\u001b\u001b[D', '\u001bb', '\u001bOH', '\u001b[4~', '\u001b[3~')).toEqual(
      (['word_left', 'word_right', 'word_left', 'word_left', 'home', 'end', 'delete'] as const).map((type) => ({ type })),
    );
    expect(keys('\u001b[99;5u', '\u001b[27u', '\u001b[9u', '\u001b[9;2u', '\u001b[97u', '\u001b[97;2u', '\u001b[97;1:3u')).toEqual([
      { type: 'ctrl_c' },
      { type: 'escape' },
      { type: 'tab' },
      { type: 'shift_tab' },
      { type: 'insert', text: 'a' },
      { type: 'insert', text: 'A' },
    ]);
    // Function keys, focus reports, mouse: dropped, never drawn.
    expect(keys('\u001b[15~', '\u001b[I', '\u001b[<0;3;4M', '\u001bOP')).toEqual([]);
  });
});

describe('editing several lines', () => {
  const apply = (actions: KeyAction[], state = lineOf('')) => actions.reduce(edit, state);

  it('Home/End, Ctrl-U and Ctrl-K work on the cursor\'s line; at its edge they join lines', () => {
    const text = lineOf('first\nsecond');
    expect(apply([{ type: 'home' }], text)).toEqual({ text: 'first\nsecond', cursor: 6 });
    expect(apply([{ type: 'kill_line' }], text)).toEqual({ text: 'first\n', cursor: 6 });
    expect(apply([{ type: 'kill_line' }, { type: 'kill_line' }], text)).toEqual({ text: 'first', cursor: 5 });
    expect(apply([{ type: 'kill_to_end' }], { text: 'first\nsecond', cursor: 5 })).toEqual({ text: 'firstsecond', cursor: 5 });
    expect(apply([{ type: 'newline' }, { type: 'insert', text: 'x' }], { text: 'ab', cursor: 1 })).toEqual({ text: 'a\nxb', cursor: 3 });
  });

  it('Up and Down move between lines, keeping the column where the line is long enough', () => {
    expect(moveLine({ text: 'abcdef\nxy\nlonger line', cursor: 14 }, -1)).toEqual({ text: 'abcdef\nxy\nlonger line', cursor: 9 });
    expect(moveLine({ text: 'abcdef\nxy', cursor: 9 }, -1)).toEqual({ text: 'abcdef\nxy', cursor: 2 });
    expect(moveLine({ text: 'abcdef\nxy', cursor: 2 }, -1)).toBeUndefined();
    expect(moveLine({ text: 'abcdef\nxy', cursor: 5 }, 1)).toEqual({ text: 'abcdef\nxy', cursor: 9 });
    expect(moveLine({ text: 'abcdef\nxy', cursor: 8 }, 1)).toBeUndefined();
  });

  it('shows at most six lines, scrolled to the cursor, and says what is above and below', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    const atEnd = inputView(lineOf(text));
    expect(atEnd.lines.map((l) => l.text)).toEqual(['line 5', 'line 6', 'line 7', 'line 8', 'line 9', 'line 10']);
    expect(atEnd).toMatchObject({ above: 4, below: 0 });
    const atStart = inputView({ text, cursor: 0 });
    expect(atStart).toMatchObject({ first: 0, above: 0, below: 4 });
    expect(atStart.lines[0]).toMatchObject({ cursor: 0, at: 'l', after: 'ine 1' });
  });
});

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;
const lastUserMessage = () => {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === 'user').at(-1)!.content;
};

describe('multi-line input in the REPL', () => {
  it('a pasted text of three lines is one message with its newlines, sent with Enter', async () => {
    server.script([{ text: 'Got three lines.' }]);
    const h = await repl();
    const before = server.requests.length;
    await h.write(`${PASTE_START}first line\nsecond line\nthird line${PASTE_END}`);
    await h.waitFor('  third line');
    expect(h.frame()).toContain('> first line\n  second line\n  third line');
    expect(server.requests).toHaveLength(before);
    await h.write(KEY.enter);
    await h.idle();
    expect(lastUserMessage()).toBe('first line\nsecond line\nthird line');
    expect(h.frame()).toContain('> first line\n  second line\n  third line\nGot three lines.');
  });

  it('Alt+Enter, Shift+Enter and \\ + Enter insert a newline; the input grows, then scrolls', async () => {
    server.script([{ text: 'ok' }]);
    const h = await repl();
    const before = server.requests.length;
    await h.write('one');
    await h.write('\u001b\r');
    await h.write('two');
    await h.write('\u001b[13;2u');
    await h.write('three\\');
    await h.write(KEY.enter);
    await h.write('four');
    expect(h.controller.state.input.text).toBe('one\ntwo\nthree\nfour');
    expect(server.requests).toHaveLength(before);
    await h.waitFor('> one\n  two\n  three\n  four');
    for (const n of [5, 6, 7, 8]) {
      await h.write('\u001b\r');
      await h.write(`line ${n}`);
    }
    await h.waitFor('↑ 2 more lines');
    expect(h.frame()).not.toContain('> one');
    await h.write(KEY.up);
    await h.write(KEY.up);
    await h.write(KEY.up);
    await h.write(KEY.up);
    await h.write(KEY.up);
    await h.write(KEY.up);
    await h.waitFor('↓ 2 more lines');
    await h.write(KEY.enter);
    await h.idle();
    expect(lastUserMessage()).toBe('one\ntwo\nthree\nfour\nline 5\nline 6\nline 7\nline 8');
  });

  it('a paste while an approval question shows goes to the input, and answers nothing', async () => {
    server.script([{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Not deleted.' }]);
    const h = await repl({ approvalGuardMs: 50 });
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write(`${PASTE_START}y${PASTE_END}`);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(h.controller.state.approval).not.toBeNull();
    expect(h.controller.state.input.text).toBe('y');
    await h.waitFor('[y] yes');
    await h.write('n');
    await h.idle();
    expect(h.frame()).toContain('Not deleted.');
  });

  it('Up in a message of several lines moves up a line first; history before the first line', async () => {
    server.script([{ text: 'a' }]);
    const h = await repl();
    await h.send('earlier message');
    await h.idle();
    await h.write(`${PASTE_START}top\nbottom${PASTE_END}`);
    await h.write(KEY.up);
    expect(h.controller.state.input).toEqual({ text: 'top\nbottom', cursor: 3 });
    await h.write(KEY.up);
    expect(h.controller.state.input.text).toBe('earlier message');
    await h.write(KEY.down);
    expect(h.controller.state.input.text).toBe('top\nbottom');
  });
});
