// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import chalk from 'chalk';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { fitColumns, lineText, loadMarkdown, markdownLines, sections, type MarkdownLine } from '../../src/repl/markdown.js';
import { wrapPlain } from '../../src/repl/markdown-lines.js';
import { runBin } from '../helpers/cli.js';
import type { ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';
import { replTestbed } from './harness.js';

const ANSWER = [
  '# Trip plan',
  '',
  'You fly **Monday** at _09:40_ with `TM101`; see [the booking](https://example.com/b/7) and ~~the old plan~~.',
  '',
  '## To do',
  '',
  '1. Pack',
  '   - passport',
  '   - charger',
  '2. Check in',
  '- [x] hotel',
  '',
  '> Rain is likely on Tuesday.',
  '',
  '```sh',
  'toolman chat --continue',
  '```',
  '',
  '| Day | What | Cost |',
  '|---|---|--:|',
  '| Monday | Flight TM101 from Oslo to Rome, window seat, one bag of twenty kilograms included in the fare | 99 |',
  '| Tuesday | Museum | 20 |',
].join('\n');

const lay = (text: string, width = 80, color = true) => markdownLines(text, { width, color })!;
const texts = (lines: MarkdownLine[]) => lines.map(lineText);
const styled = (lines: MarkdownLine[], text: string) => lines.flat().find((s) => s.text.includes(text))?.style;

beforeAll(async () => {
  await loadMarkdown();
});

describe('Markdown laid out for the terminal', () => {
  it('headings, emphasis, inline code and links become styles; the link keeps its address as text', () => {
    const lines = lay(ANSWER);
    expect(texts(lines)[0]).toBe('Trip plan');
    expect(styled(lines, 'Trip plan')).toMatchObject({ bold: true, underline: true });
    expect(styled(lines, 'Monday')).toMatchObject({ bold: true });
    expect(styled(lines, '09:40')).toMatchObject({ italic: true });
    expect(styled(lines, 'TM101')).toMatchObject({ color: 'yellow' });
    expect(styled(lines, 'the old plan')).toMatchObject({ strikethrough: true });
    expect(styled(lines, 'the booking')).toMatchObject({ underline: true });
    expect(texts(lines)[2]).toBe('You fly Monday at 09:40 with TM101; see the booking (https://example.com/b/7)');
    expect(texts(lines)[3]).toBe('and the old plan.');
  });

  it('lists: numbers, nested bullets, tasks, wrapped items indented under their text', () => {
    const lines = texts(lay(ANSWER));
    expect(lines).toEqual(expect.arrayContaining(['1. Pack', '   ◦ passport', '   ◦ charger', '2. Check in', '• [x] hotel']));
    const item = texts(lay(`- ${'word '.repeat(30)}`, 40));
    expect(item[0]!.startsWith('• word')).toBe(true);
    expect(item.slice(1).every((l) => l.startsWith('  word'))).toBe(true);
  });

  it('a code block sits in a border with its language; a quote has a bar', () => {
    const lines = texts(lay(ANSWER));
    const top = lines.findIndex((l) => l.startsWith('╭─ sh '));
    expect(lines.slice(top, top + 3)).toEqual([`╭─ sh ${'─'.repeat(20)}╮`, '│ toolman chat --continue │', `╰${'─'.repeat(25)}╯`]);
    expect(lines).toContain('│ Rain is likely on Tuesday.');
  });

  for (const width of [80, 60, 40]) {
    it(`a table fits ${width} columns: long cells wrap inside their column, numbers stay right-aligned`, () => {
      const lines = texts(lay(ANSWER, width));
      const table = lines.slice(lines.findIndex((l) => l.startsWith('┌')), lines.findIndex((l) => l.startsWith('└')) + 1);
      expect(table.length).toBeGreaterThan(6);
      for (const line of table) expect(stringWidth(line)).toBe(stringWidth(table[0]!));
      expect(stringWidth(table[0]!)).toBeLessThanOrEqual(width);
      expect(table[1]).toMatch(/^│ Day +│ What +│ Cost │$/);
      expect(table.find((l) => l.includes('Tuesday'))).toMatch(/│ +20 │$/);
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(width);
    });
  }

  it('column widths: narrow columns keep theirs, wide ones share the rest', () => {
    expect(fitColumns([5, 10, 3], 40)).toEqual([5, 10, 3]);
    expect(fitColumns([6, 100, 4], 40)).toEqual([6, 30, 4]);
    expect(fitColumns([50, 50], 41)).toEqual([21, 20]);
  });

  it('without colour: the same layout, no style at all, inline marks as written', () => {
    const lines = lay(ANSWER, 80, false);
    expect(lines.flat().every((s) => s.style === undefined)).toBe(true);
    expect(texts(lines)).toContain('# Trip plan');
    expect(texts(lines).slice(2, 4).join(' ')).toBe('You fly **Monday** at _09:40_ with `TM101`; see the booking (https://example.com/b/7) and ~~the old plan~~.');
    expect(texts(lines).some((l) => l.startsWith('┌'))).toBe(true);
  });

  it('untrusted text stays text: no control sequence in any part, HTML shown as written, no hyperlink escapes', () => {
    const hostile = [
      '# Title\u001b]0;pwned\u0007 here',
      'Text \u001b[2J with \u009b31m C1 and [a link](https://x.example/\u001b]8;;evil\u0007)',
      '```ba\u001b[31msh',
      'rm -rf \u001b]52;c;Zm9v\u0007 /',
      '```',
      '| a\u001b[1m | b |',
      '|---|---|',
      '| <script>x</script> | &#27;[2J |',
      '<div onclick="x">raw html</div>',
    ].join('\n');
    for (const color of [true, false]) {
      const all = texts(lay(hostile, 80, color)).join('\n');
      expect(all).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(all).toContain('<script>x</script>');
      expect(all).toContain('raw html');
      expect(all).not.toContain('pwned');
    }
  });

  it('streams in sections: cut only where a block surely ends, never inside a fence or a list item', () => {
    expect(sections('one\n\ntwo\n\n```\na\n\nb\n```\n\n- x\n\n  more of x\n\n- y')).toEqual(['one\n', 'two\n', '```\na\n\nb\n```\n', '- x\n\n  more of x\n', '- y']);
    // Laid out in sections, the answer reads as laid out whole.
    const whole = 'Intro.\n\n1. first\n\n2. second\n\n```\ncode\n\nmore code\n```\n\nEnd.';
    expect(texts(lay(whole))).toEqual(['Intro.', '', '1. first', '', '2. second', '', '╭───────────╮', '│ code      │', '│           │', '│ more code │', '╰───────────╯', '', 'End.']);
  });

  it('a line of one column and wide characters never hang the layout', () => {
    expect(texts(lay('漢字漢字 **漢字**', 10)).every((l) => stringWidth(l) <= 10)).toBe(true);
    expect(texts(lay('`' + 'x'.repeat(300) + '`', 12)).every((l) => stringWidth(l) <= 12)).toBe(true);
  });
});

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;

describe('answers in the REPL', () => {
  it('are drawn as Markdown in 80 columns: styles, a bordered code block, a fitted table', async () => {
    // Colour as on a terminal that has it (the fake one has none by default).
    const level = chalk.level;
    chalk.level = 1;
    try {
      server.script([{ text: ANSWER }]);
      const h = await repl({ columns: 80, color: true });
      await h.send('plan my trip');
      await h.idle();
      const screen = h.frame();
      expect(screen).toContain('╭─ sh ');
      expect(screen.replace(/\u001b\[[\d;]*m/g, '')).toMatch(/│ Monday +│ Flight TM101/);
      expect(screen).not.toContain('**Monday**');
      expect(screen).toContain('\u001b[1mMonday');
      const widths = h.frames().flatMap((f) => f.split('\n')).map((l) => stringWidth(l));
      expect(Math.max(...widths)).toBeLessThanOrEqual(80);
    } finally {
      chalk.level = level;
    }
  });

  it('under NO_COLOR: laid out the same, no escape sequence at all', async () => {
    server.script([{ text: ANSWER }]);
    const h = await repl({ columns: 80, color: false });
    await h.send('plan my trip');
    await h.idle();
    expect(h.frame()).toContain('You fly **Monday**');
    expect(h.frame()).toContain('╭─ sh ');
    expect(h.frames().join('')).not.toContain('\u001b[');
  });
});

describe('off a terminal, and loading', () => {
  it('one-shot chat prints the answer as the model wrote it', async () => {
    server.script([{ text: ANSWER }]);
    const run = await runBin(['-c', 'test/fixtures/catalogs/chat.yaml', 'chat', '--prompt', 'plan', '--no-transcript'], { env: { OPENAI_API_KEY: 'sk-markdown-test-key', OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
  });

  it('marked is a chunk of its own, loaded by no command at start (the REPL loads it after its prompt shows)', () => {
    const chunks = join(ROOT, 'dist', 'cli', 'chunks');
    expect(existsSync(chunks), 'run npm run build first').toBe(true);
    const code = (f: string) => /\.[cm]js$/.test(f);
    const holding = readdirSync(chunks).filter((f) => code(f) && readFileSync(join(chunks, f), 'utf8').includes('markedjs/marked'));
    expect(holding).toHaveLength(1);
    const marked = holding[0]!;
    // Every other chunk reaches it only lazily: a dynamic import(), which the CommonJS chunks
    // (scripts/build-cli.mjs) write as `Promise.resolve().then(() => __toESM(require(...)))`.
    let lazily = 0;
    for (const file of [join(ROOT, 'dist', 'cli', 'main.cjs'), ...readdirSync(chunks).filter((f) => code(f) && f !== marked).map((f) => join(chunks, f))]) {
      const text = readFileSync(file, 'utf8');
      const esmStatics = [...text.matchAll(/(?:^|[;}\n])\s*import\s*(?:[^'"()]*?from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
      const requires = [...text.matchAll(/(Promise\.resolve\(\)\.then\(\(\)=>__toESM\()?require\("([^"]+)"\)/g)];
      expect(esmStatics.some((s) => s.includes(marked)), `${file} imports marked statically`).toBe(false);
      expect(requires.some((m) => !m[1] && m[2]!.includes(marked)), `${file} requires marked at load`).toBe(false);
      lazily += requires.filter((m) => m[1] && m[2]!.includes(marked)).length;
    }
    expect(lazily).toBeGreaterThan(0);
  });
});

describe('wrapPlain: plain text in the width it has', () => {
  it('breaks at spaces and drops them: no line starts with the space it broke at', () => {
    const lines = wrapPlain(`delete ${'it '.repeat(40)}`, 78);
    expect(lines.every((l) => stringWidth(l) <= 78 && !l.startsWith(' '))).toBe(true);
    expect(lines.join(' ').replace(/\s+$/, '')).toBe(`delete ${'it '.repeat(40)}`.trim());
  });

  it("keeps a line's indentation and inner spacing, and its blank lines; cuts a word longer than a line", () => {
    expect(wrapPlain('  indented   spaced words that go on and on', 20)).toEqual(['  indented   spaced', 'words that go on and', 'on']);
    expect(wrapPlain(`a\n\nb ${'x'.repeat(25)}`, 10)).toEqual(['a', '', 'b', 'xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
  });

  it('counts wide characters as two columns', () => {
    const lines = wrapPlain('日本語 日本語 日本語', 8);
    expect(lines).toEqual(['日本語', '日本語', '日本語']);
  });
});
