import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, spawnBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

let server: ModelServer;
let dir: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-test-cli-'));
});
afterAll(async () => server.close());

const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

function suite(name: string, body: string, catalogFile = catalog): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\ncatalog: ${JSON.stringify(catalogFile)}\nproviders: [openai:gpt-4o-mini]\n${body}`);
  return file;
}

describe('toolman test (the built binary)', () => {
  it('runs the shipped suite offline from its recordings: exit 0, table, JUnit, no key', async () => {
    const junit = join(dir, 'junit.xml');
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'test', 'suites/assistant.yaml', '--replay', 'suites/recordings', '--junit', junit], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('schedules a meeting');
    expect(run.stdout).toMatch(/passed: 12\/12 runs passed/);
    expect(run.stderr).not.toContain('estimated cost');
    expect(run.stderr).not.toContain('differ');
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(12);
    expect(xml).not.toContain('<failure');
  });

  it('--json prints one document with every run', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'test', 'suites/assistant.yaml', '--replay', 'suites/recordings', '--json'], { env: {} });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.suites[0].runs).toHaveLength(12);
    expect(doc.suites[0].providers[0]).toMatchObject({ provider: 'openai:gpt-4o', precision: 1, recall: 1, pass_hat_k: 1 });
  });

  it('a live run: prints the estimate, runs against the API, exits 1 on a failing case with the reason', async () => {
    server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { text: 'Cloudy in Oslo.' }));
    const file = suite('live', `repeat: 2
cases:
  - name: weather
    prompt: weather in Oslo
    expect: { calls: [{ tool: get_weather, args: { city: Oslo } }] }
  - name: forecast
    prompt: forecast for Oslo
    expect: { calls: [{ tool: get_forecast }] }
`);
    const run = await runBin(['test', '--suite-catalog', file, '--concurrency', '2'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/estimated cost of live: \$\d+\.\d{4} for 4 runs/);
    expect(run.stdout).toContain('2/2 ok');
    expect(run.stdout).toContain('0/2 FAIL');
    expect(run.stdout).toContain('get_forecast was not called; called instead: get_weather');
    expect(run.stdout).toContain('get_forecast → get_weather: 2');
  });

  it('Ctrl-C stops the runs in flight and exits 130; stopped runs count neither way', async () => {
    const prompt = (r: RecordedRequest) => JSON.stringify(r.body.messages);
    server.script((r) => (prompt(r).includes('slow') ? { text: 'slow', delayMs: 10_000 } : { text: 'Fine.' }));
    server.requests.length = 0;
    const file = suite('interrupted', `cases:
  - name: quick
    prompt: say fine
    expect: { answer: { contains: Fine } }
  - name: slow
    prompt: a slow one
    expect: { answer: { contains: Fine } }
`);
    const junit = join(dir, 'interrupted.xml');
    const run = spawnBin(['test', '--suite-catalog', file, '--junit', junit, '--concurrency', '1'], { env: env() });
    // Interrupted once the slow request is out, so a run (not the start-up) is what is cancelled.
    await new Promise<void>((resolve) => {
      const check = () => (server.requests.some((r) => prompt(r).includes('slow')) ? resolve() : setTimeout(check, 20));
      check();
    });
    const started = Date.now();
    run.kill('SIGINT');
    const done = await run.done;
    expect(done.code).toBe(130);
    expect(Date.now() - started).toBeLessThan(5000);
    // No verdict on part of the runs: the stopped run is neither a pass nor a failure.
    expect(done.stdout).toContain('interrupted: 1 run finished (1 passed), 1 stopped or not started; the figures above cover the finished runs only');
    expect(done.stdout).toMatch(/│ quick │ openai:gpt-4o-mini │ 1\/1 ok/);
    expect(done.stdout).not.toMatch(/│ slow|FAIL|failed:/);
    expect(done.stderr).not.toContain('failed');
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(1);
    expect(xml).not.toMatch(/<error|<failure/);
  });

  it('--min-pass-rate decides the exit code over all runs', async () => {
    server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { text: 'ok' }));
    const file = suite('lenient', `cases:
  - name: good
    prompt: weather in Oslo
    expect: { calls: [{ tool: get_weather }] }
  - name: bad
    prompt: forecast in Oslo
    min_pass_rate: 0
    expect: { calls: [{ tool: get_forecast }] }
