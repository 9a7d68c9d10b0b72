import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { loadSuite } from '../../src/testing/load-suite.js';
import { DEFAULT_PRICES } from '../../src/testing/prices.js';
import { runSuite, type RunResult, type SuiteRunOptions } from '../../src/testing/run-suite.js';
import { summarizeRuns } from '../../src/testing/suite-report.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

let server: ModelServer;
let dir: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-suite-'));
});
afterAll(async () => server.close());

let suiteCount = 0;
function writeSuite(yaml: string): string {
  const file = join(dir, `suite-${++suiteCount}.yaml`);
  writeFileSync(file, `catalog: ${JSON.stringify(catalog)}\n${yaml}`);
  return file;
}

/**
 * What the user said last (as opposed to tool results) and how many model replies followed it,
 * in each API's shape: Chat and Messages keep `messages` (Anthropic's tool results are user
 * messages of tool_result blocks), Responses keeps `input` items.
 */
function position(request: RecordedRequest): { said: string; round: number } {
  const items: Record<string, unknown>[] = request.body.messages ?? request.body.input ?? [];
  const isPrompt = (m: Record<string, unknown>) =>
    m.role === 'user' && (typeof m.content === 'string' || (Array.isArray(m.content) && m.content.some((b: { type?: string }) => b.type === 'text' || b.type === 'input_text')));
  let last = -1;
  items.forEach((m, i) => {
    if (isPrompt(m)) last = i;
  });
  const content = items[last]?.content;
  const said = typeof content === 'string' ? content : JSON.stringify(content);
  const after = items.slice(last + 1);
  const round = request.api === 'responses' ? after.filter((m, i) => m.type === 'function_call' && after[i - 1]?.type !== 'function_call').length : after.filter((m) => m.role === 'assistant').length;
  return { said, round };
}

/** Replies picked by what the user said and the round: safe under concurrency. */
function scriptBy(table: Record<string, ScriptedReply[]>) {
  server.script((request) => {
    const { said, round } = position(request);
    const key = Object.keys(table).find((k) => said.includes(k));
    if (!key) throw new Error(`unscripted: ${said}`);
    return table[key]![round] ?? { text: 'done' };
  });
}

async function run(file: string, options: Partial<SuiteRunOptions> & { provider?: 'openai' | 'anthropic' | 'openai-responses' } = {}): Promise<{ results: RunResult[]; suite: ReturnType<typeof loadSuite> }> {
  const suite = loadSuite(file);
  // Keys and base URLs from the environment the manager is given, as `toolman test` finds them.
  const env = { OPENAI_API_KEY: 'sk-test-runner-key-0001', ANTHROPIC_API_KEY: 'sk-ant-test-runner-key-0001', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_BASE_URL: server.url };
  const manager = await ToolManager.open({ catalogs: suite.catalog, requireValid: 'all', env });
  const provider = options.provider ?? 'openai';
  try {
    const results = await runSuite({
      manager,
      suite,
      targets: [{ provider, model: 'test-model', label: `${provider}:test-model` }],
      concurrency: 4,
      prices: { ...DEFAULT_PRICES, 'test-model': { input: 1, output: 2 } },
      ...options,
    });
    return { results, suite };
  } finally {
    await manager.close();
  }
}

describe.each(['openai', 'anthropic', 'openai-responses'] as const)('the runner over the real %s SDK', (provider) => {
  it('passes a case whose expectations hold, with usage, cost and latency', async () => {
    scriptBy({ 'weather in Oslo': [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 300, output: 20 } }, { text: 'It is 3 °C and cloudy in Oslo.', usage: { input: 350, output: 12 } }] });
    const file = writeSuite(`cases:
  - name: weather
    prompt: What is the weather in Oslo?
    expect:
      calls: [{ tool: get_weather, args: { city: Oslo } }]
      answer: { contains: cloudy }
      rounds: 2
`);
    const { results } = await run(file, { provider });
    expect(results).toHaveLength(1);
    const [r] = results;
    expect(r!.failures).toEqual([]);
    expect(r!.passed).toBe(true);
    expect(r!.usage).toMatchObject({ input: 650, output: 32, reported: true });
    expect(r!.cost_usd).toBeCloseTo((650 * 1 + 32 * 2) / 1e6, 12);
    expect(r!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(r!.calls.map((c) => [c.name, c.arguments, c.ok])).toEqual([['get_weather', { city: 'Oslo' }, true]]);
  });
});

