import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobUpdate } from '../../src/execute/stateful-job.js';
import { STATEFUL_LIMITS } from '../../src/execute/stateful-job.js';
import type { CallEvent, ToolCall, ToolResponse } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

// mode: stateful: a module's async generator (or a mock's yields) runs as a job of the session.
// The call answers with the first yield and a job id; job_next reads what came since; job_stop
// stops it (its finally blocks run); its time limit, the per-yield limit, the cap on unread
// yields and the session's end bound it.

const CATALOG = 'test/fixtures/catalogs/stateful.yaml';
const call = (name: string, args: unknown = {}, id = name): ToolCall => ({ id, name, arguments: args });

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function open(options: { env?: Record<string, string>; onEvent?: (event: CallEvent) => void } = {}) {
  const manager = await ToolManager.open({ catalogs: [CATALOG], cwd: ROOT, ...(options.env ? { env: options.env } : {}) });
  managers.push(manager);
  return { manager, session: await manager.session(options.onEvent ? { onEvent: options.onEvent } : {}) };
}

async function runOne(session: ToolSession, name: string, args: unknown = {}, signal?: AbortSignal): Promise<ToolResponse> {
  return (await session.runTurn([call(name, args)], signal ? { signal } : {})).responses[0]!;
}

async function json(session: ToolSession, name: string, args: unknown = {}): Promise<Record<string, unknown>> {
  const response = await runOne(session, name, args);
  expect(response.ok, response.error ?? '').toBe(true);
  return JSON.parse(response.content) as Record<string, unknown>;
}

const seen = (session: ToolSession) => json(session, 'seen');

/** job_next until the job has ended and everything was read: each read gives what came since the last. */
async function readAll(session: ToolSession, jobId: string): Promise<{ yields: { n: number; value: unknown }[]; last: Record<string, unknown> }> {
  const yields: { n: number; value: unknown }[] = [];
  for (;;) {
    const report = await json(session, 'job_next', { job_id: jobId, wait_ms: 2000 });
    yields.push(...(report.yields as { n: number; value: unknown }[]));
    if (report.status !== 'running' && !report.more) return { yields, last: report };
  }
}

