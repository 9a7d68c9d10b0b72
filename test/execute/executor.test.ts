import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { estimateTokens, truncateResult } from '../../src/execute/truncate.js';
import type { ApprovalDecision, ApprovalRequest, Approver, CallEvent, ToolCall } from '../../src/execute/types.js';
import { ToolSession, type SessionOptions } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/executor.yaml'], { cwd: ROOT });

/** A call's life as one word: its status, or progress / approval. */
const kindOf = (event: CallEvent) => (event.type === 'tool_status' ? event.status : event.type === 'tool_progress' ? 'progress' : 'approval');

interface Harness {
  session?: SessionOptions;
  env?: Record<string, string | undefined>;
  approve?: Approver | undefined;
  onEvent?: (event: CallEvent) => void;
  signal?: AbortSignal;
}

function executor(overrides: Harness = {}) {
  const events: (CallEvent & { kind: string; at: number })[] = [];
  const approvals: ApprovalRequest[] = [];
  const approve: Approver | undefined =
    'approve' in overrides
      ? overrides.approve
      : async (request): Promise<ApprovalDecision> => {
          approvals.push(request);
          return 'approve';
        };
  const session = new ToolSession(catalog, overrides.session ?? {}, {
    cwd: ROOT,
    env: overrides.env ?? { PATH: process.env.PATH },
    ...(approve ? { approve } : {}),
    onEvent: overrides.onEvent ?? ((event) => events.push({ ...event, kind: kindOf(event), at: performance.now() })),
  });
  return { run: (calls: ToolCall[]) => session.runTurn(calls, overrides.signal ? { signal: overrides.signal } : {}), events, approvals, session };
}
const call = (name: string, args: unknown = {}, id = name): ToolCall => ({ id, name, arguments: args });

describe('1. de-duplication', () => {
  it('runs identical calls once, key order ignored, and marks the copies', async () => {
    const { run, events } = executor();
    const turn = await run([call('lookup', { key: 'a', limit: 2 }, 'c1'), call('lookup', { limit: 2, key: 'a' }, 'c2'), call('lookup', { key: 'b' }, 'c3')]);
    expect(turn.responses.map((r) => [r.id, r.deduplicated])).toEqual([['c1', false], ['c2', true], ['c3', false]]);
    expect(turn.responses[1]!.content).toBe(turn.responses[0]!.content);
    expect(events.filter((e) => e.kind === 'running').length).toBe(2);
  });

  it('lets a tool opt out (dedupe: false)', async () => {
    const { run } = executor();
    const turn = await run([call('counter', {}, 'a'), call('counter', {}, 'b')]);
    expect(turn.responses.map((r) => JSON.parse(r.content).calls).sort()).toEqual([1, 2]);
  });
});

describe('2. the per-turn cap', () => {
  it('runs 10 of 12 calls and answers the rest with the limit and what to do', async () => {
    const { run } = executor();
    const calls = Array.from({ length: 12 }, (_, i) => call('lookup', { key: `k${i}` }, `c${i}`));
    const turn = await run(calls);
    expect(turn.responses.filter((r) => r.ok)).toHaveLength(10);
    expect(turn.responses.slice(10).map((r) => r.error_kind)).toEqual(['over_limit', 'over_limit']);
    expect(turn.responses[11]!.error).toMatch(/at most 10 tool calls run per turn.*next turn/);
  });
});

describe('3. take-control guard', () => {
  it('refuses the whole batch when a take-control tool has siblings, saying why to each', async () => {
    const { run, events } = executor();
    const turn = await run([call('lookup', { key: 'a' }), call('takeover')]);
    expect(turn.responses.map((r) => r.error_kind)).toEqual(['must_run_alone', 'must_run_alone']);
    expect(turn.responses[0]!.error).toMatch(/takeover takes control and must be called alone/);
    expect(turn.responses[1]!.error).toMatch(/must be the only tool call in its turn/);
    expect(events.some((e) => e.kind === 'running')).toBe(false);
    expect(turn.took_control).toBeNull();
  });

  it('runs it alone and reports that it took control', async () => {
    const turn = await executor().run([call('takeover')]);
    expect(turn.responses[0]!.ok).toBe(true);
    expect(turn.took_control).toBe('takeover');
  });
});