`);
    expect((await runBin(['test', '--suite-catalog', file], { env: env() })).code).toBe(0);
    const strict = await runBin(['test', '--suite-catalog', file, '--min-pass-rate', '0.9'], { env: env() });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('under --min-pass-rate 0.9');
  });

  it('--max-cost stops before a live run estimated over it', async () => {
    const before = server.requests.length;
    const file = suite('costly', `repeat: 20
cases:
  - { name: a, prompt: weather in Oslo }
`);
    const run = await runBin(['test', '--suite-catalog', file, '--max-cost', '0.0001'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('over --max-cost 0.0001; nothing was run');
    expect(server.requests.length).toBe(before);
  });

  it('usage errors exit 2: no key for a live run, a broken suite (located)', async () => {
    const file = suite('nokey', 'cases:\n  - { name: a, prompt: hi }\n');
    const nokey = await runBin(['test', '--suite-catalog', file], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    expect(nokey.code).toBe(2);
    expect(nokey.stderr).toContain('needs OPENAI_API_KEY');
    expect(nokey.stderr).toContain('--replay');
    const broken = suite('broken', 'cases:\n  - { name: a, promt: hi }\n');
    const bad = await runBin(['test', '--suite-catalog', broken], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/broken\.yaml:5:\d+ unknown key "promt"; did you mean "prompt"/);
  });

  it('record, then replay with no key and no server: the same outcome', async () => {
    server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 500, output: 20 } } : { text: 'Cloudy.', usage: { input: 600, output: 5 } }));
    const file = suite('recorded', `repeat: 3
cases:
  - name: weather
    prompt: weather in Oslo
    expect: { calls: [{ tool: get_weather }], answer: { contains: cloudy } }
`);
    const recordings = join(dir, 'rec');
    const live = await runBin(['test', '--suite-catalog', file, '--record', recordings, '--json'], { env: env() });
    const replay = await runBin(['test', '--suite-catalog', file, '--replay', recordings, '--json'], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(replay.code).toBe(live.code);
    const outcome = (text: string) => JSON.parse(text).suites[0].runs.map((r: { passed: boolean; calls: unknown; answer: string; usage: unknown }) => [r.passed, r.calls, r.answer, r.usage]);
    expect(outcome(replay.stdout)).toEqual(outcome(live.stdout));
    expect(JSON.parse(replay.stdout).suites[0].providers[0].cost_usd).toBeCloseTo(3 * (1100 * 0.15 + 25 * 0.6) / 1e6, 10);
  });
});

describe('toolman eval search on a suite', () => {
  it('scores retrieval with each prompt\'s expected tools as its gold set, no model', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'eval', 'search', '--cases', 'suites/assistant.yaml', '--json'], { env: {} });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.catalog).toBe('assistant');
    expect(doc.cases.map((c: { id: string }) => c.id)).toEqual(['schedules a meeting', 'reads the calendar before moving an event', 'cancelling asks for confirmation', 'finds unread mail then answers', 'a task and an event, any order #1', 'a task and an event, any order #2']);
    expect(doc.cases[1].gold).toEqual(['list_calendar_events', 'update_calendar_event']);
  });
});

describe('toolman test --compare', () => {
  // The "model" picks get_forecast only when its description says it covers today as well.
  let better: string;
  beforeAll(() => {
    better = join(dir, 'travel-better.yaml');
    writeFileSync(better, readFileSync(catalog, 'utf8').replace('Weather forecast for a city for the next days', 'Weather for a city today and the next days (TODAY-TOO)'));
  });

  const script = () =>
    server.script((r) => {
      if (assistantTurns(r) > 0) return { text: 'ok' };
      const tools = JSON.stringify(r.body.tools);
      return { toolCalls: [{ name: tools.includes('TODAY-TOO') ? 'get_forecast' : 'get_weather', arguments: { city: 'Oslo' } }] };
    });

  const file = () =>
    suite('compare', `repeat: 6