describe('a stateful module tool', () => {
  it('answers with its first yield and a job id; job_next reads the rest in order, then the result', async () => {
    const { session } = await open();
    const first = await runOne(session, 'run_tests', { count: 3 });
    expect(first.ok).toBe(true);
    const started = JSON.parse(first.content);
    expect(started).toMatchObject({ job_id: expect.stringMatching(/^job_/), tool: 'run_tests', yields: [{ n: 1, value: { test: 1, passed: true } }] });
    expect(first.job_id).toBe(started.job_id);
    const { yields, last } = await readAll(session, started.job_id);
    expect(yields).toEqual([{ n: 2, value: { test: 2, passed: true } }, { n: 3, value: { test: 3, passed: true } }]);
    expect(last).toMatchObject({ status: 'done', result: { passed: 3, failed: 0 } });
    // Read to the end: nothing more, and the generator's finally ran.
    expect(await json(session, 'job_next', { job_id: started.job_id, wait_ms: 0 })).toMatchObject({ status: 'done', yields: [] });
    expect(await seen(session)).toMatchObject({ steps: 3, cleanups: 1 });
  });

  it('job_next waits for the next yield, and says when nothing came within wait_ms', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 2, pause_ms: 150 })).content);
    const nothing = await json(session, 'job_next', { job_id, wait_ms: 10 });
    expect(nothing).toMatchObject({ status: 'running', yields: [], note: expect.stringMatching(/nothing new yet/) });
    const waited = await json(session, 'job_next', { job_id, wait_ms: 2000 });
    expect(waited).toMatchObject({ yields: [{ n: 2 }] });
  });

  it('job_next with until: end waits for the end and answers with everything at once', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 3, pause_ms: 100 })).content);
    const all = await json(session, 'job_next', { job_id, until: 'end', wait_ms: 5000 });
    expect(all).toMatchObject({ status: 'done', yields: [{ n: 2 }, { n: 3 }], result: { passed: 3 } });
    // Within wait_ms only: a short wait answers with what there is, the job still running.
    const { job_id: second } = JSON.parse((await runOne(session, 'run_tests', { count: 3, pause_ms: 300 })).content);
    expect(await json(session, 'job_next', { job_id: second, until: 'end', wait_ms: 50 })).toMatchObject({ status: 'running', yields: [] });
  });

  it('hands values sent with job_next to the generator, as what its yield evaluates to', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 3, pause_ms: 50 })).content);
    await json(session, 'job_next', { job_id, send: 'skip the slow ones', wait_ms: 2000 });
    await json(session, 'job_next', { job_id, send: 'second', wait_ms: 2000 });
    await readAll(session, job_id);
    expect((await seen(session)).received).toEqual(['skip the slow ones', 'second']);
  });

  it('job_stop stops it: the generator returns, its finally runs, and unread yields are given', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'endless')).content);
    // Let it run ahead: until it yielded past the first (a fixed wait raced on a loaded machine).
    for (let steps = 0; steps < 2; ) {
      steps += (await seen(session)).steps as number;
      if (steps < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const stopped = await json(session, 'job_stop', { job_id });
    expect(stopped.status).toBe('stopped');
    expect((stopped.yields as unknown[]).length).toBeGreaterThan(0);
    const after = await seen(session);
    expect(after.cleanups).toBe(1);
    // Stopped means stopped: no step after.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await seen(session)).steps).toBe(0);
    expect(await json(session, 'job_next', { job_id, wait_ms: 0 })).toMatchObject({ status: 'stopped', yields: [] });
  });

  it('runs ahead of the reader by at most STATEFUL_LIMITS.maxUnread yields, then waits', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'endless')).content);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The first yield, the unread ones, and the one the generator was asked for when the cap filled.
    expect((await seen(session)).steps).toBeLessThanOrEqual(STATEFUL_LIMITS.maxUnread + 2);
    const read = await json(session, 'job_next', { job_id });
    expect((read.yields as unknown[]).length).toBe(STATEFUL_LIMITS.maxUnread);
    expect(read.status).toBe('running');
    await json(session, 'job_stop', { job_id });
  });

  it('is stopped by its time limit (timeout_ms, for the whole job)', async () => {
    const { session } = await open();
    // The module's worker started first: on a loaded machine its start alone could take the job's whole time.
    await seen(session);
    const { job_id } = JSON.parse((await runOne(session, 'run_tests_briefly', { count: 50, pause_ms: 40 })).content);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    let report = await json(session, 'job_next', { job_id, wait_ms: 0 });
    while (report.more) report = await json(session, 'job_next', { job_id, wait_ms: 0 });
    expect(report).toMatchObject({ status: 'failed', error_kind: 'timeout', error: 'run_tests_briefly did not finish within 1000 ms and was stopped' });
    expect((await seen(session)).cleanups).toBe(1);
  });

  it('fails the job when the generator throws, after the yields before it', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 4, fail_at: 3 })).content);
    const { yields, last } = await readAll(session, job_id);
    expect(yields.map((y) => y.n)).toEqual([2]);
    expect(last).toMatchObject({ status: 'failed', error: 'run_tests failed: test 3 crashed the runner', error_kind: 'tool_error' });
  });

  it('cuts a yield over the tool\'s result limit, with its truncation', async () => {
    const { session } = await open();
    const response = await runOne(session, 'big_yield', { size: 5000 });
    // The answer as a whole keeps to the limit too: the yield was cut to leave room for the rest.
    expect(response.truncated).toBe(false);
    const first = JSON.parse(response.content);
    expect(first.yields[0]).toMatchObject({ n: 1, truncated: true, original_tokens: 1250 });
    expect(first.yields[0].value.length).toBeLessThanOrEqual(100);
    expect(first.yields[0].value).toMatch(/truncated: 1250 tokens, showing the start/);
  });

  it('redacts the catalog\'s secrets in what it yields and returns', async () => {
    const { session } = await open({ env: { SHOP_TOKEN: 'tok-very-secret-123' } });
    process.env.SHOP_TOKEN = 'tok-very-secret-123';
    try {
      const first = await runOne(session, 'leaky');
      const rest = await readAll(session, first.job_id!);
      expect(first.content + JSON.stringify(rest)).not.toContain('tok-very-secret-123');
      expect(first.content).toContain('[redacted]');
      expect(rest.last.result).toEqual({ again: '[redacted]' });
    } finally {
      delete process.env.SHOP_TOKEN;
    }
  });

  it('fails the job on a yield JSON cannot hold', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'not_json')).content);
    const report = (await readAll(session, job_id)).last;
    expect(report).toMatchObject({ status: 'failed', error: expect.stringMatching(/yielded a value that is not JSON/) });
  });

  it('a function that returns at once answers with its result', async () => {
    const { session } = await open();
    expect(await json(session, 'plain')).toMatchObject({ status: 'done', yields: [], result: { answer: 42 } });
  });

  it('a generator behind a tool that is not stateful is that call\'s error, saying what to do', async () => {
    const { session } = await open();
    expect(await runOne(session, 'misplaced')).toMatchObject({ ok: false, error: 'misplaced failed: misplaced returned an async generator, which only a tool with mode: stateful can read; give the tool mode: stateful' });
  });

  it('a worker that exits mid-job fails the job, and the module runs again afterwards', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'exits_midway')).content);
    const report = (await readAll(session, job_id)).last;
    expect(report).toMatchObject({ status: 'failed', error: 'exits_midway failed: module ./handlers/stateful.mjs exited with code 7' });
    expect((await runOne(session, 'seen')).ok).toBe(true);
  });

  it('stops its jobs when the session closes (their finally blocks run)', async () => {
    const { manager, session } = await open();
    await runOne(session, 'endless');
    session.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = await manager.session();
    expect((await json(other, 'seen')).cleanups).toBe(1);
  });

  it('a turn cancelled before the first yield stops the job', async () => {
    const { session } = await open();
    await seen(session); // the module is loaded: the generator's body starts at once
    const controller = new AbortController();
    const pending = runOne(session, 'run_tests', { count: 1, pause_ms: 2000 }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toMatchObject({ ok: false, error_kind: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await seen(session)).toMatchObject({ steps: 0, cleanups: 1 });
  });

  it('tells displays each yield and the end (redacted, short)', async () => {
    const updates: JobUpdate[] = [];
    const { session } = await open();
    session.onJobUpdate((update) => updates.push(update));
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 2 })).content);
    await readAll(session, job_id);
    expect(updates.map((u) => [u.status, u.yields])).toContainEqual(['running', 1]);
    expect(updates.at(-1)).toMatchObject({ job_id, tool: 'run_tests', status: 'done', yields: 2, unread: 0 });
    expect(updates.some((u) => u.latest === '{"passed":2,"failed":0}')).toBe(true);
  });
});