describe('failing expectations give the right reasons', () => {
  it('wrong tool, wrong argument, forbidden tool, answer', async () => {
    scriptBy({
      'forecast for Rome': [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'Sunny, 20 °C.' }],
      'book Oslo to Rome': [{ toolCalls: [{ name: 'book_flight', arguments: { from: 'OSL', to: 'FCO', date: '2026-12-01', passengers: ['Ana'] } }] }, { text: 'Booked.' }],
    });
    const file = writeSuite(`cases:
  - name: confused forecast
    prompt: What is the forecast for Rome this week?
    expect:
      calls: [{ tool: get_forecast }]
      not_called: [get_weather]
      answer: { contains: forecast }
  - name: booking args
    prompt: Please book Oslo to Rome on 1 December 2026 for Ana and Dana
    expect:
      calls: [{ tool: book_flight, args: { to: { one_of: [FCO, CIA] }, passengers: { includes: dana } } }]
`);
    const { results, suite } = await run(file);
    const byCase = Object.fromEntries(results.map((r) => [r.case, r.failures.map((f) => `${f.expectation}: ${f.message}`)]));
    expect(byCase['confused forecast']).toEqual([
      'calls[0] get_forecast: get_forecast was not called; called instead: get_weather',
      'not_called get_weather: called get_weather',
      'answer.contains: expected the answer to contain "forecast"; it was "Sunny, 20 °C."',
    ]);
    expect(byCase['booking args']).toEqual(['calls[0] book_flight: book_flight was called, but passengers: expected a list including an item containing "dana", got ["Ana"]']);
    // The confusion matrix: expected get_forecast, called get_weather instead.
    const report = summarizeRuns(suite, results);
    expect(report.providers[0]!.confusion).toEqual({ get_forecast: { get_weather: 1 } });
    expect(report.providers[0]!.precision).toBeCloseTo(1 / 2);
    expect(report.providers[0]!.recall).toBeCloseTo(1 / 2);
    expect(report.ok).toBe(false);
  });

  it('an irrelevant prompt: a malformed call fails, never counts as abstaining', async () => {
    scriptBy({ 'tell me a joke': [{ toolCalls: [{ name: 'get_weather', arguments: '{"city": ' }] }, { text: 'Why did the...' }] });
    const file = writeSuite(`cases:
  - name: joke
    prompt: tell me a joke
    expect: { no_tool: true }
`);
    const { results } = await run(file);
    expect(results[0]!.failures.map((f) => f.message).join()).toContain('malformed call');
  });

  it('stubs answer by arguments; in mock mode a tool without a mock never runs', async () => {
    scriptBy({
      'Bergen weather and report': [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Bergen' } }, { name: 'run_report', arguments: {} }] }, { text: 'Rainy in Bergen.' }],
    });
    const file = writeSuite(`cases:
  - name: stubbed
    prompt: Bergen weather and report
    stubs:
      - { tool: get_weather, when: { city: Oslo }, result: { temp_c: -5 } }
      - { tool: get_weather, when: { city: { contains: berg } }, result: { city: Bergen, summary: rain } }
    expect:
      calls: [{ tool: get_weather }, { tool: run_report }]
      order: any_order
`);
    const { results } = await run(file);
    const [weather, report] = results[0]!.calls;
    expect(weather!.ok).toBe(true);
    const second = server.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(second.find((m) => m.role === 'tool')!.content).toContain('"summary":"rain"');
    expect(report!.ok).toBe(false);
    expect(report!.error).toBe('toolman test: run_report has an exec handler and no mock; give the case a stub for it, or add tools: live to the suite and pass --live-tools');
  });

  it('approvals: asked and answered by the case', async () => {
    scriptBy({ 'cancel BK1': [{ toolCalls: [{ name: 'cancel_booking', arguments: { booking: 'BK1' } }] }, { text: 'Cancelled.' }] });
    const file = writeSuite(`cases:
  - name: approved
    prompt: cancel BK1 please
    expect: { approvals: [cancel_booking], calls: [{ tool: cancel_booking }] }
  - name: declined
    prompt: cancel BK1 now
    approve: false
    expect: { approvals: [] }
`);
    const { results } = await run(file);
    const approved = results.find((r) => r.case === 'approved')!;
    const declined = results.find((r) => r.case === 'declined')!;
    expect(approved.passed).toBe(true);
    expect(approved.calls[0]!.approval).toBe('approved');
    expect(declined.calls[0]!.approval).toBe('declined');
    expect(declined.failures[0]!.message).toContain('expected confirmation to be asked for no tool; it was asked for cancel_booking');
  });

  it('multi-turn: per-turn expectations and the whole conversation', async () => {
    scriptBy({
      'Weather in Oslo?': [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cloudy.' }],
      'And the forecast?': [{ toolCalls: [{ name: 'get_forecast', arguments: { city: 'Oslo', days: 3 } }] }, { text: 'Cold days ahead.' }],
    });
    const file = writeSuite(`cases:
  - name: two turns
    turns:
      - prompt: Weather in Oslo?
        expect: { calls: [{ tool: get_weather }], answer: { contains: cloudy } }
      - prompt: And the forecast?
        expect: { calls: [{ tool: get_weather }] }
    expect:
      calls: [{ tool: get_weather }, { tool: get_forecast, args: { days: { schema: { type: integer, maximum: 5 } } } }]
      order: exact
      rounds: 4
`);
    const { results } = await run(file);
    expect(results[0]!.failures).toEqual([{ expectation: 'turn 2: calls[0] get_weather', message: 'get_weather was not called; called instead: get_forecast' }]);
    expect(results[0]!.rounds).toBe(4);
  });
});

describe('repeats, flakiness and pass^k', () => {
  it('a model right half the time: pass rate 0.5, pass^k 0, min_pass_rate decides', async () => {
    let n = 0;
    server.script((request) => {
      const { round } = position(request);
      if (round === 0) return { toolCalls: [{ name: n++ % 2 === 0 ? 'get_weather' : 'get_forecast', arguments: { city: 'Oslo' } }] };
      return { text: 'ok' };
    });
    const file = writeSuite(`repeat: 4
cases:
  - name: flaky
    prompt: weather in Oslo
    min_pass_rate: 0.5
    expect: { calls: [{ tool: get_weather }] }
  - name: strict
    prompt: weather in Oslo now
    expect: { calls: [{ tool: get_weather }] }
`);
    // One at a time, so the alternation is exact.
    const { results, suite } = await run(file, { concurrency: 1 });
    const report = summarizeRuns(suite, results);
    const flaky = report.cases.find((c) => c.case === 'flaky')!;
    const strict = report.cases.find((c) => c.case === 'strict')!;
    expect([flaky.passes, flaky.runs, flaky.ok, flaky.pass_hat_k]).toEqual([2, 4, true, 0]);
    expect([strict.passes, strict.ok]).toEqual([2, false]);
    expect(strict.failures).toEqual([{ expectation: 'calls[0] get_weather', message: 'get_weather was not called; called instead: get_forecast', runs: 2 }]);
    expect(report.providers[0]!.pass_rate).toBe(0.5);
    expect(report.providers[0]!.pass_rate_interval.method).toBe('wilson');
    expect(report.providers[0]!.confusion).toEqual({ get_weather: { get_forecast: 4 } });
  });

  it('backs off on 429 and still finishes every run', async () => {
    let first = true;
    server.script((request) => {
      if (first) {
        first = false;
        return { status: 429, retryAfter: 0.05 };
      }
      return position(request).round === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { text: 'ok' };
    });
    const file = writeSuite(`repeat: 6
cases:
  - name: limited
    prompt: weather in Oslo
    expect: { calls: [{ tool: get_weather }] }
`);
    const { results } = await run(file);
    expect(results.every((r) => r.passed)).toBe(true);
  });
});

describe('record, then replay offline', () => {
  it('gives the same outcome, and reports a catalog change that alters a request', async () => {
    scriptBy({
      'weather in Oslo': [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 300, output: 20 } }, { text: 'Cloudy.', usage: { input: 340, output: 5 } }],
      'book a flight': [{ toolCalls: [{ name: 'book_flight', arguments: { from: 'OSL', to: 'FCO' } }] }, { text: 'Need a date.' }],
    });
    const file = writeSuite(`repeat: 2
cases:
  - name: weather
    prompt: weather in Oslo
    expect: { calls: [{ tool: get_weather }], answer: { contains: cloudy } }
  - name: booking
    prompt: book a flight from Oslo to Rome
    expect: { calls: [{ tool: book_flight, args: { date: { exists: true } } }] }
`);
    const recordings = join(dir, 'recordings');
    const live = await run(file, { record: recordings });
    const files = readdirSync(join(recordings, loadSuite(file).name)).sort();
    expect(files).toEqual(['booking--openai-test-model--1.jsonl', 'booking--openai-test-model--2.jsonl', 'weather--openai-test-model--1.jsonl', 'weather--openai-test-model--2.jsonl']);
    const requestsBefore = server.requests.length;
    const replayed = await run(file, { replay: recordings });
    expect(server.requests.length).toBe(requestsBefore);
    const strip = (rs: RunResult[]) => rs.map(({ latency_ms: _l, recording: _r, notices: _n, ...rest }) => rest);
    expect(strip(replayed.results)).toEqual(strip(live.results));
    expect(live.results.find((r) => r.case === 'booking')!.passed).toBe(false);

    // A changed description alters the request: the replay stops and says what differs.
    const changed = join(dir, 'travel-changed.yaml');
    writeFileSync(changed, readFileSync(catalog, 'utf8').replace('Current weather for a city', 'The weather right now in a city'));
    const moved = file.replace('.yaml', '-changed.yaml');
    writeFileSync(moved, readFileSync(file, 'utf8').replace(JSON.stringify(catalog), JSON.stringify(changed)).replace(/^/, `name: ${loadSuite(file).name}\n`));
    const after = await run(moved, { replay: recordings });
    expect(after.results.every((r) => !r.passed && r.error !== null)).toBe(true);
    expect(after.results[0]!.error).toMatch(/matches no recorded one[\s\S]*description/);
  });

  it('a missing recording is a failed run that says how to make one', async () => {
    const file = writeSuite(`cases:
  - name: never recorded
    prompt: hi
`);
    const { results } = await run(file, { replay: join(dir, 'nowhere') });
    expect(results[0]!.error).toContain('no usable recording');
    expect(results[0]!.error).toContain('--record');
  });
});