describe('4. unknown and unavailable tools', () => {
  it('names close matches for an unknown tool', async () => {
    const turn = await executor().run([call('lookpu')]);
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'unknown_tool', error: expect.stringMatching(/did you mean "lookup"/) });
  });

  it('names an unknown tool as it was called, its hidden characters escaped (cleaned, it read as the real tool)', async () => {
    const turn = await executor().run([call('lookup\u001b]0;PWNED\u0007\u202e')]);
    const error = turn.responses[0]!.error!;
    expect(error).toContain('there is no tool named "lookup\\u001b]0;PWNED\\u0007\\u202e"');
    expect(error).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it('refuses a deferred tool until tool_search finds it', async () => {
    const { run } = executor();
    expect((await run([call('hidden')])).responses[0]).toMatchObject({ error_kind: 'not_available', error: expect.stringMatching(/find it with tool_search/) });
    const search = await run([call('tool_search', { query: 'secret helper' })]);
    expect(JSON.parse(search.responses[0]!.content).results[0].name).toBe('hidden');
    expect((await run([call('hidden')])).responses[0]!.ok).toBe(true);
  });

  it('lets only the exclusive tool run while one is forced', async () => {
    const forcedCatalog = { ...catalog, tools: catalog.tools.map((t) => (t.name === 'lookup' ? { ...t, exclusive: true } : t)) };
    const session = new ToolSession(forcedCatalog, { force: ['lookup'] }, { cwd: ROOT });
    const turn = await session.runTurn([call('fast_safe')]);
    expect(turn.responses[0]!.error).toMatch(/only lookup may run now/);
  });
});

describe('5. argument validation', () => {
  it('answers precisely enough to fix the call', async () => {
    const turn = await executor().run([call('lookup', { limit: 80, extra: 1 }), call('lookup', '{"key": 5}', 'json-string')]);
    expect(turn.responses[0]!.error).toBe('invalid arguments for lookup: missing required argument "key"; unknown argument "extra"; allowed: key, limit; argument "limit" must be <= 50 (got 80)');
    expect(turn.responses[1]!.error).toBe('invalid arguments for lookup: argument "key" must be string (got 5)');
  });
});

describe('6. confirmation', () => {
  it('asks before destructive and confirm: always tools, and nothing runs before approval', async () => {
    const order: string[] = [];
    const { run, approvals } = executor({
      approve: async (request) => {
        order.push(`ask ${request.tool.name}`);
        return request.tool.name !== 'always_ask' ? 'approve' : 'decline';
      },
      onEvent: (event) => void (kindOf(event) === 'running' && order.push(`run ${event.name}`)),
    });
    void approvals;
    const turn = await run([call('remove_record', { key: 'a' }), call('always_ask')]);
    expect(order).toEqual(['ask remove_record', 'run remove_record', 'ask always_ask']);
    expect(turn.responses[1]).toMatchObject({ ok: false, error_kind: 'declined', error: expect.stringMatching(/the user declined to run always_ask/) });
  });

  it('leaves no listener on the signal it asked under once the question is answered', async () => {
    // Without a driver's signal the executor asks under one signal for its whole life.
    const seen = new Set<AbortSignal>();
    const { run } = executor({ approve: async (_request, signal) => (seen.add(signal), 'approve') });
    for (let i = 0; i < 12; i += 1) await run([call('remove_record', { key: `k${i}` })]);
    expect(seen.size).toBe(1);
    expect(getEventListeners([...seen][0]!, 'abort')).toHaveLength(0);
  });

  it('declines when no driver can ask', async () => {
    const turn = await executor({ approve: undefined }).run([call('remove_record', { key: 'a' })]);
    expect(turn.responses[0]!.error_kind).toBe('declined');
  });
});