describe('the job meta-tools', () => {
  it('are offered when a stateful tool is selected, and job_next is never de-duplicated', async () => {
    const { session } = await open();
    const names = session.offered(1).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['job_next', 'job_stop']));
    expect(names).not.toContain('job_status');
    expect(session.resolve('job_next')?.dedupe).toBe(false);
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 3 })).content);
    // Two reads in one turn both run: the second finds nothing new.
    const turn = await session.runTurn([call('job_next', { job_id }, 'a'), call('job_next', { job_id, wait_ms: 0 }, 'b')]);
    expect(turn.responses.map((r) => r.deduplicated)).toEqual([false, false]);
  });

  it('are counted by budget in the eager payload too: a session offers them either way', async () => {
    const { manager } = await open();
    const report = await manager.budget({ provider: 'openai' });
    // Nothing is deferred in this catalog: both payloads are the same tools, job_next and job_stop among them.
    expect(report.totals.eager).toBe(report.totals.deferred);
    expect(report.totals.saving_pct).toBe(0);
  });

  it('are not offered without stateful tools', async () => {
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/executor.yaml'], cwd: ROOT });
    managers.push(manager);
    const session = await manager.session();
    expect(session.offered(1).tools.map((t) => t.name)).not.toContain('job_next');
  });

  it('reach only the jobs of their own session (one per serve connection)', async () => {
    const { manager, session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'endless')).content);
    const other = await manager.session();
    expect(await runOne(other, 'job_stop', { job_id })).toMatchObject({ ok: false, error: `no running or finished job with id "${job_id}"` });
    expect(JSON.parse((await runOne(session, 'job_stop', { job_id })).content).status).toBe('stopped');
  });

  it('say what is wrong with an unknown or a background job id', async () => {
    const { session } = await open();
    expect(await runOne(session, 'job_next', { job_id: 'job_nope' })).toMatchObject({ ok: false, error: 'no running or finished job with id "job_nope"' });
  });

  it('refuse to send a value to a job that has ended', async () => {
    const { session } = await open();
    const { job_id } = JSON.parse((await runOne(session, 'run_tests', { count: 1 })).content);
    await readAll(session, job_id);
    expect(await runOne(session, 'job_next', { job_id, send: 'more' })).toMatchObject({ ok: false, error: `${job_id} has ended (done); nothing was sent` });
  });
});

