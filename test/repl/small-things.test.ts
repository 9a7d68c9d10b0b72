// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, KEYS } from '../../src/repl/slash-commands.js';
import type { ModelServer } from '../helpers/model-server.js';
import { KEY, replTestbed } from './harness.js';

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;
const deleting = () => [{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Fine, not deleted.' }];

describe('what a user noticed', () => {
  it('an unknown command is shown as typed, above its error', async () => {
    const h = await repl();
    await h.send('/frobnicate now');
    await h.waitFor('unknown command');
    expect(h.frame()).toMatch(/> \/frobnicate now\nerror: unknown command \/frobnicate/);
  });

  it('/history lists the messages only, not the commands; a message of several lines by its first line', async () => {
    server.script([{ text: 'one' }, { text: 'two' }]);
    const h = await repl();
    await h.send('/tools');
    await h.send('first message');
    await h.idle();
    await h.send('/budget');
    await h.write('\u001b[200~second\nof three\nlines\u001b[201~');
    await h.write(KEY.enter);
    await h.idle();
    await h.send('/history');
    await h.waitFor('you said');
    expect(h.frame()).toMatch(/you said\n {2}1 {2}first message\n {2}2 {2}second \(\+2 lines\)\n/);
    expect(h.frame().slice(h.frame().indexOf('you said'))).not.toMatch(/\/tools|\/budget/);
  });

  for (const columns of [120, 80]) {
    it(`/help at ${columns} columns: every entry keeps to its row, a long summary wraps under itself`, async () => {
      const h = await repl({ columns });
      await h.send('/help');
      await h.waitFor('Anything else is sent to the model');
      const screen = h.frame();
      const lines = screen.split('\n');
      expect(Math.max(...lines.map((l) => stringWidth(l)))).toBeLessThanOrEqual(columns);
      const help = lines.slice(lines.findIndex((l) => l === 'commands') + 1, lines.findIndex((l) => l.startsWith('Anything else')));
      const labels = [...COMMANDS.map((c) => `/${c.name}`), ...KEYS.map(([k]) => k)];
      // A row starts with a label; a wrapped row goes on at the summaries' column, never at the label's.
      const column = help[0]!.indexOf(COMMANDS[0]!.summary.slice(0, 10));
      for (const line of help) {
        if (line === 'keys') continue;
        const isEntry = labels.some((label) => line.startsWith(`  ${label}`));
        if (!isEntry) expect(line.slice(0, column).trim(), `a continuation at the label's column: ${JSON.stringify(line)}`).toBe('');
      }
      expect(help.length).toBeGreaterThanOrEqual(COMMANDS.length + KEYS.length + 1);
    });
  }

  it('a decline reads "declined" with what the user did; expanded, it also shows what the model was told', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write('n');
    await h.idle();
    expect(h.frame()).toMatch(/⊘ #1 delete_event \{"id":"e1"\}\n {2}declined · you declined it \(n\)\n/);
    expect(h.frame()).not.toMatch(/failed|\[declined\]|the user declined/);
    await h.write(KEY.ctrlO);
    await h.waitFor('the model was told');
    expect(h.frame()).toMatch(/declined\n {4}you declined it \(n\)\n {4}the model was told: the user declined to run delete_event; do not call it again/);
  });

  it('a question the turn cancelled before the answer: "cancelled", said once', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write(KEY.ctrlC);
    await h.idle();
    expect(h.frame()).toMatch(/⊘ #1 delete_event \{"id":"e1"\}\n {2}cancelled · delete_event was cancelled\n/);
  });
});
