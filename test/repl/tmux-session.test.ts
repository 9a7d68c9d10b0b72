import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/paths.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { catalogDir, NODE, scripted, SERVERS } from '../mcp/helpers.js';
import { hasTmux, skipTmux, TmuxTerminal } from './tmux-terminal.js';

/**
 * Issue 23's REPL in the real binary, in a real terminal (tmux, CI=true), against the scripted
 * model server: multi-line input and bracketed paste, Markdown answers, Tab completion,
 * /model and /provider, --continue, /mcp, /context, and the small things.
 */
let server: ModelServer;
let terminal: TmuxTerminal;
beforeAll(async () => {
  server = await startModelServer();
  terminal = new TmuxTerminal();
});
afterAll(async () => {
  terminal.close();
  await server.close();
});

const CHAT = ['-c', 'test/fixtures/catalogs/chat.yaml', 'chat'];
const env = (data: string) => ({ OPENAI_API_KEY: 'sk-tmux-test-key', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: 'sk-ant-tmux-test-key', ANTHROPIC_BASE_URL: server.url, XDG_DATA_HOME: data });
const lastUser = () => {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === 'user').at(-1)!.content;
};
const ANSWER = ['## Plan', '', '- **pack** the bag', '- check in', '', '```sh', 'toolman chat --continue', '```', '', '| Day | What |', '|---|---|', `| Monday | ${'A long description of the day that will need to wrap inside its cell. '.repeat(2)}|`].join('\n');

