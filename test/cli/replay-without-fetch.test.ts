import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { CATALOGS, ROOT } from '../helpers/paths.js';

// A replay opens no connection, and on Node 20 the first touch of the global Headers, FormData or
// Response loads all of Node's fetch (about 17 ms of CPU). The built SDKs get toolman's Headers and
// FormData (scripts/build-cli.mjs), the replay answers with a RecordedResponse: these runs must
// never load Node's fetch, and answer as the recorded session did.
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const folder = mkdtempSync(join(tmpdir(), 'toolman-replay-fetch-'));
/** Loaded with --require: says at exit whether Node's fetch (its undici bundle) was loaded. */
const probe = join(folder, 'fetch-probe.cjs');
writeFileSync(probe, "process.on('exit', () => process.stderr.write(`\\nNODE_FETCH_LOADED=${process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')}\\n`));\n");
const probed = (env: Record<string, string> = {}) => ({ ...env, NODE_OPTIONS: `--require ${probe}` });
const fetchLoaded = (stderr: string) => /NODE_FETCH_LOADED=(\w+)/.exec(stderr)?.[1];

const catalog = ['-c', 'test/fixtures/catalogs/chat.yaml'];

describe('a replay does not load Node\'s fetch', () => {
  it.each([
    ['openai', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: '/v1' }],
    ['openai-responses', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: '/v1' }],
    ['anthropic', { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: '' }],
  ] as const)('%s: recorded live (Node\'s fetch), replayed without it, the same calls and answer', async (provider, env) => {
    const live = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, k.endsWith('BASE_URL') ? `${server.url}${v}` : v]));
    const recording = join(folder, `${provider}.jsonl`);
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const recorded = await runBin([...catalog, 'chat', '--provider', provider, '--prompt', 'Weather in Oslo?', '--json', '--record', recording, '--no-transcript'], { env: probed(live) });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(fetchLoaded(recorded.stderr)).toBe('true');
    const requests = server.requests.length;
    const replayed = await runBin([...catalog, 'chat', '--replay', recording, '--prompt', 'Weather in Oslo?', '--json', '--no-transcript'], { env: probed() });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(server.requests.length).toBe(requests);
    expect(fetchLoaded(replayed.stderr)).toBe('false');
    const answer = (out: string) => {
      const doc = JSON.parse(out) as { answer: string; calls: unknown[]; stop: string };
      return { answer: doc.answer, calls: doc.calls, stop: doc.stop };
    };
    expect(answer(replayed.stdout)).toEqual(answer(recorded.stdout));
    expect(readFileSync(recording, 'utf8')).toContain('"type":"exchange"');
  });

  it('a recorded rate limit is retried at once, as its replayed retry-after says, without Node\'s fetch', async () => {
    const recording = join(folder, 'rate-limited.jsonl');
    server.script([{ status: 429, retryAfter: 0 }, { text: 'Hello after the limit.' }]);
    const live = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` };
    const recorded = await runBin([...catalog, 'chat', '--provider', 'openai', '--prompt', 'Hi', '--record', recording, '--no-transcript'], { env: live });
    expect(recorded.code, recorded.stderr).toBe(0);
    const replayed = await runBin([...catalog, 'chat', '--replay', recording, '--prompt', 'Hi', '--no-transcript'], { env: probed() });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain('Hello after the limit.');
    // The replay answers 429 with retry-after 0: read from its headers, not the 0.5 s of a reply without one.
    expect(replayed.stderr).toMatch(/retrying in 0\.0 s \(attempt 1, HTTP 429\)/);
    expect(fetchLoaded(replayed.stderr)).toBe('false');
  });

  it('toolman test --replay of the shipped suite: every run passes, and Node\'s fetch is never loaded', async () => {
    const run = await runBin(['-c', join(CATALOGS, 'assistant.yaml'), 'test', join(ROOT, 'suites', 'assistant.yaml'), '--replay', join(ROOT, 'suites', 'recordings'), '--json'], { env: probed() });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, pass_rate: 1, runs_not_run: 0 });
    expect(fetchLoaded(run.stderr)).toBe('false');
  });
});
