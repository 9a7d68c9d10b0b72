import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { ToolRunner } from '../../src/execute/runner.js';
import { defaultRunners } from '../../src/execute/runners/default-runners.js';
import type { ApprovalDecision, ApprovalRequest, CallEvent, ToolCall } from '../../src/execute/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/executor.yaml'], { cwd: ROOT });
const call = (name: string, args: unknown = {}, id = name): ToolCall => ({ id, name, arguments: args });
const statusOf = (events: CallEvent[], id: string) => events.filter((e) => e.id === id).map((e) => (e.type === 'tool_status' ? e.status : e.type === 'tool_approval' ? `approval:${e.decision}` : 'progress'));

describe('runners are found by handler kind', () => {
  it('runs a kind the executor has never heard of through a registered runner', async () => {
    const seen: unknown[] = [];
    const agentRunner: ToolRunner<'agent'> = {
      kind: 'agent',
      async run(handler, args, context) {
        seen.push({ agent: handler.agent, args, tool: context.tool.name });
        context.progress('thinking', { progress: 1, total: 2 });
        return { answer: `done: ${String(args.task)}` };
      },
    };
    const events: CallEvent[] = [];
    const session = new ToolSession(catalog, {}, { cwd: ROOT, runners: defaultRunners().with(agentRunner), onEvent: (e) => events.push(e) });
    const turn = await session.runTurn([call('helper', { task: 'summarise' })]);
    expect(turn.responses[0]).toMatchObject({ ok: true, content: '{"answer":"done: summarise"}' });
    expect(seen).toEqual([{ agent: 'helper', args: { task: 'summarise' }, tool: 'helper' }]);
    expect(events).toContainEqual({ type: 'tool_progress', id: 'helper', name: 'helper', message: 'thinking', progress: 1, total: 2 });
  });

  it('answers clearly when no runner is registered for a kind', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT });
    const turn = await session.runTurn([call('helper', { task: 'x' })]);
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'tool_error', error: 'helper is a sub-agent, and this toolman cannot run agent tools' });
  });
});

describe('a call\'s life as a status union', () => {
  it('goes queued, validating, awaiting_approval, running, done; the driver answers by call id mid-turn', async () => {
    const events: CallEvent[] = [];
    const pending = new Map<string, (decision: ApprovalDecision) => void>();
    const session = new ToolSession(catalog, {}, {
      cwd: ROOT,
      approve: (request: ApprovalRequest) => new Promise<ApprovalDecision>((resolve) => pending.set(request.callId, resolve)),
      onEvent: (e) => events.push(e),
    });
    const turn = session.runTurn([call('fast_safe', { n: 1 }, 'safe'), call('remove_record', { key: 'a' }, 'rm')]);
    // The safe call finishes while the other waits for the user.
    await new Promise((r) => setTimeout(r, 120));
    expect(statusOf(events, 'safe')).toEqual(['queued', 'validating', 'running', 'done']);
    expect(statusOf(events, 'rm')).toEqual(['queued', 'validating', 'awaiting_approval']);
    expect(events.find((e) => e.id === 'rm' && e.type === 'tool_status' && e.status === 'awaiting_approval')).toMatchObject({ arguments: { key: 'a' }, reason: 'remove_record is destructive' });
    pending.get('rm')!('approve');
    const result = await turn;
    expect(result.responses.map((r) => r.ok)).toEqual([true, true]);
    expect(statusOf(events, 'rm')).toEqual(['queued', 'validating', 'awaiting_approval', 'approval:approve', 'running', 'done']);
  });

  it('remembers "always" for the rest of the session', async () => {
    const asked: string[] = [];
    const session = new ToolSession(catalog, {}, { cwd: ROOT, approve: async (r) => (asked.push(r.callId), 'always') });
    await session.runTurn([call('remove_record', { key: 'a' }, 'first')]);
    const second = await session.runTurn([call('remove_record', { key: 'b' }, 'second')]);
    expect(second.responses[0]!.ok).toBe(true);
    expect(asked).toEqual(['first']);
  });
});

describe('one AbortSignal per turn', () => {
  it('cancels one turn; the next turn of the same session runs', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const cancelled = await session.runTurn([call('wait_long')], { signal: controller.signal });
    expect(cancelled.responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
    const next = await session.runTurn([call('fast_safe', { n: 2 })], { signal: new AbortController().signal });
    expect(next.responses[0]!.ok).toBe(true);
  });

  it('stops waiting for an approval when the turn is cancelled', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT, approve: () => new Promise<ApprovalDecision>(() => {}) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const turn = await session.runTurn([call('remove_record', { key: 'a' })], { signal: controller.signal });
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
  });
});

describe('handler timeouts', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => setTimeout(() => res.end('late'), 2000));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('exec.timeout_ms and http.timeout_ms stop the call, not the tool\'s longer timeout', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT, env: { PATH: process.env.PATH, TEST_API: url } });
    const started = performance.now();
    const turn = await session.runTurn([call('exec_own_timeout'), call('http_own_timeout')]);
    expect(turn.responses.map((r) => r.error)).toEqual(['exec_own_timeout did not finish within 150 ms and was stopped', 'http_own_timeout did not finish within 150 ms and was stopped']);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe('invoke_tool goes through every turn-wide rule', () => {
  it('refuses a take-control tool invoked together with another call', async () => {
    const session = new ToolSession(catalog, { searchMode: 'discover' }, { cwd: ROOT });
    const turn = await session.runTurn([call('invoke_tool', { name: 'takeover', arguments: {} }, 'i1'), call('lookup', { key: 'a' }, 'c2')]);
    expect(turn.responses.map((r) => r.error_kind)).toEqual(['must_run_alone', 'must_run_alone']);
    expect(turn.took_control).toBeNull();
  });

  it('de-duplicates an invoked call against the same call made directly', async () => {
    const session = new ToolSession(catalog, { searchMode: 'discover' }, { cwd: ROOT });
    const turn = await session.runTurn([call('lookup', { key: 'a' }, 'direct'), call('invoke_tool', { name: 'lookup', arguments: { key: 'a' } }, 'wrapped')]);
    expect(turn.responses.map((r) => [r.id, r.name, r.deduplicated])).toEqual([['direct', 'lookup', false], ['wrapped', 'invoke_tool', true]]);
  });
});

describe('names and aliases', () => {
  it('calls a tool by its alias, and forces it by alias', async () => {
    const session = new ToolSession(catalog, { force: ['find_record'] }, { cwd: ROOT });
    expect(session.selection.forced.map((t) => t.name)).toEqual(['lookup']);
    const turn = await session.runTurn([call('find_record', { key: 'user-1' })]);
    expect(JSON.parse(turn.responses[0]!.content)).toEqual({ kind: 'user', key: 'user-1' });
  });
});
