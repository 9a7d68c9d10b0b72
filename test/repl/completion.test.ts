// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionAt, replaceWord, type CompletionSources } from '../../src/repl/completion.js';
import { lineOf } from '../../src/repl/line-editor.js';
import { replTestbed } from './harness.js';

const folder = () => {
  const cwd = mkdtempSync(join(tmpdir(), 'toolman-complete-'));
  mkdirSync(join(cwd, 'notes'));
  writeFileSync(join(cwd, 'notes', 'today.md'), '');
  writeFileSync(join(cwd, 'chat-1.json'), '');
  writeFileSync(join(cwd, 'chat-2.json'), '');
  writeFileSync(join(cwd, '.hidden.json'), '');
  return cwd;
};

const sources = (cwd: string): CompletionSources => ({
  tools: () => ['get_weather', 'get_time', 'delete_event', 'weather'],
  profiles: () => ['full', 'forced', 'weather'],
  providers: () => ['openai', 'openai-responses', 'anthropic', 'gemini'],
  mcpServers: () => ['files', 'fetch'],
  cwd,
});

describe('what Tab completes', () => {
  const cwd = folder();
  const at = (text: string) => completionAt(lineOf(text), sources(cwd));

  it('commands after "/", and what each command takes', () => {
    expect(at('/sh')).toMatchObject({ candidates: ['/show'], common: '/show' });
    expect(at('/pro')).toMatchObject({ candidates: ['/profile', '/prompt', '/provider'], common: '/pro' });
    expect(at('/show get_')).toMatchObject({ start: 6, word: 'get_', candidates: ['get_time', 'get_weather'], common: 'get_' });
    expect(at('/force get_time del')).toMatchObject({ candidates: ['delete_event'] });
    expect(at('/force get_time,del')).toMatchObject({ candidates: ['delete_event'] });
    expect(at('/profile f')).toMatchObject({ candidates: ['forced', 'full'] });
    expect(at('/provider open')).toMatchObject({ candidates: ['openai', 'openai-responses'], common: 'openai' });
    expect(at('/mcp r')).toMatchObject({ candidates: ['restart'] });
    expect(at('/mcp restart f')).toMatchObject({ candidates: ['fetch', 'files'] });
    // Nothing to complete: a message, free text, a second argument where one is taken.
    expect(at('hello wor')).toBeUndefined();
    expect(at('/search wea')).toBeUndefined();
    expect(at('/show get_weather we')).toBeUndefined();
  });

  it('file names for /save: folders end with "/", hidden files only after a "."', () => {
    expect(at('/save ch')).toMatchObject({ candidates: ['chat-1.json', 'chat-2.json'], common: 'chat-' });
    expect(at('/save no')).toMatchObject({ candidates: ['notes/'], closes: false });
    expect(at('/save notes/t')).toMatchObject({ candidates: ['notes/today.md'], closes: true });
    expect(at('/save .h')).toMatchObject({ candidates: ['.hidden.json'] });
    expect(at('/save ')!.candidates).not.toContain('.hidden.json');
    expect(at('/save nowhere/x')).toBeUndefined();
  });

  it('replaces the word, with a space after a finished one', () => {
    const input = lineOf('/show get_w');
    const completion = completionAt(input, sources(cwd))!;
    expect(replaceWord(input, completion, 'get_weather', true)).toEqual({ text: '/show get_weather ', cursor: 18 });
  });
});

const bed = replTestbed();
const repl = bed.start;
const TAB = '\t';
const SHIFT_TAB = '\u001b[Z';

describe('Tab in the REPL', () => {
  it('completes a command, then a tool of this catalog', async () => {
    const h = await repl();
    await h.write('/sh');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/show ');
    await h.write('get_w');
    await h.write(TAB);
    expect(h.controller.state.input).toEqual({ text: '/show get_weather ', cursor: 18 });
    await h.write('\r');
    await h.waitFor('Current weather for a city');
  });

  it('several choices: what they share, the choices shown; Tab again goes through them, Shift+Tab back', async () => {
    const h = await repl();
    await h.write('/p');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/pro');
    await h.waitFor('/profile  /prompt  /provider');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/profile');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/prompt');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/provider');
    await h.write(SHIFT_TAB);
    await h.write(SHIFT_TAB);
    expect(h.controller.state.input.text).toBe('/profile');
    await h.write(' we');
    expect(h.frame()).not.toContain('/profile  /prompt  /provider');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/profile weather ');
  });

  it('a file name for /save, from the folder the REPL runs in', async () => {
    const cwd = folder();
    const h = await repl({ cwd });
    await h.write('/save no');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/save notes/');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('/save notes/today.md ');
  });

  it('Tab in a message does nothing (no tab character, no choice)', async () => {
    const h = await repl();
    await h.write('hello');
    await h.write(TAB);
    expect(h.controller.state.input.text).toBe('hello');
    expect(h.controller.state.choices).toBeNull();
  });
});

describe('names from the disk are untrusted', () => {
  it('a file name with escape sequences is shown without them', async () => {
    const cwd = folder();
    writeFileSync(join(cwd, 'bad\u001b[2J\u001b]0;pwned\u0007name.json'), '');
    writeFileSync(join(cwd, 'bad-other.json'), '');
    const h = await repl({ cwd });
    await h.write('/save ba');
    await h.write(TAB);
    await h.waitFor('bad-other.json');
    expect(h.frames().join('')).not.toMatch(/\u001b\[2J|\u001b\]0;|pwned\u0007/);
  });
});