describe('7. running', () => {
  it('runs safe tools in parallel and serial tools one at a time (timestamps)', async () => {
    const { run, events } = executor();
    await run([call('fast_safe', { n: 1 }, 's1'), call('fast_safe', { n: 2 }, 's2'), call('slow_serial', { n: 1 }, 'x1'), call('slow_serial', { n: 2 }, 'x2'), call('slow_serial', { n: 3 }, 'x3')]);
    const span = (id: string) => ({ start: events.find((e) => e.id === id && e.kind === 'running')!.at, end: events.find((e) => e.id === id && e.kind === 'done')!.at });
    const [s1, s2] = [span('s1'), span('s2')];
    expect(s1.start < s2.end && s2.start < s1.end).toBe(true); // safe ones overlap
    const serial = ['x1', 'x2', 'x3'].map(span).sort((a, b) => a.start - b.start);
    for (let i = 1; i < serial.length; i++) expect(serial[i]!.start).toBeGreaterThanOrEqual(serial[i - 1]!.end - 1); // never overlap
  });

  it('times out a hanging tool and keeps the turn', async () => {
    const started = performance.now();
    const turn = await executor().run([call('hang'), call('lookup', { key: 'a' })]);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'timeout', error: 'hang did not finish within 100 ms and was stopped' });
    expect(turn.responses[1]!.ok).toBe(true);
  });

  it('turns a throwing tool into an error response', async () => {
    const turn = await executor().run([call('boom'), call('lookup', { key: 'missing' })]);
    expect(turn.responses.map((r) => r.error)).toEqual(['boom failed: backend exploded', 'lookup failed: no record missing']);
  });

  it('cancels running calls when the driver aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const turn = await executor({ signal: controller.signal }).run([call('slow_exec')]);
    expect(turn.responses[0]!.error_kind).toBe('cancelled');
  });

  it('cancels a running call when any of the driver\'s signals aborts, and leaves no listener on them', async () => {
    // serve passes the request's cancellation and its own shutdown apart, not joined per call.
    const request = new AbortController();
    const shutdown = new AbortController();
    const { session } = executor();
    setTimeout(() => shutdown.abort(), 50);
    const turn = await session.runTurn([call('slow_serial', { n: 1 })], { signal: [request.signal, shutdown.signal] });
    expect(turn.responses[0]!.error_kind).toBe('cancelled');
    const done = await session.runTurn([call('lookup', { key: 'a' })], { signal: [request.signal, new AbortController().signal] });
    expect(done.responses[0]!.ok).toBe(true);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('a call still running is cancelled by a signal aborted in the very turn it started; one that ends within its turn never listens', async () => {
    // The turn links to the driver's signals, and a call arms its timeout, once the event loop has turned (shared/after-this-turn.ts).
    const { session } = executor();
    const request = new AbortController();
    const running = session.runTurn([call('hang')], { signal: request.signal });
    request.abort();
    expect((await running).responses[0]!.error_kind).toBe('cancelled');
    const quick = new AbortController();
    let added = 0;
    const add = quick.signal.addEventListener.bind(quick.signal);
    quick.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => (added++, add(...args));
    for (let i = 0; i < 20; i++) expect((await session.runTurn([call('lookup', { key: `k${i}` })], { signal: quick.signal })).responses[0]!.ok).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(added).toBe(0);
    expect(getEventListeners(quick.signal, 'abort')).toHaveLength(0);
  });

  it('refuses a turn whose signal had already aborted, one call or many', async () => {
    const { session } = executor();
    const aborted = AbortSignal.abort();
    const one = await session.runTurn([call('lookup', { key: 'a' })], { signal: [new AbortController().signal, aborted] });
    expect(one.responses[0]!.error_kind).toBe('cancelled');
    const many = await session.runTurn([call('lookup', { key: 'a' }), call('fast_safe', { n: 1 })], { signal: aborted });
    expect(many.responses.map((r) => r.error_kind)).toEqual(['cancelled', 'cancelled']);
  });

  it('answers background tools with a job id, collected with job_status and job_result', async () => {
    const { run } = executor();
    const started = await run([call('export_all')]);
    const job = JSON.parse(started.responses[0]!.content);
    expect(job).toMatchObject({ status: 'running', job_id: expect.stringMatching(/^job_/) });
    await new Promise((r) => setTimeout(r, 80));
    const status = await run([call('job_status', { job_id: job.job_id })]);
    expect(JSON.parse(status.responses[0]!.content)).toMatchObject({ status: 'done', tool: 'export_all' });
    const result = await run([call('job_result', { job_id: job.job_id })]);
    expect(JSON.parse(result.responses[0]!.content)).toEqual({ exported: 42 });
  });
});

