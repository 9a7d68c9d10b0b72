import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestAuthorizer } from '../../src/serve/http-host.js';
import type { TaskLimits } from '../../src/serve/served-tasks.js';
import { modernRequest, type RawAnswer } from './modern-client.js';
import { waitUntil } from './serve-client.js';
import { serveInProcess, type InProcessServer } from './serve-in-process.js';

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks `specification/draft/tasks.md`)
 * on `toolman serve --port` in the 2026-07-28 era, in this process, with raw requests: a
 * background tool's call becomes a task only for a client that declares the extension on that
 * request; tasks/get, tasks/update and tasks/cancel map onto the principal's job; another
 * principal cannot reach it; tasks expire.
 */
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

const servers: InProcessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

let dir: string;
let catalog: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-serve-tasks-'));
  catalog = join(dir, 'tasks.yaml');
  writeFileSync(
    catalog,
    `toolman: 1
name: tasks
defaults: { effect: read }
tools:
  - name: build_report
    description: Builds a report in the background.
    mode: background
    parameters: { type: object, properties: { topic: { type: string } }, additionalProperties: false }
    handler: { mock: [{ latency_ms: 150, result: { report: ready, key: "\${env:REPORT_KEY}" } }] }
  - name: failing_export
    description: An export that fails in the background.
    mode: background
    handler: { mock: [{ latency_ms: 20, error: the export server said no }] }
  - name: endless_job
    description: A background job that takes a minute.
    mode: background
    handler: { mock: [{ latency_ms: 60000, result: late }] }
  - name: lookup
    description: Looks a key up at once.
    handler: { mock: [{ result: { value: 1 } }] }
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two principals by bearer token (`alice`, `bob`), as a verified token's subject would be. */
const twoPrincipals: RequestAuthorizer = {
  document: () => undefined,
  authorize: async (authorization) => {
    const name = authorization?.replace(/^Bearer /, '');
    if (name === 'alice' || name === 'bob') return { ok: true, auth: { token: name, clientId: name, scopes: [], extra: { principal: name, authenticated: true } } };
    return { ok: false, refusal: { status: 401, message: 'no' } };
  },
};

async function serve(options: { taskLimits?: TaskLimits; authorizer?: RequestAuthorizer } = {}) {
  const served = await serveInProcess({ catalog, verbose: true, env: { REPORT_KEY: 'sk-secret-report-key-123' }, ...options });
  servers.push(served);
  return served;
}

function call(url: string, name: string, options: { tasks?: boolean; token?: string; args?: Record<string, unknown> } = {}): Promise<RawAnswer> {
  return modernRequest(url, 'tools/call', { name, arguments: options.args ?? {} }, { ...(options.tasks ? { capabilities: TASKS } : {}), ...(options.token ? { token: options.token } : {}) });
}

function task(url: string, method: 'tasks/get' | 'tasks/cancel' | 'tasks/update', taskId: string, options: { token?: string; declare?: boolean; extra?: Record<string, unknown> } = {}): Promise<RawAnswer> {
  return modernRequest(url, method, { taskId, ...options.extra }, { headers: { 'mcp-name': taskId }, ...(options.declare === false ? {} : { capabilities: TASKS }), ...(options.token ? { token: options.token } : {}) });
}

async function pollUntilDone(url: string, taskId: string, token?: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const answer = await task(url, 'tasks/get', taskId, token ? { token } : {});
    const result = answer.response?.result;
    if (!result) throw new Error(`tasks/get failed: ${JSON.stringify(answer.response)}`);
    if (result.status !== 'working') return result;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the task did not end');
}

describe('the tasks extension: negotiation', () => {
  it('advertises the extension in server/discover', async () => {
    const served = await serve();
    const discover = await modernRequest(served.url, 'server/discover', {});
    expect((discover.response?.result?.capabilities as Record<string, unknown>).extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
  });

  it('a client that does not declare it gets the result as before: the job id, never a task', async () => {
    const served = await serve();
    const answer = await call(served.url, 'build_report');
    const result = answer.response!.result!;
    expect(result.resultType).not.toBe('task');
    expect(result.taskId).toBeUndefined();
    expect((result._meta as Record<string, unknown>)['toolman/job_id']).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ status: 'running' });
  });

  it('a declaring client gets a task for a background tool, and a plain result for any other tool', async () => {
    const served = await serve();
    const created = (await call(served.url, 'build_report', { tasks: true })).response!.result!;
    // An hour, but no longer than a principal's state lives unasked (--idle-timeout, 30 minutes by default).
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 1_800_000, pollIntervalMs: 1000 });
    expect(created.taskId).toMatch(/^task_[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(created.createdAt as string)).toBeGreaterThan(Date.now() - 10_000);
    expect(created.lastUpdatedAt).toBe(created.createdAt);
    const plain = (await call(served.url, 'lookup', { tasks: true })).response!.result!;
    expect(plain.resultType).not.toBe('task');
    expect(plain.structuredContent).toEqual({ value: 1 });
  });

  it('answers tasks/get, tasks/update and tasks/cancel from a client that does not declare it with -32021', async () => {
    const served = await serve();
    const created = (await call(served.url, 'build_report', { tasks: true })).response!.result!;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
      const answer = await task(served.url, method, created.taskId as string, { declare: false, ...(method === 'tasks/update' ? { extra: { inputResponses: {} } } : {}) });
      expect(answer.response?.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    }
  });
});

describe('the tasks extension: methods', () => {
  it('tasks/get says working, then completed with the result the call would have given, redacted', async () => {
    const served = await serve();
    const created = (await call(served.url, 'build_report', { tasks: true })).response!.result!;
    const first = (await task(served.url, 'tasks/get', created.taskId as string)).response!.result!;
    expect(first).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working', statusMessage: 'build_report is running' });
    const done = await pollUntilDone(served.url, created.taskId as string);
    expect(done.status).toBe('completed');
    const result = done.result as { content: { text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean; _meta: Record<string, unknown> };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.report).toBe('ready');
    // The catalog's secret never leaves: redacted as every result is.
    expect(result.structuredContent.key).toEqual(expect.any(String));
    expect(JSON.stringify(done)).not.toContain('sk-secret-report-key-123');
    expect(result._meta['toolman/job_id']).toBe((created._meta as Record<string, unknown>)['toolman/job_id']);
    expect(Date.parse(done.lastUpdatedAt as string)).toBeGreaterThanOrEqual(Date.parse(done.createdAt as string));
  });

  it('a tool that fails is a completed task with an isError result (failed is for JSON-RPC errors only)', async () => {
    const served = await serve();
    const created = (await call(served.url, 'failing_export', { tasks: true })).response!.result!;
    const done = await pollUntilDone(served.url, created.taskId as string);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('the export server said no') }] });
  });

  it('tasks/cancel stops the job and the task ends cancelled; a second cancel is still acknowledged', async () => {
    const served = await serve();
    const created = (await call(served.url, 'endless_job', { tasks: true })).response!.result!;
    const taskId = created.taskId as string;
    expect((await task(served.url, 'tasks/cancel', taskId)).response?.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    const ended = await pollUntilDone(served.url, taskId);
    expect(ended).toMatchObject({ status: 'cancelled', statusMessage: 'endless_job was cancelled' });
    expect(ended.result).toBeUndefined();
    // The job itself stopped (its mock latency was cut short): job_status says so.
    const jobId = (created._meta as Record<string, string>)['toolman/job_id'];
    const status = await modernRequest(served.url, 'tools/call', { name: 'job_status', arguments: { job_id: jobId } });
    expect(JSON.parse((status.response!.result!.content as { text: string }[])[0]!.text)).toMatchObject({ status: 'failed' });
    expect((await task(served.url, 'tasks/cancel', taskId)).response?.result).toBeDefined();
  });

  it('tasks/update is acknowledged and ignored (a toolman task never waits for input)', async () => {
    const served = await serve();
    const created = (await call(served.url, 'build_report', { tasks: true })).response!.result!;
    const answer = await task(served.url, 'tasks/update', created.taskId as string, { extra: { inputResponses: { question1: { action: 'accept', content: { x: 1 } } } } });
    expect(answer.response?.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect((await pollUntilDone(served.url, created.taskId as string)).status).toBe('completed');
  });

  it('an unknown or malformed task id is -32602', async () => {
    const served = await serve();
    expect((await task(served.url, 'tasks/get', 'task_guessed')).response?.error?.code).toBe(-32602);
    expect((await task(served.url, 'tasks/cancel', 'task_guessed')).response?.error?.code).toBe(-32602);
    expect((await task(served.url, 'tasks/update', 'task_guessed', { extra: { inputResponses: {} } })).response?.error?.code).toBe(-32602);
    const noId = await modernRequest(served.url, 'tasks/get', {}, { capabilities: TASKS });
    expect(noId.response?.error?.code).toBe(-32602);
  });
});

describe('the tasks extension: principals and bounds', () => {
  it('another principal can neither read nor cancel a task: the answer is the unknown-id one', async () => {
    const served = await serve({ authorizer: twoPrincipals });
    const created = (await call(served.url, 'endless_job', { tasks: true, token: 'alice' })).response!.result!;
    const taskId = created.taskId as string;
    const read = await task(served.url, 'tasks/get', taskId, { token: 'bob' });
    const unknown = await task(served.url, 'tasks/get', 'task_never_made', { token: 'bob' });
    expect(read.response?.error).toEqual(unknown.response?.error);
    expect(read.response?.error?.code).toBe(-32602);
    expect((await task(served.url, 'tasks/cancel', taskId, { token: 'bob' })).response?.error?.code).toBe(-32602);
    expect((await task(served.url, 'tasks/update', taskId, { token: 'bob', extra: { inputResponses: {} } })).response?.error?.code).toBe(-32602);
    // Bob's cancel did nothing: Alice's task still runs.
    expect((await task(served.url, 'tasks/get', taskId, { token: 'alice' })).response?.result?.status).toBe('working');
    await task(served.url, 'tasks/cancel', taskId, { token: 'alice' });
  });

  it('a task expires after its TTL: tasks/get answers -32602', async () => {
    const served = await serve({ taskLimits: { ttlMs: 300, pollIntervalMs: 100, maxPerPrincipal: 8, maxTotal: 8 } });
    const created = (await call(served.url, 'build_report', { tasks: true })).response!.result!;
    expect(created.ttlMs).toBe(300);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answer = await task(served.url, 'tasks/get', created.taskId as string);
    expect(answer.response?.error?.code).toBe(-32602);
  });

  it('past the per-principal bound, a finished task makes room; with every task running, the call answers as before', async () => {
    const served = await serve({ taskLimits: { ttlMs: 60_000, pollIntervalMs: 100, maxPerPrincipal: 2, maxTotal: 100 } });
    const first = (await call(served.url, 'failing_export', { tasks: true })).response!.result!;
    await pollUntilDone(served.url, first.taskId as string);
    const second = (await call(served.url, 'endless_job', { tasks: true })).response!.result!;
    const third = (await call(served.url, 'endless_job', { tasks: true })).response!.result!;
    expect(third.resultType).toBe('task');
    // The finished one went to make room.
    expect((await task(served.url, 'tasks/get', first.taskId as string)).response?.error?.code).toBe(-32602);
    const fourth = (await call(served.url, 'endless_job', { tasks: true })).response!.result!;
    expect(fourth.resultType).not.toBe('task');
    expect((fourth._meta as Record<string, unknown>)['toolman/job_id']).toMatch(/^job_/);
    await waitUntil(() => served.stderr().includes('no room for another task'));
    for (const t of [second, third]) await task(served.url, 'tasks/cancel', t.taskId as string);
  });
});