cases:
  - { name: today and tomorrow, prompt: weather today and tomorrow in Oslo, expect: { calls: [{ tool: get_forecast }] } }
  - { name: this week, prompt: the week ahead in Oslo, expect: { calls: [{ tool: get_forecast }] } }
  - { name: rain, prompt: will it rain in Oslo this week, expect: { calls: [{ tool: get_forecast }] } }
`);

  it('a known difference: better, with the interval and method', async () => {
    script();
    const run = await runBin(['test', '--suite-catalog', file(), '--compare', catalog, better, '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout).comparisons[0];
    expect(doc.rows).toHaveLength(3);
    for (const row of doc.rows) {
      expect(row.pass_rate).toMatchObject({ a: 0, b: 1, delta: 1, verdict: 'better' });
      expect(row.pass_rate.interval.method).toBe('newcombe-hybrid-score');
      // Newcombe for 0/6 against 6/6: [0.448, 1].
      expect(row.pass_rate.interval.low).toBeCloseTo(0.448, 3);
    }
    expect(doc.overall[0].pass_rate).toMatchObject({ delta: 1, verdict: 'better' });
    expect(doc.overall[0].recall.verdict).toBe('better');
    // Swapped, B is worse: exit 1.
    const swapped = await runBin(['test', '--suite-catalog', file(), '--compare', better, catalog], { env: env() });
    expect(swapped.code).toBe(1);
    expect(swapped.stdout).toContain('worse');
  });

  it('recorded once per variant, the pass-rate delta shows in toolman diff with no server', async () => {
    script();
    const recordings = join(dir, 'compare-rec');
    const suiteFile = file();
    const recorded = await runBin(['test', '--suite-catalog', suiteFile, '--compare', catalog, better, '--record', recordings], { env: env() });
    expect(recorded.code, recorded.stderr).toBe(0);
    const diff = await runBin(['diff', catalog, better, '--suite', suiteFile, '--replay', recordings, '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(diff.code, diff.stderr).toBe(0);
    const doc = JSON.parse(diff.stdout);
    expect(doc.changed.map((c: { tool: string }) => c.tool)).toEqual(['get_forecast']);
    expect(doc.pass_rate[0]).toMatchObject({ provider: 'openai:gpt-4o-mini', cases: 3, pass_rate: { a: 0, b: 1, verdict: 'better' } });
    const md = await runBin(['diff', catalog, better, '--suite', suiteFile, '--replay', recordings, '--format', 'markdown'], { env: {} });
    expect(md.stdout).toMatch(/openai:gpt-4o-mini: 0% → 100% \(Δ \+100 points/);
  });

  it('eager against deferred: the same suite, every tool up front or found through tool_search', async () => {
    server.requests.length = 0;
    server.script((r) => {
      const offered = (r.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      const messages = r.body.messages as { role: string; content: string }[];
      if (offered.includes('get_weather')) return messages.some((m) => m.role === 'tool' && m.content.includes('temp_c')) ? { text: 'Cloudy.' } : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
      return { toolCalls: [{ name: 'tool_search', arguments: { query: 'current weather city' } }] };
    });
    const eagerVsDeferred = suite('loading', `repeat: 2
cases:
  - { name: weather, prompt: weather in Oslo, expect: { calls: [{ tool: get_weather }], answer: { contains: cloudy } } }
`);
    const run = await runBin(['test', '--suite-catalog', eagerVsDeferred, '--compare', 'eager', 'deferred', '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout).comparisons[0];
    expect(doc.rows[0].pass_rate).toMatchObject({ a: 1, b: 1, verdict: 'within noise' });
    const offered = server.requests.map((r) => (r.body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort().join(','));
    expect(offered).toContain('tool_search');
    expect(offered.some((o) => o.includes('get_forecast'))).toBe(true);
  });

  it('no difference: within noise', async () => {
    script();
    const run = await runBin(['test', '--suite-catalog', file(), '--compare', catalog, catalog, '--json'], { env: env() });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout).comparisons[0];
    expect(doc.overall[0].pass_rate.verdict).toBe('within noise');
    expect(doc.rows.every((r: { pass_rate: { verdict: string } }) => r.pass_rate.verdict === 'within noise')).toBe(true);
  });
});