describe('a stateful mock', () => {
  it('yields its cases\' yields (templates filled), then the result', async () => {
    const { session } = await open();
    const first = JSON.parse((await runOne(session, 'scripted', { name: 'Ana' })).content);
    expect(first.yields).toEqual([{ n: 1, value: { step: 1, name: 'Ana' } }]);
    const { yields, last } = await readAll(session, first.job_id);
    expect(yields.map((y) => y.n)).toEqual([2, 3]);
    expect(last).toMatchObject({ status: 'done', result: { ok: true } });
  });

  it('fails with its error after its yields', async () => {
    const { session } = await open();
    const first = JSON.parse((await runOne(session, 'scripted', { name: 'broken' })).content);
    expect((await readAll(session, first.job_id)).last).toMatchObject({ status: 'failed', yields: [], error: 'step 2 broke for broken' });
  });

  it('its answers are job reports: no references, result checks or output schema read them (TM0736)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-stateful-rules-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(
        file,
        [
          'toolman: 1',
          'evaluations:',
          '  https_only: { not_regex: "http://", on: result }',
          'tools:',
          '  - name: find_pages',
          '    description: Finds pages, one per yield.',
          '    effect: read',
          '    mode: stateful',
          '    output_schema: { type: object, required: [pages] }',
          '    references: { items: "$.yields[*].value", url: "$.url" }',
          '    evaluation: [https_only]',
          '    handler:',
          '      mock: [{ yields: [{ url: "http://example.com/a" }], result: { found: 1 } }]',
          '',
        ].join('\n'),
      );
      const manager = await ToolManager.open({ catalogs: [file], cwd: dir });
      managers.push(manager);
      const session = await manager.session();
      const first = await runOne(session, 'find_pages');
      expect(first.ok, first.error ?? '').toBe(true);
      expect(JSON.parse(first.content)).toMatchObject({ yields: [{ n: 1, value: { url: 'http://example.com/a' } }] });
      expect(first.references).toBeUndefined();
      expect(first.evaluations).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a handler that cannot yield says so', async () => {
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/stateful-exec.yaml'], cwd: ROOT });
    managers.push(manager);
    const session = await manager.session();
    expect(await runOne(session, 'shell_stateful')).toMatchObject({ ok: false, error: 'shell_stateful is mode: stateful, and its exec handler cannot run as a generator (only module, plugin and mock handlers can)' });
  });
});
