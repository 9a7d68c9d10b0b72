import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, modernRequest } from './modern-client.js';
import { spawnServe, startHttp, waitUntil } from './serve-client.js';

/**
 * The tasks extension through the built `toolman serve`: over HTTP (`--port`) and over stdio in
 * the 2026-07-28 era, a declaring client's background call becomes a task it polls to its result;
 * a client that does not declare it gets the job id as before. Every piece is tested in process
 * in serve-tasks.test.ts.
 */
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

let dir: string;
let catalog: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-serve-tasks-bin-'));
  catalog = join(dir, 'tasks.yaml');
  writeFileSync(
    catalog,
    'toolman: 1\nname: tasks\ndefaults: { effect: read }\ntools:\n  - name: build_report\n    description: Builds a report in the background.\n    mode: background\n    handler: { mock: [{ latency_ms: 200, result: { report: ready } }] }\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('toolman serve: the tasks extension through the binary', () => {
  it('over HTTP: a task, polled to the result; without the extension, the job id', async () => {
    const served = await startHttp([], {}, catalog);
    try {
      const created = (await modernRequest(served.url, 'tools/call', { name: 'build_report', arguments: {} }, { capabilities: TASKS })).response!.result!;
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.taskId as string;
      let task: Record<string, unknown> = {};
      for (let i = 0; i < 100 && task.status !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        task = (await modernRequest(served.url, 'tasks/get', { taskId }, { capabilities: TASKS, headers: { 'mcp-name': taskId } })).response!.result!;
      }
      expect(task).toMatchObject({ status: 'completed', result: { structuredContent: { report: 'ready' } } });
      // The routing header must name the task (the SDK's check, ext-tasks §Streamable HTTP: Routing Headers).
      const mismatch = await modernRequest(served.url, 'tasks/get', { taskId }, { capabilities: TASKS, headers: { 'mcp-name': 'task_other' } });
      expect(mismatch.status).toBe(400);
      const plain = (await modernRequest(served.url, 'tools/call', { name: 'build_report', arguments: {} })).response!.result!;
      expect(plain.resultType).not.toBe('task');
      expect((plain._meta as Record<string, unknown>)['toolman/job_id']).toMatch(/^job_/);
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  });

  it('over stdio in the 2026-07-28 era: the same task, by raw JSON-RPC lines', async () => {
    const served = spawnServe([], { catalog, stdin: 'pipe' });
    const replies = new Map<number, Record<string, unknown>>();
    let buffered = '';
    served.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffered.slice(0, newline)) as { id?: number };
        buffered = buffered.slice(newline + 1);
        if (typeof message.id === 'number') replies.set(message.id, message as Record<string, unknown>);
      }
    });
    let next = 1;
    const request = async (method: string, params: Record<string, unknown>) => {
      const id = next++;
      served.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(TASKS) } }) + '\n');
      await waitUntil(() => replies.has(id));
      return replies.get(id)! as { result?: Record<string, unknown>; error?: { code: number } };
    };
    try {
      const discover = await request('server/discover', {});
      expect((discover.result!.capabilities as Record<string, unknown>).extensions).toEqual(TASKS.extensions);
      const created = (await request('tools/call', { name: 'build_report', arguments: {} })).result!;
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      let task: Record<string, unknown> = {};
      for (let i = 0; i < 100 && task.status !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        task = (await request('tasks/get', { taskId: created.taskId })).result!;
      }
      expect(task).toMatchObject({ status: 'completed', result: { structuredContent: { report: 'ready' } } });
      expect((await request('tasks/get', { taskId: 'task_guessed' })).error?.code).toBe(-32602);
    } finally {
      served.child.stdin!.end();
      await served.done;
    }
  });
});