describe('8. truncation', () => {
  it('truncates a result to the tool\'s limit as valid JSON, saying so with the original size', async () => {
    const turn = await executor().run([call('big')]);
    const response = turn.responses[0]!;
    expect(response.truncated).toBe(true);
    expect(response.original_tokens).toBeGreaterThan(60);
    expect(estimateTokens(response.content)).toBeLessThanOrEqual(60);
    const parsed = JSON.parse(response.content);
    expect(parsed.rows).toContain('r0');
    expect(parsed.rows.some((r: string) => /more items/.test(r))).toBe(true);
  });

  it('shares the turn\'s results budget (1,000 tokens) among the results', async () => {
    const calls = Array.from({ length: 8 }, (_, i) => call('lookup', { key: `k${i}-${'x'.repeat(1500)}` }, `c${i}`));
    const turn = await executor().run(calls);
    const total = turn.responses.reduce((sum, r) => sum + estimateTokens(r.content), 0);
    expect(total).toBeLessThanOrEqual(1000);
    expect(turn.responses.every((r) => r.truncated && r.ok)).toBe(true);
    for (const r of turn.responses) expect(() => JSON.parse(r.content)).not.toThrow();
  });

  it('smart truncation always yields valid JSON within the limit (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 8, max: 400 }), (value, limit) => {
        const text = JSON.stringify(value);
        const result = truncateResult(text, limit, 'smart');
        expect(() => JSON.parse(result.text)).not.toThrow();
        expect(result.text.length).toBeLessThanOrEqual(Math.max(32, limit * 4));
      }),
      { numRuns: 400 },
    );
  });

  it('head and tail keep the start or the end', () => {
    const text = 'a'.repeat(1000) + 'z'.repeat(1000);
    expect(truncateResult(text, 50, 'head').text.startsWith('aaaa')).toBe(true);
    expect(truncateResult(text, 50, 'tail').text.endsWith('zzzz')).toBe(true);
    expect(truncateResult(text, 50, 'head').text).toMatch(/truncated: 500 tokens/);
  });
});

describe('9. events and debug info', () => {
  it('emits queued, running and done with durations; responses carry debug info', async () => {
    const { run, events } = executor();
    const turn = await run([call('counter')]);
    expect(events.map((e) => e.kind)).toEqual(['queued', 'validating', 'running', 'progress', 'done']);
    expect(turn.responses[0]).toMatchObject({ deduplicated: false, truncated: false, duration_ms: expect.any(Number) });
    expect(turn.responses[0]).not.toHaveProperty('attempts');
  });
});

