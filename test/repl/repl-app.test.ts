// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chalk from 'chalk';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ModelServer } from '../helpers/model-server.js';
import { KEY, replTestbed, type Harness } from './harness.js';

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;
const tmp = () => mkdtempSync(join(tmpdir(), 'toolman-repl-'));
const call = (name: string, args: unknown, id?: string) => ({ ...(id ? { id } : {}), name, arguments: args });
/** The screen with line breaks as spaces: for what may wrap. */
const flat = (h: Harness) => h.frame().replace(/\s+/g, ' ');

describe('the conversation', () => {
  it('streams the answer, and the status line counts tools and tokens against the budget', async () => {
    server.script([{ text: 'Hello from the model.', usage: { input: 100, output: 5 } }]);
    const h = await repl();
    await h.waitFor(() => flat(h).includes('definitions 2'));
    expect(flat(h)).toMatch(/openai test-model \| profile full \| 6 active, 1 deferred, 0 found \| no tokens yet \| definitions [\d,]+\/2,000/);
    await h.send('hi');
    await h.idle();
    expect(h.frame()).toContain('> hi\nHello from the model.');
    expect(flat(h)).toMatch(/tokens 100 in \(toolman est\. [\d,]+\), 5 out/);
  });

  it('counts tools found by search, and sums tokens over the session', async () => {
    server.script([
      { toolCalls: [call('tool_search', { query: 'flights' })], usage: { input: 200, output: 10 } },
      { toolCalls: [call('find_flights', { from: 'OSL', to: 'ROM' })], usage: { input: 300, output: 12 } },
      { text: 'TM101 for 99.', usage: { input: 400, output: 6 } },
    ]);
    const h = await repl();
    await h.send('fly me to Rome');
    await h.idle();
    const screen = h.frame();
    expect(screen).toContain('· tool search found: find_flights');
    expect(screen).toMatch(/✓ #2 find_flights \{"from":"OSL","to":"ROM"\}\n {2}done [\d.]+ ms · \[\{"flight":"TM101","price":99\}\]/);
    expect(screen).toContain('6 active, 1 deferred, 1 found');
    expect(flat(h)).toMatch(/tokens 900 in \(toolman est\. [\d,]+\), 28 out/);
  });

  it('takes model text as untrusted: no control sequence reaches the terminal', async () => {
    server.script([{ text: 'Safe \u001b]0;pwned\u0007text\u001b[2J here\u001b]52;c;Zm9v\u0007.' }]);
    const h = await repl();
    await h.send('hi');
    await h.idle();
    expect(h.frame()).toContain('Safe text here.');
    expect(h.frames().join('')).not.toMatch(/\u001b|pwned|\u0007/);
  });

  it('never draws a secret the model streams, even cut between two deltas', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-repl-secret-'));
    const catalog = join(dir, 'secret.yaml');
    writeFileSync(catalog, 'toolman: 1\nname: secret\ntools:\n  - name: ping\n    description: Checks that the service answers.\n    effect: read\n    parameters: { type: object, properties: {} }\n    handler: { http: { method: GET, url: "https://example.invalid/ping", headers: { Authorization: "Bearer ${env:REPL_SECRET}" } } }\n');
    // Streamed in three deltas: the secret is cut between the second and the third.
    server.script([{ text: 'The token is s3cr3tTOKENvalue ok' }]);
    const h = await repl({ catalog, env: { REPL_SECRET: 's3cr3tTOKENvalue' } });
    await h.send('token?');
    await h.idle();
    expect(h.frame()).toContain('The token is [redacted] ok');
    expect(h.frames().join('')).not.toContain('TOKEN');
  });

  it('shows setup notices as warnings, once', async () => {
    const h = await repl({ notices: ['replay: get_weather returned something else than recorded'] });
    expect(h.frame()).toContain('warning: replay: get_weather returned something else than recorded');
    expect(h.context.conversation.notices).toEqual([]);
  });

  it('offers the recorded prompts of a replay in the input line, one after the other', async () => {
    server.script([{ text: 'one' }, { text: 'two' }]);
    const h = await repl({ initialPrompts: ['first recorded', 'second recorded'] });
    expect(h.frame()).toContain('> first recorded_');
    await h.write(KEY.enter);
    await h.idle();
    await h.waitFor('> second recorded_');
  });
});

