import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, spawnBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const catalog = ['-c', 'test/fixtures/catalogs/chat.yaml'];
const openai = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1` });
const dir = () => mkdtempSync(join(tmpdir(), 'toolman-chat-'));

describe('toolman chat, one turn', () => {
  it('prints the answer as text and the tools it ran on stderr', async () => {
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'Weather in Oslo?', '--no-transcript'], { env: openai() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('It is 3 °C in Oslo.\n');
    expect(run.stderr).toContain('→ get_weather({"city":"Oslo"})');
    expect(run.stderr).toMatch(/✓ get_weather \d/);
  });

  it('talks to Gemini through its OpenAI-compatible endpoint, signatures and all (--provider gemini)', async () => {
    server.requests.length = 0;
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, extra: { google: { thought_signature: 'c2lnbmVk' } } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const gemini = { GEMINI_API_KEY: 'gemini-test-key', GEMINI_BASE_URL: server.url };
    const run = await runBin([...catalog, 'chat', '--provider', 'gemini', '--prompt', 'Weather in Oslo?', '--json', '--no-transcript'], { env: gemini });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ answer: 'It is 3 °C in Oslo.', stop: 'done', calls: [{ name: 'get_weather', ok: true }] });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1beta/openai/chat/completions', '/v1beta/openai/chat/completions']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer gemini-test-key');
    expect(server.requests[0]!.body.model).toBe('gemini-2.5-flash');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('"extra_content":{"google":{"thought_signature":"c2lnbmVk"}}');
    const keyless = await runBin([...catalog, 'chat', '--provider', 'gemini', '--prompt', 'hi', '--no-transcript'], { env: { GEMINI_API_KEY: '', GOOGLE_API_KEY: '' } });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('GEMINI_API_KEY');
    const native = await runBin([...catalog, 'chat', '--provider', 'gemini', '--search', 'native', '--prompt', 'hi', '--no-transcript'], { env: gemini });
    expect(native.code).toBe(2);
    expect(native.stderr).toContain('Gemini has no native tool search');
  });

  it('a hostile answer reaches no terminal: cleaned when piped, escaped in --json and --events (raw through a pipe before)', async () => {
    const hostile = 'hello \u001b[2J\u001b]0;title\u0007 \u202eevil\u202c \u{e0041}done';
    const attack = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]|\udb40/;
    server.script([{ toolCalls: [{ name: 'get_weather\u001b]0;PWN\u0007', arguments: { city: 'Oslo' } }] }, { text: hostile }]);
    const text = await runBin([...catalog, 'chat', '--prompt', 'hi', '--no-transcript'], { env: openai() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('hello  evil done\n');
    // A look-alike of a real tool is named with its hidden characters shown, never as get_weather.
    expect(text.stderr).toContain('→ get_weather\\u001b]0;PWN\\u0007(');
    expect(text.stderr).not.toMatch(/→ get_weather\(/);
    for (const flag of ['--json', '--events']) {
      server.script([{ text: hostile }]);
      const run = await runBin([...catalog, 'chat', '--prompt', 'hi', flag, '--no-transcript'], { env: openai() });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(attack);
      expect(run.stdout).toContain('\\u202e');
    }
  });

  it('--json prints exactly one document with the calls and the usage', async () => {
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 120, output: 10, cached: 20 } }, { text: 'Cold.', usage: { input: 150, output: 2 } }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'Weather?', '--json', '--no-transcript'], { env: openai() });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      answer: 'Cold.',
      stop: 'done',
      rounds: 2,
      calls: [{ round: 1, name: 'get_weather', arguments: { city: 'Oslo' }, ok: true, error: null, approval: null }],
      // The API reported usage: toolman's tokenizer is not loaded for a count nobody asked for.
      usage: { input: 270, output: 12, cached: 20, estimated_input: null },
      transcript: null,
    });
  });

  it('--json counts the input itself where the API reports no usage, and every request with --estimate', async () => {
    // usage: zeros, as a compatible server that does not count says it.
    server.script([{ text: 'Cold.', usage: { input: 0, output: 0 } }]);
    const unreported = JSON.parse((await runBin([...catalog, 'chat', '--prompt', 'Weather?', '--json', '--no-transcript'], { env: openai() })).stdout) as { usage: { input: number; estimated_input: number | null } };
    expect(unreported.usage.input).toBe(0);
    expect(unreported.usage.estimated_input).toBeGreaterThan(0);
    server.script([{ text: 'Cold.', usage: { input: 150, output: 2 } }]);
    const asked = JSON.parse((await runBin([...catalog, 'chat', '--prompt', 'Weather?', '--json', '--estimate', '--no-transcript'], { env: openai() })).stdout) as { usage: { input: number; estimated_input: number | null } };
    expect(asked.usage.input).toBe(150);
    expect(asked.usage.estimated_input).toBe(unreported.usage.estimated_input);
  });

  it('--events prints each event as a JSON line, ending with done', async () => {
    server.script([{ text: 'Hi.' }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'Hello', '--events', '--no-transcript'], { env: openai() });
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events[0]!.type).toBe('turn_start');
    expect(events.at(-1)).toMatchObject({ type: 'done', stop: 'done', answer: 'Hi.' });
    expect(events.map((e) => e.type)).toContain('usage');
  });

  it('reads the prompt from standard input', async () => {
    server.script([{ text: 'Piped.' }]);
    const run = spawnBin([...catalog, 'chat', '--no-transcript'], { env: openai(), stdin: 'Hello from a pipe' });
    expect((await run.done).stdout).toBe('Piped.\n');
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('Hello from a pipe');
  });

  it('without a key names the variable to set, and how to see the loop without one (exit 2)', async () => {
    const run = await runBin([...catalog, 'chat', '--prompt', 'x', '--provider', 'anthropic'], { env: { ANTHROPIC_API_KEY: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('needs ANTHROPIC_API_KEY');
    expect(run.stderr).toMatch(/toolman -c \S*catalogs\/assistant.yaml chat --replay \S*catalogs\/recordings\/assistant.jsonl/);
  });

  it('a refused key is a clear error, exit 1', async () => {
    server.script([{ status: 401 }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'x', '--no-transcript'], { env: openai() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused the API key (HTTP 401)');
    expect(run.stderr).toContain('check OPENAI_API_KEY');
  });

  it('declines destructive tools without --yes, runs them with it', async () => {
    const call = { toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] };
    server.script([call, { text: 'Not deleted.' }]);
    const declined = await runBin([...catalog, 'chat', '--prompt', 'delete e1', '--json', '--no-transcript'], { env: openai() });
    expect(JSON.parse(declined.stdout).calls[0]).toMatchObject({ ok: false, approval: 'declined' });
    server.script([call, { text: 'Deleted.' }]);
    const approved = await runBin([...catalog, 'chat', '--prompt', 'delete e1', '--json', '--yes', '--no-transcript'], { env: openai() });
    expect(JSON.parse(approved.stdout).calls[0]).toMatchObject({ ok: true, approval: 'approved' });
  });

  it('exits 1 at the round limit', async () => {
    const loop = (city: string) => ({ toolCalls: [{ name: 'get_weather', arguments: { city } }] });
    server.script([loop('A'), loop('B'), loop('C'), loop('D')]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'x', '--json', '--no-transcript'], { env: openai() });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ stop: 'max_rounds', rounds: 4 });
  });

  it('Ctrl-C cancels the turn and exits 130', async () => {
    server.script([{ text: 'slow', delayMs: 5000 }]);
    server.requests.length = 0;
    const run = spawnBin([...catalog, 'chat', '--prompt', 'x', '--no-transcript'], { env: openai() });
    // Interrupted once the request is out, so the turn (not the start-up) is what is cancelled.
    await new Promise<void>((resolve) => {
      const check = () => (server.requests.length ? resolve() : setTimeout(check, 20));
      check();
    });
    run.kill('SIGINT');
    expect((await run.done).code).toBe(130);
  });

  it('writes a transcript as it goes, with secrets redacted', async () => {
    const folder = dir();
    const transcript = join(folder, 't.jsonl');
    server.script([{ text: 'The key is sk-secret-123456.' }]);
    const secretCatalog = join(folder, 'c.yaml');
    writeFileSync(secretCatalog, readFileSync('test/fixtures/catalogs/chat.yaml', 'utf8').replace('tools:\n', 'tools:\n  - name: uses_key\n    description: Calls an API with a key from the environment.\n    handler: { http: { url: "https://api.example.com/?key=${env:TEST_SECRET}" } }\n'));
    const run = await runBin(['-c', secretCatalog, 'chat', '--prompt', 'what is the key?', '--transcript', transcript], { env: { ...openai(), TEST_SECRET: 'sk-secret-123456' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`transcript: ${transcript}`);
    const lines = readFileSync(transcript, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string });
    expect(lines[0]).toMatchObject({ type: 'session', provider: 'openai' });
    expect(lines.map((l) => l.type)).toEqual(expect.arrayContaining(['user', 'turn_start', 'request', 'usage', 'assistant_text', 'done']));
    expect(readFileSync(transcript, 'utf8')).not.toContain('sk-secret-123456');
    expect(lines.find((l) => l.type === 'assistant_text')!.text).toBe('The key is [redacted].');
  });
});

describe('record and replay', () => {
  it('replays a recorded session with no network and no key: the same calls and answer', async () => {
    const folder = dir();
    const recording = join(folder, 'session.jsonl');
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const recorded = await runBin([...catalog, 'chat', '--prompt', 'Weather in Oslo?', '--json', '--record', recording, '--no-transcript'], { env: openai() });
    expect(recorded.code, recorded.stderr).toBe(0);
    const requestsBefore = server.requests.length;
    const replayed = await runBin([...catalog, 'chat', '--provider', 'replay', '--replay', recording, '--prompt', 'Weather in Oslo?', '--json', '--no-transcript'], { env: {} });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(server.requests.length).toBe(requestsBefore);
    const strip = (doc: { calls: { content: string }[] }) => ({ ...doc, usage: undefined, calls: doc.calls.map((c) => ({ ...c })) });
    expect(strip(JSON.parse(replayed.stdout))).toEqual(strip(JSON.parse(recorded.stdout)));
    // A provider that is not the recording's is said to be ignored, not silently dropped.
    const other = await runBin([...catalog, 'chat', '--provider', 'anthropic', '--replay', recording, '--prompt', 'Weather in Oslo?', '--no-transcript'], { env: {} });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain('replay: the recording was made with openai; --provider anthropic is ignored');
  });

  it('stops with a diff naming what changed when the catalog changed a request', async () => {
    const folder = dir();
    const recording = join(folder, 'session.jsonl');
    server.script([{ text: 'Hello.' }]);
    await runBin([...catalog, 'chat', '--prompt', 'Hi', '--record', recording, '--no-transcript'], { env: openai() });
    const changed = join(folder, 'chat.yaml');
    copyFileSync('test/fixtures/catalogs/chat.yaml', changed);
    writeFileSync(changed, readFileSync(changed, 'utf8').replace('Current weather for a city', 'The weather right now in a city'));
    const run = await runBin(['-c', changed, 'chat', '--replay', recording, '--prompt', 'Hi', '--no-transcript'], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('matches no recorded one');
    expect(run.stderr).toContain('tools.get_weather.description');
    expect(run.stderr.split('tools.get_weather.description').length - 1, 'the difference is said once').toBe(1);
    expect(run.stderr).toContain('stopped (error)');
  });

  it('says so when a tool answers differently from the recording, and goes on', async () => {
    const folder = dir();
    const recording = join(folder, 'session.jsonl');
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }]);
    await runBin([...catalog, 'chat', '--prompt', 'Weather?', '--record', recording, '--no-transcript'], { env: openai() });
    const changed = join(folder, 'chat.yaml');
    writeFileSync(changed, readFileSync('test/fixtures/catalogs/chat.yaml', 'utf8').replace('temp_c: 3', 'temp_c: 4'));
    const run = await runBin(['-c', changed, 'chat', '--replay', recording, '--prompt', 'Weather?', '--no-transcript'], { env: {} });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('get_weather answered differently from the recording');
    expect(run.stderr.split('answered differently').length - 1, 'each changed result is reported once').toBe(1);
    expect(run.stdout).toBe('Cold.\n');
    const strict = await runBin(['-c', changed, 'chat', '--replay', recording, '--prompt', 'Weather?', '--no-transcript', '--replay-strict'], { env: {} });
    expect(strict.code, 'a CI check of a recorded session fails on a changed result').toBe(1);
    expect(strict.stderr).toContain('--replay-strict');
    const same = await runBin([...catalog, 'chat', '--replay', recording, '--prompt', 'Weather?', '--no-transcript', '--replay-strict'], { env: {} });
    expect(same.code, same.stderr).toBe(0);
  });

  it('refuses a file that is not a recording', async () => {
    const run = await runBin([...catalog, 'chat', '--replay', 'test/fixtures/catalogs/chat.yaml', '--prompt', 'x'], { env: {} });
    expect(run.code).toBe(2);
    expect(existsSync('x')).toBe(false);
  });
});

describe('what a user gave or recorded is safe', () => {
  const SECRET = 's3cr3tTOKENvalue';
  it('a secret the model streams in pieces is redacted from the answer, --events, --json and the recording', async () => {
    const folder = dir();
    const file = join(folder, 'secret.yaml');
    writeFileSync(file, 'toolman: 1\nname: secret\ntools:\n  - name: ping\n    description: Checks that the service answers.\n    effect: read\n    parameters: { type: object, properties: {} }\n    handler: { http: { method: GET, url: "https://example.invalid/ping", headers: { Authorization: "Bearer ${env:CHAT_SECRET}" } } }\n');
    const env = { ...openai(), CHAT_SECRET: SECRET };
    // 32 characters, streamed in three deltas: the secret is cut between the second and the third.
    const answer = `The token is ${SECRET} ok`;
    for (const mode of [[], ['--events'], ['--json']]) {
      server.script([{ text: answer }]);
      const recording = join(folder, `r${mode.join('')}.jsonl`);
      const run = await runBin(['-c', file, 'chat', '--prompt', 'token?', '--record', recording, '--no-transcript', ...mode], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toContain('TOKEN');
      expect(run.stdout).toContain('[redacted]');
      expect(readFileSync(recording, 'utf8')).not.toContain('TOKENvalue');
    }
    // The recording still replays: the redacted text is what it says now.
    const replay = await runBin(['-c', file, 'chat', '--replay', join(folder, 'r.jsonl'), '--no-transcript'], { env: {} });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe('The token is [redacted] ok\n');
  });

  it('never overwrites a recording, and says which option names a bad path', async () => {
    const folder = dir();
    const recording = join(folder, 'kept.jsonl');
    writeFileSync(recording, 'my recording\n');
    const run = await runBin([...catalog, 'chat', '--prompt', 'Hi', '--record', recording, '--no-transcript'], { env: openai() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--record ${recording}: the file exists; toolman does not overwrite it`);
    expect(readFileSync(recording, 'utf8')).toBe('my recording\n');
    for (const [path, why] of [[folder, 'it is a folder'], [join(recording, 'x.jsonl'), 'is not a folder']] as const) {
      const bad = await runBin([...catalog, 'chat', '--prompt', 'Hi', '--transcript', path], { env: openai() });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`--transcript ${path}`);
      expect(bad.stderr).toContain(why);
      expect(bad.stderr).not.toContain('internal error');
    }
  });

  it('refuses --json with --events, and an empty prompt', async () => {
    const both = await runBin([...catalog, 'chat', '--prompt', 'Hi', '--json', '--events'], { env: openai() });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--json and --events');
    const empty = await runBin([...catalog, 'chat', '--prompt', 'Hi', '--prompt', ' '], { env: openai() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('empty --prompt');
  });

  it('replays a recorded rate limit without waiting, and refuses a damaged exchange with its line', async () => {
    const folder = dir();
    const recording = join(folder, 'limited.jsonl');
    server.script([{ status: 429, retryAfter: 3 }, { text: 'Hello after the limit.' }]);
    const liveStarted = Date.now();
    const live = await runBin([...catalog, 'chat', '--prompt', 'Hi', '--record', recording, '--no-transcript'], { env: openai() });
    const liveMs = Date.now() - liveStarted;
    expect(live.stdout).toContain('Hello after the limit.');
    expect(liveMs, 'the live run waits the retry-after').toBeGreaterThanOrEqual(3000);
    const started = Date.now();
    const replay = await runBin([...catalog, 'chat', '--replay', recording, '--no-transcript'], { env: {} });
    expect(replay.stdout).toContain('Hello after the limit.');
    // Against the live run's own time, not the wall clock: a loaded machine slows both alike.
    expect(Date.now() - started, 'the recorded retry-after of 3 s is not waited for').toBeLessThan(liveMs - 2000);
    const lines = readFileSync(recording, 'utf8').split('\n');
    const exchange = lines.findIndex((l) => l.includes('"type":"exchange"'));
    const damaged = JSON.parse(lines[exchange]!);
    damaged.response.status = 99;
    lines[exchange] = JSON.stringify(damaged);
    writeFileSync(recording, lines.join('\n'));
    const bad = await runBin([...catalog, 'chat', '--replay', recording, '--no-transcript'], { env: {} });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${recording}:${exchange + 1} is not a recorded exchange: response.status`);
  });
});