describe('handlers', () => {
  it('mock: matchers and templates', async () => {
    const turn = await executor().run([call('lookup', { key: 'user-7' }), call('lookup', { key: 'x', limit: 3 })]);
    expect(JSON.parse(turn.responses[0]!.content)).toEqual({ kind: 'user', key: 'user-7' });
    expect(JSON.parse(turn.responses[1]!.content)).toEqual({ key: 'x', limit: 3 });
  });

  it('exec: an argument with shell metacharacters arrives unchanged, as one argument', async () => {
    const nasty = '; rm -rf ~ && echo $(whoami) | cat > /tmp/x `id` "quoted"';
    const turn = await executor().run([call('echo_args', { text: nasty })]);
    expect(JSON.parse(JSON.parse(turn.responses[0]!.content).stdout)).toEqual([nasty]);
  });

  it('exec: output is capped, and a non-zero exit is an error with the code and stderr', async () => {
    const turn = await executor().run([call('noisy', { fail: false }, 'ok'), call('noisy', { fail: true }, 'bad')]);
    const ok = JSON.parse(turn.responses[0]!.content);
    expect(ok.stdout.length).toBe(1000);
    expect(ok.output_cut_at_bytes).toBe(1000);
    expect(turn.responses[1]!.error).toBe('noisy failed: node exited with 3: disk full');
  });

  it('exec: a program past its timeout is killed', async () => {
    const started = performance.now();
    const turn = await executor().run([call('slow_exec')]);
    expect(turn.responses[0]!.error_kind).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('module: JavaScript and TypeScript handlers with context', async () => {
    const turn = await executor().run([call('greet', { who: 'Ana' })]);
    expect(JSON.parse(turn.responses[0]!.content)).toEqual({ greeting: 'Hello, Ana!' });
  });
});

describe('http handler and secrets', () => {
  let server: ReturnType<typeof createServer>;
  let url = '';
  const seen: { url?: string; auth?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      if (req.url === '/items/bad') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`server error; your header was ${req.headers.authorization}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: req.url?.split('/').pop(), echoed_auth: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fills URL and header templates, and never shows the secret in any output', async () => {
    const secret = 'sk-test-0123456789abcdef';
    const { run, events } = executor({ env: { TEST_API: url, TEST_TOKEN: secret } });
    const turn = await run([call('call_api', { id: 'a b' }), call('call_api', { id: 'bad' })]);
    expect(seen[0]).toEqual({ url: '/items/a%20b', auth: `Bearer ${secret}` });
    expect(turn.responses[0]!.ok).toBe(true);
    expect(turn.responses[1]).toMatchObject({ ok: false, error: expect.stringMatching(/HTTP 500 Internal Server Error: server error/) });
    const everything = JSON.stringify(turn) + JSON.stringify(events);
    expect(everything).not.toContain(secret);
    expect(everything).toContain('[redacted]');
  });

  it('never expands ${env:...} that arrives in an argument', async () => {
    const { run } = executor({ env: { TEST_API: url, TEST_TOKEN: 'sk-test-0123456789abcdef', HOME_SECRET: 'do-not-leak-me' } });
    await run([call('call_api', { id: '${env:HOME_SECRET}' })]);
    expect(seen[seen.length - 1]!.url).toBe('/items/%24%7Benv%3AHOME_SECRET%7D');
  });

  it('fails clearly when a secret is not set', async () => {
    const turn = await executor({ env: { TEST_API: url } }).run([call('call_api', { id: 'x' })]);
    expect(turn.responses[0]!.error).toMatch(/environment variable TEST_TOKEN is not set/);
  });
});

describe('invoke_tool (discover mode)', () => {
  it('runs the invoked call through validation, confirmation and truncation', async () => {
    const approvals: string[] = [];
    const events: CallEvent[] = [];
    const session = new ToolSession(catalog, { searchMode: 'discover' }, { cwd: ROOT, approve: async (r) => (approvals.push(r.tool.name), 'decline'), onEvent: (e) => events.push(e) });
    const turn = await session.runTurn([
      call('invoke_tool', { name: 'hidden', arguments: {} }, 'i1'),
      call('invoke_tool', { name: 'lookup', arguments: { limit: 3 } }, 'i2'),
      call('invoke_tool', { name: 'remove_record', arguments: { key: 'a' } }, 'i3'),
    ]);
    expect(turn.responses[0]).toMatchObject({ ok: true, content: 'found' });
    expect(turn.responses[1]!.error).toMatch(/missing required argument "key"/);
    expect(turn.responses[2]!.error_kind).toBe('declined');
    expect(approvals).toEqual(['remove_record']);
    expect(events.filter((e) => e.id === 'i1' && ['done', 'error'].includes(kindOf(e)))).toHaveLength(1);
  });
});