describe('tool panels', () => {
  it('shows a running call with a spinner and its live duration, then done', async () => {
    server.script([{ toolCalls: [call('slow_task', {})] }, { text: 'Finished.' }]);
    const h = await repl();
    await h.send('go');
    await h.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] #1 slow_task \{\}\n {2}running \d+ ms/);
    await h.idle();
    expect(h.frame()).toMatch(/✓ #1 slow_task \{\}\n {2}done 3\.\d s · finished/);
  });

  it('marks every refusal kind, failures, truncation and de-duplication', async () => {
    server.script([
      {
        toolCalls: [call('get_wether', { city: 'Oslo' }), call('get_weather', {}), call('find_flights', { from: 'A', to: 'B' }), call('long_report', { topic: 'tides' }), call('long_report', { topic: 'tides' })],
      },
      { toolCalls: [call('deep_research', { question: 'q' }), call('get_weather', { city: 'Rome' })] },
      { toolCalls: ['A', 'B', 'C', 'D', 'E'].map((city) => call('get_weather', { city })) },
      { toolCalls: [call('flaky_service', {})] },
    ]);
    const h = await repl();
    await h.send('break things');
    await h.idle();
    const screen = h.frame();
    expect(screen).toMatch(/✗ #1 get_wether .*\n {2}failed \d.* \[refused: unknown_tool\] · there is no tool named "get_wether"; did you mean/);
    expect(screen).toMatch(/✗ #2 get_weather \{\}\n {2}failed .*\[refused: invalid_arguments\]/);
    expect(screen).toMatch(/✗ #3 find_flights .*\n {2}failed .*\[refused: not_available\] · find_flights is not loaded yet/);
    expect(screen).toMatch(/✓ #4 long_report .*\n {2}done .*\[truncated from ~\d+ tokens\]/);
    expect(screen).toMatch(/✓ #5 long_report .*\n {2}done .*\[truncated from ~\d+ tokens\] \[deduplicated\]/);
    expect(screen).toMatch(/✗ #6 deep_research .*\n {2}failed .*\[refused: must_run_alone\]/);
    expect(screen).toMatch(/✗ #7 get_weather .*\n {2}failed .*\[refused: must_run_alone\]/);
    expect(screen).toMatch(/✗ #12 get_weather \{"city":"E"\}\n {2}failed .*\[refused: over_limit\]/);
    expect(screen).toMatch(/✗ #13 flaky_service \{\}\n {2}failed .*\[error: tool_error\] · flaky_service failed: the service is down|✗ #13 flaky_service \{\}\n {2}failed .*\[error: tool_error\] · the service is down/);
    expect(screen).toContain('warning: stopped (max_rounds)');
  });

  it('expands the last panel with Ctrl-O, another with /expand N, in place while it runs', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { toolCalls: [call('slow_task', {})] }, { text: 'Done.' }]);
    const h = await repl();
    await h.send('go');
    await h.waitFor('#2 slow_task');
    await h.write(KEY.ctrlO);
    await h.waitFor('result: not yet');
    await h.write(KEY.ctrlO);
    await h.waitFor(() => !h.frame().includes('result: not yet'));
    await h.idle();
    await h.send('/expand 1');
    await h.waitFor('"temp_c": 3');
    expect(h.frame()).toMatch(/arguments\n {4}\{\n {6}"city": "Oslo"\n {4}\}\n {2}result\n {4}\{\n {6}"city": "Oslo",\n {6}"temp_c": 3,/);
    await h.write(KEY.ctrlO);
    await h.waitFor(/result\n {4}finished/);
    await h.send('/expand 9');
    await h.waitFor('error: no tool call #9; they are numbered 1 to 2');
  });
});

describe('approvals', () => {
  const deleting = () => [{ toolCalls: [call('delete_event', { id: 'e1' })] }, { text: 'All done.' }];

  it('y runs the tool', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('run delete_event? (delete_event is destructive)');
    await h.waitFor('[y] yes   [n] no   [a] always for delete_event in this session   [Esc] no');
    expect(h.frame()).toContain('waiting for your approval');
    await h.write('y');
    await h.idle();
    expect(h.frame()).toMatch(/✓ #1 delete_event \{"id":"e1"\}\n {2}done .* \[approved\] · \{"deleted":"e1"\}/);
    expect(h.frame()).not.toContain('[y] yes');
  });

  it('n declines it, and the model is told', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write('n');
    await h.idle();
    expect(h.frame()).toMatch(/⊘ #1 delete_event .*\n {2}declined · you declined it \(n\)/);
    expect(h.frame()).not.toContain('the user declined');
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('the user declined to run delete_event');
  });

  it('a approves it for the rest of the session: the next call does not ask', async () => {
    server.script([...deleting(), { toolCalls: [call('delete_event', { id: 'e2' })] }, { text: 'Also done.' }]);
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write('a');
    await h.idle();
    expect(h.frame()).toContain('[approved (always)]');
    const before = h.frames().length;
    await h.send('delete e2');
    await h.idle();
    expect(h.frame()).toMatch(/✓ #2 delete_event \{"id":"e2"\}\n {2}done/);
    expect(h.frames().slice(before).some((f) => f.includes('[y] yes'))).toBe(false);
  });

  it("asks for a sub-agent's destructive call, naming the agent", async () => {
    server.script([
      { toolCalls: [call('booker', { task: 'Cancel booking b7' })] },
      { toolCalls: [call('cancel_booking', { id: 'b7' })] },
      { text: 'Booking b7 is cancelled.' },
      { text: 'The booker cancelled b7.' },
    ]);
    server.requests.length = 0;
    const h = await repl({ catalog: 'test/fixtures/catalogs/agents-local.yaml', env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1` } });
    await h.send('cancel b7');
    await h.waitFor('run cancel_booking? (cancel_booking is destructive; asked by the sub-agent booker)');
    await h.waitFor('[y] yes');
    await h.write('y');
    await h.waitFor('The booker cancelled b7.');
    expect(server.requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '{"cancelled":"b7"}' });
  });

  it('--yes: never asks', async () => {
    server.script(deleting());
    const h = await repl({ yes: true });
    await h.send('delete e1');
    await h.idle();
    expect(h.frames().some((f) => f.includes('[y] yes'))).toBe(false);
    expect(h.frame()).toContain('[approved]');
  });
});

describe('slash commands', () => {
  it('/help lists the commands and keys', async () => {
    const h = await repl();
    await h.send('/help');
    for (const name of ['/tools', '/profile NAME', '/force TOOL', '/search QUERY', '/budget', '/show TOOL', '/history', '/save FILE', '/reset', '/help', '/exit', 'Ctrl-C']) expect(h.frame()).toContain(name);
  });

  it('an unknown command suggests the closest', async () => {
    const h = await repl();
    await h.send('/tols');
    expect(h.frame()).toContain('error: unknown command /tols; did you mean /tools?');
    await h.send('/hepl');
    expect(h.frame()).toContain('did you mean /help?');
  });

  it('/tools lists active, deferred and meta-tools', async () => {
    const h = await repl();
    await h.send('/tools');
    const screen = h.frame();
    expect(screen).toContain('profile full: 6 active, 1 deferred (0 found)');
    expect(screen).toMatch(/ {2}delete_event +destructive · Delete a calendar event for good\./);
    expect(screen).toMatch(/deferred \(1\)[^\n]*\n {2}find_flights +Search flights/);
    expect(screen).toMatch(/meta-tools\n {2}tool_search/);
  });

  it('/profile switches to a new session and the conversation goes on; a wrong name gets a suggestion', async () => {
    server.script([{ text: 'one' }, { text: 'two' }]);
    const h = await repl();
    await h.send('hello');
    await h.idle();
    await h.send('/profile wether');
    await h.waitFor('error: no profile named "wether"; did you mean "weather"?');
    await h.send('/profile weather');
    await h.waitFor('✓ profile weather: 1 active, 0 deferred tools; the conversation goes on');
    expect(h.frame()).toContain('profile weather | 1 active, 0 deferred');
    await h.send('again');
    await h.idle();
    const body = server.requests.at(-1)!.body as { messages: { content: unknown }[]; tools: { function: { name: string } }[] };
    expect(body.tools.map((t) => t.function.name)).toEqual(['get_weather']);
    expect(JSON.stringify(body.messages)).toContain('hello');
  });

  it('/force requires the tool in the next turn only', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }, { text: 'Free choice.' }]);
    const h = await repl();
    await h.send('/force get_weathr');
    await h.waitFor('did you mean');
    await h.send('/force get_weather');
    await h.waitFor("✓ get_weather is required in the next turn's first round");
    expect(h.frame()).toContain('next turn forces get_weather');
    await h.send('weather?');
    await h.idle();
    await h.send('and now?');
    await h.idle();
    const choices = server.requests.slice(-3).map((r) => (r.body as { tool_choice?: unknown }).tool_choice);
    expect(choices[0]).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(choices[1]).not.toEqual(choices[0]);
    expect(choices[2]).not.toEqual(choices[0]);
    expect(h.frame()).not.toContain('next turn forces');
  });

  it('/search shows what tool search finds among the session\'s tools', async () => {
    const h = await repl();
    await h.send('/search flights airline');
    await h.waitFor('search "flights airline"');
    expect(h.frame()).toMatch(/find_flights +[\d.]+ +deferred · matched [a-z, ]+ · Search flights/);
    await h.send('/search zebra');
    await h.waitFor('no tool in this session matches "zebra"');
  });

  it('/budget shows what the definitions offered now cost, against the budget', async () => {
    const h = await repl();
    await h.send('/budget');
    await h.waitFor('within the definitions budget');
    expect(h.frame()).toMatch(/offered now: [\d,]+ tokens for 7 tools/);
    expect(h.frame()).toMatch(/ {2}tool_search +\d+/);
    expect(h.frame()).toMatch(/profile full: every selected tool up front [\d,]+; with deferral [\d,]+/);
  });

  it('/show shows a tool\'s description and parameters, and suggests for a wrong name', async () => {
    const h = await repl();
    await h.send('/show get_weather');
    expect(h.frame()).toMatch(/get_weather\nread · mock handler · active\nCurrent weather for a city/);
    expect(h.frame()).toContain('  city  string  required  · City name, e.g. Oslo.');
    await h.send('/show get_wether');
    expect(h.frame()).toMatch(/error: .*get_wether.*get_weather/);
  });

  it('/history lists what was said; up and down recall it in the input line', async () => {
    server.script([{ text: 'a' }, { text: 'b' }]);
    const h = await repl();
    await h.send('first message');
    await h.idle();
    await h.send('second message');
    await h.idle();
    await h.send('/history');
    expect(h.frame()).toMatch(/you said\n {2}1 {2}first message\n {2}2 {2}second message/);
    await h.write('draft');
    await h.write(KEY.up);
    expect(h.controller.state.input.text).toBe('/history');
    await h.write(KEY.up);
    expect(h.controller.state.input.text).toBe('second message');
    await h.write(KEY.up);
    expect(h.frame()).toContain('> first message');
    await h.write(KEY.down);
    await h.write(KEY.down);
    await h.write(KEY.down);
    expect(h.controller.state.input.text).toBe('draft');
    await h.write(KEY.backspace);
    expect(h.controller.state.input.text).toBe('draf');
  });

  it('/save writes messages and turn summaries, and never overwrites without saying so', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }]);
    const dir = tmp();
    const h = await repl({ cwd: dir });
    await h.send('weather?');
    await h.idle();
    await h.send('/save chat.json');
    await h.waitFor('✓ saved chat.json: 4 messages, 1 turns');
    const saved = JSON.parse(readFileSync(join(dir, 'chat.json'), 'utf8'));
    expect(saved).toMatchObject({ provider: 'openai', model: 'test-model', profile: 'full', turns: [{ answer: 'Cold.', stop: 'done', rounds: 2, calls: [{ name: 'get_weather', ok: true }] }] });
    expect(saved.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    writeFileSync(join(dir, 'other.json'), 'keep me');
    await h.send('/save other.json');
    await h.waitFor('warning: other.json exists; /save other.json again overwrites it');
    expect(readFileSync(join(dir, 'other.json'), 'utf8')).toBe('keep me');
    await h.send('/save other.json');
    await h.waitFor('✓ overwrote other.json');
    expect(JSON.parse(readFileSync(join(dir, 'other.json'), 'utf8')).turns).toHaveLength(1);
    // A link is refused at once, not first announced as a file that a second /save overwrites.
    writeFileSync(join(dir, 'target.json'), 'keep me too');
    symlinkSync(join(dir, 'target.json'), join(dir, 'link.json'));
    await h.send('/save link.json');
    await h.waitFor('cannot save to link.json');
    expect(h.frame()).toMatch(/symbolic link/);
    expect(h.frame()).not.toContain('link.json exists');
    expect(readFileSync(join(dir, 'target.json'), 'utf8')).toBe('keep me too');
  });

  it('/reset forgets the conversation', async () => {
    server.script([{ text: 'a' }, { text: 'b' }]);
    const h = await repl();
    await h.send('remember the number 42');
    await h.idle();
    await h.send('/reset');
    await h.waitFor('conversation cleared');
    expect(h.context.conversation.messages).toEqual([]);
    await h.send('what was it?');
    await h.idle();
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain('42');
  });

  it('/exit leaves with 0', async () => {
    const h = await repl();
    await h.send('/exit');
    expect(await h.controller.exited).toBe(0);
  });

  it('writes every event and every command to the transcript', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }]);
    const file = join(tmp(), 'transcript.jsonl');
    const h = await repl({ transcript: file });
    await h.send('weather?');
    await h.idle();
    await h.send('/tools');
    await h.send('/nope');
    await h.send('/exit');
    await h.controller.exited;
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
    const types = lines.map((l) => l.type);
    expect(types.slice(0, 3)).toEqual(['session', 'user', 'turn_start']);
    expect(types).toEqual(expect.arrayContaining(['request', 'tool_calls', 'tool_status', 'tool_result', 'usage', 'assistant_text', 'done']));
    expect(lines.filter((l) => l.type === 'command').map((l) => l.text)).toEqual(['/tools', '/nope', '/exit']);
    expect(lines.at(-1)).toMatchObject({ type: 'exit', code: 0 });
  });
});

describe('Ctrl-C', () => {
  it('cancels the running turn (the stream), then a second Ctrl-C exits with 130', async () => {
    server.script([{ text: 'too late', delayMs: 5000 }]);
    const h = await repl();
    await h.send('take your time');
    await h.waitFor('working… (Ctrl-C cancels)');
    await h.write(KEY.ctrlC);
    await h.waitFor('warning: turn cancelled; what was said so far is kept');
    expect(h.controller.state.running).toBe(false);
    expect(h.frame()).toContain('press Ctrl-C again to exit');
    await h.write(KEY.ctrlC);
    expect(await h.controller.exited).toBe(130);
  });

  it('cancels running tools', async () => {
    server.script([{ toolCalls: [call('slow_task', {})] }]);
    const h = await repl();
    await h.send('go');
    await h.waitFor(/running \d+ ms/);
    await h.write(KEY.ctrlC);
    await h.idle();
    expect(h.frame()).toMatch(/⊘ #1 slow_task \{\}\n {2}cancelled [^[\n]*· /);
  });

  it('cancels a pending approval', async () => {
    server.script([{ toolCalls: [call('delete_event', { id: 'e1' })] }]);
    const h = await repl();
    await h.send('delete');
    await h.waitFor('[y] yes');
    await h.write(KEY.ctrlC);
    await h.idle();
    expect(h.frame()).not.toContain('[y] yes');
    expect(h.frame()).toContain('turn cancelled');
  });

  it('while idle warns first; another key disarms it; twice in a row exits with 130', async () => {
    const h = await repl();
    await h.write('some text');
    await h.write(KEY.ctrlC);
    expect(h.frame()).toContain('press Ctrl-C again to exit');
    expect(h.controller.state.input.text).toBe('');
    await h.write('x');
    expect(h.frame()).not.toContain('press Ctrl-C again to exit');
    await h.write(KEY.ctrlC);
    await h.write(KEY.ctrlC);
    expect(await h.controller.exited).toBe(130);
  });

  it('a stop signal from outside (SIGTERM, SIGHUP) exits with 130', async () => {
    const stop = new AbortController();
    const h = await repl({ signal: stop.signal });
    stop.abort();
    expect(await h.controller.exited).toBe(130);
  });
});

describe('the terminal', () => {
  const busyScript = () => [
    { toolCalls: [call('long_report', { topic: 'a very long topic name that goes on and on well past the width of any reasonable terminal window' })] },
    { text: `${'A long answer with many words that must wrap at the edge of an eighty column terminal. '.repeat(4)}${'x'.repeat(150)}\n\tindented with a tab`, usage: { input: 123456, output: 7890 } },
  ];

  it('with NO_COLOR (colour off) writes no escape sequence at all; with colour it does', async () => {
    const level = chalk.level;
    chalk.level = 1;
    try {
      server.script(busyScript());
      const plain = await repl({ color: false });
      await plain.send('go');
      await plain.idle();
      await plain.write(KEY.ctrlO);
      expect(plain.frames().join('')).not.toContain('\u001b');
      server.script(busyScript());
      const colored = await repl({ color: true });
      await colored.send('go');
      await colored.idle();
      expect(colored.frames().join('')).toContain('\u001b[');
    } finally {
      chalk.level = level;
    }
  });

  it('in 80 columns no line is wider than the terminal', async () => {
    server.script([...busyScript(), { toolCalls: [call('delete_event', { id: 'an-event-id-that-is-quite-long-'.repeat(4) })] }]);
    const h = await repl({ columns: 80 });
    await h.send('go');
    await h.idle();
    await h.write(KEY.ctrlO);
    await h.send('/tools');
    await h.send('/help');
    await h.send(`delete ${'it '.repeat(40)}`);
    await h.waitFor('[y] yes');
    const widths = h.frames().flatMap((f) => f.split('\n')).map((line) => stringWidth(line));
    expect(Math.max(...widths)).toBeLessThanOrEqual(80);
    expect(Math.max(...widths)).toBeGreaterThan(70);
    // Markdown joins the tab-indented line to its paragraph (a lazy continuation); no tab reaches the terminal.
    expect(flat(h)).toContain('indented with a tab');
    expect(h.frames().join('')).not.toContain('\t');
    // A wrapped line starts where its text does: not one column further (the space it broke at),
    // and not back under a label (a /tools name, a /help command).
    const last = h.frames().at(-1)!;
    expect(last).toMatch(/\n> delete( it)+\n {2}it it/);
    const helpIndents = new Set(last.split('\n').filter((l) => /^ {20,}\S/.test(l)).map((l) => l.length - l.trimStart().length));
    expect([...helpIndents]).toHaveLength(1);
    expect(last).toMatch(/\n {2}deep_research +takes control · Research a question in depth and answer the\n {17}user directly/);
  });
});

describe('the module', () => {
  it('is only loaded by toolman chat on a terminal', () => {
    expect(existsSync(join(__dirname, '..', '..', 'src', 'repl', 'run-repl.tsx'))).toBe(true);
  });
});

describe('approvals and typing ahead', () => {
  const deleting = () => [{ toolCalls: [call('delete_event', { id: 'e1' })] }, { text: 'All done.' }];

  it('keys typed ahead or pasted never answer: they stay in the input line; one key press once the keys show does', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('run delete_event?');
    // Still typing "mya..." when the question appeared: the y and the a are no answer.
    await h.write('m');
    await h.write('y');
    await h.write('a');
    expect(h.controller.state.approval).not.toBeNull();
    await h.waitFor('[y] yes');
    // A paste (one run of text) is no answer either, and the question waits for a quiet moment again.
    await h.write('yes');
    expect(h.controller.state.approval).not.toBeNull();
    expect(h.frame()).not.toContain('[y] yes');
    expect(h.frame()).toContain('> myayes');
    await h.waitFor('[y] yes');
    await h.write('y');
    await h.idle();
    expect(h.frame()).toMatch(/✓ #1 delete_event .*\n {2}done .*\[approved\]/);
    expect(h.controller.state.input.text).toBe('myayes');
  });

  it('Esc declines, once the keys show', async () => {
    server.script(deleting());
    const h = await repl();
    await h.send('delete e1');
    await h.waitFor('[y] yes');
    await h.write(KEY.escape);
    await h.idle();
    expect(h.frame()).toMatch(/⊘ #1 delete_event \{"id":"e1"\}\n {2}declined · you declined it \(Esc\)/);
  });
});

describe('untrusted text outside the conversation', () => {
  const NASTY = /\u001b|\u0007|\u009b|pwned|Zm9v/;

  it('a replayed prompt waits in the input line without its control sequences, and is sent as shown', async () => {
    server.script([{ text: 'ok' }]);
    const h = await repl({ initialPrompts: ['look \u001b]52;c;Zm9v\u0007at \u001b]0;pwned\u0007this\u001b[2J\u0007'] });
    expect(h.frame()).toContain('> look at this_');
    await h.write(KEY.enter);
    await h.idle();
    expect(h.frames().join('')).not.toMatch(NASTY);
    const body = JSON.stringify(server.requests.at(-1)!.body);
    expect(body).toContain('look at this');
    expect(body).not.toMatch(/pwned|Zm9v|\\u001b/);
  });

  it("a recording's model name reaches the status line without its control sequences", async () => {
    const h = await repl({ model: 'gpt\u001b]0;pwned\u0007-x\u001b]52;c;Zm9v\u001b\\\u001b[31m' });
    await h.waitFor('openai gpt-x | profile full');
    expect(h.frames().join('')).not.toMatch(NASTY);
  });
});

describe('parallel calls', () => {
  it('a call that is done shows ✓ while a sibling still runs', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' }), call('slow_task', {})] }, { text: 'Both done.' }]);
    const h = await repl();
    await h.send('go');
    await h.waitFor(/running \d+ ms/);
    await h.waitFor(/#1 get_weather .*\n {2}done/);
    expect(h.frame()).toMatch(/✓ #1 get_weather \{"city":"Oslo"\}\n {2}done [\d.]+ ms/);
    expect(h.frame()).not.toContain('✗');
    h.controller.key({ type: 'ctrl_c' });
    await h.idle();
  });
});

describe('forced tools', () => {
  const forcedTurn = () => [{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }];
  const choices = () => server.requests.map((r) => (r.body as { tool_choice?: unknown }).tool_choice);
  const GET_WEATHER = { type: 'function', function: { name: 'get_weather' } };

  it("--force applies to round one of every turn, like the one-shot mode's", async () => {
    server.script([...forcedTurn(), ...forcedTurn()]);
    const before = server.requests.length;
    const h = await repl({ force: ['get_weather'] });
    await h.send('one');
    await h.idle();
    await h.send('two');
    await h.idle();
    const made = choices().slice(before);
    expect(made).toHaveLength(4);
    expect(made[0]).toEqual(GET_WEATHER);
    expect(made[1]).not.toEqual(GET_WEATHER);
    expect(made[2]).toEqual(GET_WEATHER);
    expect(h.frame()).toContain('next turn forces get_weather');
  });

  it("a profile's forced: applies to round one of every turn", async () => {
    server.script([...forcedTurn(), ...forcedTurn()]);
    const before = server.requests.length;
    const h = await repl({ profile: 'forced' });
    await h.send('one');
    await h.idle();
    await h.send('two');
    await h.idle();
    const made = choices().slice(before);
    expect([made[0], made[2]]).toEqual([GET_WEATHER, GET_WEATHER]);
  });

  it('/force X then /profile Y keeps the pending force for the next turn, then Y forces nothing', async () => {
    server.script([{ toolCalls: [call('delete_event', { id: 'e1' })] }, { text: 'Declined, fine.' }, { text: 'Free.' }]);
    const h = await repl();
    await h.send('/force delete_event');
    await h.waitFor('✓ delete_event is required');
    await h.send('/profile weather');
    await h.waitFor('✓ profile weather');
    expect(h.frame()).toContain('next turn forces delete_event');
    const before = server.requests.length;
    await h.send('one');
    await h.waitFor('[y] yes');
    await h.write('n');
    await h.idle();
    await h.send('two');
    await h.idle();
    const made = choices().slice(before);
    expect(made[0]).toEqual({ type: 'function', function: { name: 'delete_event' } });
    expect(made[2]).not.toEqual(made[0]);
    expect(h.context.conversation.session.selection.profile.name).toBe('weather');
    expect(h.frame()).not.toContain('next turn forces');
  });
});

describe('the end of a turn', () => {
  /** Runs `then` in the same tick the turn ends, as a fast typist could. */
  const onTurnEnd = (h: Harness, then: () => void) => {
    let wasRunning = false;
    const stop = h.controller.subscribe(() => {
      if (h.controller.state.running) wasRunning = true;
      else if (wasRunning) {
        stop();
        then();
      }
    });
  };

  it('a /profile right after a forced turn is not undone by dropping the force', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }, { text: 'Weather only.' }]);
    const h = await repl();
    await h.send('/force get_weather');
    await h.waitFor('✓ get_weather is required');
    onTurnEnd(h, () => h.controller.submit('/profile weather'));
    await h.send('one');
    await h.waitFor('✓ profile weather');
    await h.send('two');
    await h.idle();
    const body = server.requests.at(-1)!.body as { tools: { function: { name: string } }[]; tool_choice?: unknown };
    expect(body.tools.map((t) => t.function.name)).toEqual(['get_weather']);
    expect(body.tool_choice).not.toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(h.context.conversation.session.selection.profile.name).toBe('weather');
  });

  it('a message right after a forced turn is not forced', async () => {
    server.script([{ toolCalls: [call('get_weather', { city: 'Oslo' })] }, { text: 'Cold.' }, { text: 'Free.' }]);
    const h = await repl();
    await h.send('/force get_weather');
    await h.waitFor('✓ get_weather is required');
    onTurnEnd(h, () => h.controller.submit('two'));
    await h.send('one');
    await h.waitFor('Free.');
    await h.idle();
    expect((server.requests.at(-1)!.body as { tool_choice?: unknown }).tool_choice).not.toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('/reset forgets the turn summaries too: /save after it saves none', async () => {
    server.script([{ text: 'a' }]);
    const dir = tmp();
    const h = await repl({ cwd: dir });
    await h.send('hello');
    await h.idle();
    await h.send('/reset');
    await h.waitFor('conversation cleared');
    await h.send('/save after.json');
    await h.waitFor('✓ saved after.json: 0 messages, 0 turns');
    expect(JSON.parse(readFileSync(join(dir, 'after.json'), 'utf8')).turns).toEqual([]);
  });
});

describe('/save problems', () => {
  it('a folder, a missing folder or a file in the way: a clear error naming the path', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'afile'), 'x');
    const h = await repl({ cwd: dir });
    await h.send('/save .');
    await h.waitFor('error: cannot save to .: it is a folder; give a file name, like /save chat.json');
    await h.send('/save nowhere/chat.json');
    await h.waitFor(`error: cannot save to nowhere/chat.json: there is no folder ${join(dir, 'nowhere')}`);
    await h.send('/save afile/chat.json');
    await h.waitFor(`error: cannot save to afile/chat.json: ${join(dir, 'afile')} is not a folder`);
    expect(h.frame()).not.toMatch(/EISDIR|ENOENT|ENOTDIR/);
  });

  it.skipIf(process.getuid?.() === 0)('a folder it may not write to: permission denied', async () => {
    const dir = tmp();
    const { chmodSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'locked'));
    chmodSync(join(dir, 'locked'), 0o555);
    const h = await repl({ cwd: dir });
    await h.send('/save locked/chat.json');
    await h.waitFor('error: cannot save to locked/chat.json: permission denied (EACCES)');
  });

  it.skipIf(!existsSync('/dev/full'))('a write that fails says why', async () => {
    const h = await repl();
    await h.send('/save /dev/full');
    // Written aside and renamed, a device would be replaced by a plain file: refused at once (not
    // first announced as a file a second /save overwrites), and it stays a device.
    await h.waitFor('error: cannot save to /dev/full: it is not a regular file');
    expect(h.frame()).not.toContain('/dev/full exists');
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  it('only the command right after the warning confirms an overwrite', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'keep.json'), 'keep me');
    const h = await repl({ cwd: dir });
    await h.send('/save keep.json');
    await h.waitFor('warning: keep.json exists');
    await h.send('/tools');
    await h.send('/save keep.json');
    await h.waitFor(() => h.frame().split('warning: keep.json exists').length === 3);
    expect(readFileSync(join(dir, 'keep.json'), 'utf8')).toBe('keep me');
  });
});

describe('console output while the REPL runs', () => {
  it('becomes a dim note without control sequences; the console is put back on exit', async () => {
    const { openContext, FakeStdin, FakeStdout } = await import('./harness.js');
    const { runRepl } = await import('../../src/repl/run-repl.js');
    const context = await openContext(server);
    const stdin = new FakeStdin();
    const stdout = new FakeStdout(100);
    const stderr = new FakeStdout(100);
    const warn = console.warn;
    const log = console.log;
    try {
      const exited = runRepl(context, { stdout, stderr, env: { FORCE_COLOR: '0' }, cwd: tmp(), terminal: { stdin: stdin as never, stdout: stdout as never, stderr: stderr as never } });
      const screen = () => stdout.frames.join('');
      const started = Date.now();
      while (!screen().includes('type a message')) {
        if (Date.now() - started > 8000) throw new Error(`no prompt: ${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(console.warn).not.toBe(warn);
      console.warn('\u001b]0;pwned\u0007the %s API is deprecated', 'old');
      console.log('hello from a library');
      while (!screen().includes('console.log: hello from a library')) {
        if (Date.now() - started > 8000) throw new Error(`no note: ${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(screen()).toContain('console.warn: the old API is deprecated');
      expect(screen()).not.toMatch(/pwned|\u0007/);
      expect(stderr.frames.join('')).toBe('');
      stdin.write('/exit\r');
      expect(await exited).toBe(0);
      expect(console.warn).toBe(warn);
      expect(console.log).toBe(log);
    } finally {
      console.warn = warn;
      console.log = log;
      await context.manager.close();
    }
  });
});