describe.skipIf(skipTmux)('the REPL in a terminal: issue 23', () => {
  it('input, answers, completion and the small things, in 80 columns', async () => {
    expect(hasTmux, 'tmux is not installed: install it or set TOOLMAN_SKIP_TMUX=1').toBe(true);
    expect(existsSync(BIN), 'run npm run build first').toBe(true);
    const s = terminal.start([...CHAT, '--no-transcript'], env(mkdtempSync(join(tmpdir(), 'toolman-tmux-'))), { width: 80 });
    await s.waitFor('type a message, /help for commands', 'the prompt');

    // A paste of three lines is one message, its newlines kept; it is sent with Enter.
    server.script([{ text: ANSWER }]);
    const before = server.requests.length;
    s.paste('first line\nsecond line\nthird line');
    await s.waitFor('> first line\n  second line\n  third line', 'the pasted lines in the input');
    expect(server.requests).toHaveLength(before);
    s.keys('Enter');
    // The answer as Markdown: a list, a code block in a border, a table fitted to 80 columns.
    // Once the turn is over: the input's placeholder says so.
    await s.waitFor((t) => t.includes('└──') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    expect(lastUser()).toBe('first line\nsecond line\nthird line');
    const screen = s.screen();
    expect(screen).toContain('• pack the bag');
    expect(screen).toContain('│ toolman chat --continue │');
    expect(screen).toMatch(/│ Monday │ A long description of the day/);
    expect(screen).not.toContain('**pack**');
    for (const row of s.rows()) expect([...row].length, row).toBeLessThanOrEqual(80);

    // Alt+Enter and \ + Enter insert a newline.
    server.script([{ text: 'Three lines.' }]);
    // Key by key, as a person types (sent at once, tmux may deliver them in one read, like a paste).
    const pause = () => new Promise((resolve) => setTimeout(resolve, 60));
    s.type('one');
    await pause();
    s.keys('M-Enter');
    await pause();
    s.type('two\\');
    await pause();
    s.keys('Enter');
    await pause();
    s.type('three');
    await s.waitFor('> one\n  two\n  three', 'three lines in the input');
    s.keys('Enter');
    await s.waitFor((t) => t.includes('Three lines.') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    expect(lastUser()).toBe('one\ntwo\nthree');

    // Tab completes a command, then a tool.
    s.type('/sh');
    s.keys('Tab');
    await s.waitFor('> /show ', 'the completed command');
    s.type('get_w');
    s.keys('Tab');
    await s.waitFor('> /show get_weather ', 'the completed tool');
    s.keys('Enter');
    await s.waitFor('Current weather for a city');

    // An unknown command is shown as typed; /history lists messages, not commands.
    await s.send('/frobnicate');
    await s.waitFor('> /frobnicate\nerror: unknown command /frobnicate');
    await s.send('/history');
    const history = await s.waitFor(/you said\n {2}1 {2}first line \(\+2 lines\)\n {2}2 {2}one \(\+2 lines\)\n/, '/history');
    expect(history.slice(history.lastIndexOf('you said'))).not.toContain('/show');

    // A decline reads "declined", in the user's words.
    server.script([{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Kept e1.' }]);
    await s.send('delete e1');
    await s.waitFor('[y] yes');
    s.type('n');
    const declined = await s.waitFor((t) => t.includes('Kept e1.') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    expect(declined).toMatch(/⊘ #\d+ delete_event \{"id":"e1"\}\n {2}declined · you declined it \(n\)/);
    expect(declined).not.toContain('failed [declined]');

    // /context: the next request by part; the status line points to it.
    await s.send('/context');
    await s.waitFor(/history \(\d+ messages\)/, '/context');
    expect(s.screen()).toMatch(/next request [\d,]+ \(\/context\)/);
    expect(await s.exit()).toBe(0);
  });

  it('/provider and /model mid-session, then --continue in a new terminal goes on with the conversation', async () => {
    const data = mkdtempSync(join(tmpdir(), 'toolman-tmux-'));
    const first = terminal.start(CHAT, env(data));
    await first.waitFor('type a message, /help for commands', 'the prompt');
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    await first.send('Weather in Oslo?');
    await first.waitFor((t) => t.includes('It is 3 °C in Oslo.') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    await first.send('/provider anthropic');
    await first.waitFor('✓ now anthropic claude-sonnet-5 (was openai gpt-4o); the conversation goes on with its 4 messages');
    await first.send('/model claude-other');
    await first.waitFor('✓ now anthropic claude-other');
    await first.waitFor('anthropic claude-other | profile');
    server.script([{ text: 'Tomorrow 5 °C.' }]);
    await first.send('And tomorrow?');
    await first.waitFor((t) => t.includes('Tomorrow 5 °C.') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    expect(server.requests.at(-1)!.api).toBe('messages');
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('Weather in Oslo?');
    expect(await first.exit()).toBe(0);

    const second = terminal.start([...CHAT, '--continue'], env(data));
    const resumed = await second.waitFor(/resumed \S+: .*\n(.*\n)*> .*type a message/, 'the resumed conversation and the prompt');
    expect(resumed).toMatch(/> Weather in Oslo\?\n✓ #1 get_weather \{"city":"Oslo"\}/);
    expect(resumed).toContain('Tomorrow 5 °C.');
    expect(resumed.replace(/\s+/g, ' ')).toMatch(/resumed \S+: 2 turns, 6 messages; the conversation goes on with anthropic claude-other/);
    server.script([{ text: 'Welcome back.' }]);
    await second.send('Where were we?');
    await second.waitFor((t) => t.includes('Welcome back.') && t.includes('type a message, /help for commands'), 'the answer, and the turn over');
    const messages = server.requests.at(-1)!.body.messages as { role: string }[];
    expect(server.requests.at(-1)!.body.model).toBe('claude-other');
    expect(messages).toHaveLength(7);
    expect(await second.exit()).toBe(0);
  });

  it('/mcp shows each server, restarts one; /help keeps to its rows at 120 columns', async () => {
    const { file, dir } = catalogDir(`toolman: 1\nname: tmux-mcp\nmcp_servers:\n  notes:\n${scripted('plain')}  broken:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(SERVERS, 'exits-at-start.mjs'))}]\n`);
    const s = terminal.start(['-c', file, 'chat', '--no-transcript'], env(dir), { width: 120 });
    await s.waitFor('type a message, /help for commands', 'the prompt');
    // The broken server is started twice (the era probe, then once more as a 2025 server), which
    // can end after the prompt shows: /mcp again until it says so (a fixed wait raced a faster start).
    let view = '';
    for (let asked = 0; asked < 30 && !/broken +failed/.test(view); asked++) {
      if (asked) await new Promise((resolve) => setTimeout(resolve, 200));
      await s.send('/mcp');
      await s.waitFor('/mcp restart NAME stops a server', '/mcp');
      view = s.screen();
    }
    expect(view).toMatch(/notes +up · 4 tools \(4 offered now, [\d,]+ tokens\)/);
    expect(view).toMatch(/broken +failed · 0 tools/);
    expect(view).toContain('fatal: cannot read config file /nonexistent/config.json');
    await s.send('/mcp restart notes');
    await s.waitFor('✓ MCP server notes is up again: 4 tools');
    await s.send('/help');
    await s.waitFor('Anything else is sent to the model');
    const rows = s.rows();
    const help = rows.slice(rows.lastIndexOf('commands') + 1, rows.findIndex((r, i) => i > rows.lastIndexOf('commands') && r.startsWith('Anything else')));
    const column = help[0]!.indexOf('the tools offered now');
    expect(column).toBeGreaterThan(10);
    // Each row is an entry (a command or key at the left) or a summary going on under its summary column.
    for (const row of help) if (!/^ {2}\S/.test(row) && row !== 'keys') expect(row.slice(0, column).trim(), row).toBe('');
    expect(await s.exit()).toBe(0);
  });
});
