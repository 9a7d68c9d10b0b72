import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnection } from '../../src/mcp/mcp-connection.js';
import { serverLaunch } from '../../src/mcp/server-launch.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { alive } from '../helpers/process-alive.js';
import { EVERYTHING, NODE, SERVERS } from './helpers.js';

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function launch(command: string, args: string[], extra: { timeoutMs?: number; env?: Record<string, string> } = {}) {
  return serverLaunch({ name: 'test', command, args, env: extra.env ?? {}, headers: {}, ...(extra.timeoutMs ? { timeoutMs: extra.timeoutMs } : {}) }, tmpdir(), process.env, new SecretSet());
}

async function connect(command: string, args: string[], extra: { timeoutMs?: number; env?: Record<string, string> } = {}) {
  const connection = await McpConnection.open(launch(command, args, extra), { secrets: new SecretSet() });
  open.push(connection);
  return connection;
}

const never = () => new AbortController().signal;

describe('a connection to one MCP server', () => {
  it('lists the reference server\'s tools and calls one, with progress', async () => {
    const connection = await connect(EVERYTHING, []);
    expect(connection.serverInfo?.name).toContain('everything');
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    const sum = await connection.callTool('get-sum', { a: 2, b: 3 }, { signal: never(), timeoutMs: 10_000 });
    expect(JSON.stringify(sum.content)).toContain('5');
    const progress: number[] = [];
    await connection.callTool('trigger-long-running-operation', { duration: 1, steps: 3 }, { signal: never(), timeoutMs: 10_000, onProgress: (p) => progress.push(p.progress) });
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });

  it('follows pagination', async () => {
    const connection = await connect(NODE, [join(SERVERS, 'scripted-server.mjs'), 'paged']);
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(Array.from({ length: 7 }, (_, i) => `page_tool_${i}`));
  });

  it('cancels a call: the server receives notifications/cancelled', async () => {
    const connection = await connect(NODE, [join(SERVERS, 'scripted-server.mjs'), 'plain']);
    const controller = new AbortController();
    const progress: string[] = [];
    const call = connection.callTool('wait', {}, { signal: controller.signal, timeoutMs: 10_000, onProgress: (p) => (progress.push(p.message ?? ''), controller.abort(new Error('stop'))) });
    await expect(call).rejects.toThrow('stop');
    expect(progress).toEqual(['started waiting']);
    const transport = (connection as unknown as { transport: { stderr: string } }).transport;
    await vi.waitFor(() => expect(transport.stderr).toMatch(/^cancelled \d+$/m));
    // The connection stays usable after a cancelled call.
    const said = await connection.callTool('say', { text: 'hi' }, { signal: never(), timeoutMs: 5_000 });
    expect(said.content).toEqual([{ type: 'text', text: 'said: hi' }]);
  });

  it('reports a server that exits at start with its exit status and stderr', async () => {
    const error = await McpConnection.open(launch(NODE, [join(SERVERS, 'exits-at-start.mjs')]), { secrets: new SecretSet() }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/MCP server "test" .* failed to start/);
    expect((error as Error).message).toContain('exited with code 3');
    expect((error as Error).message).toContain('fatal: cannot read config file');
  });

  it('gives up on a server that hangs at start, and stops it', async () => {
    const pidFile = join(tmpdir(), `toolman-hang-${process.pid}-${Date.now()}`);
    const started = Date.now();
    const error = await McpConnection.open(launch(NODE, [join(SERVERS, 'hangs-at-start.mjs')], { timeoutMs: 700, env: { PID_FILE: pidFile } }), { secrets: new SecretSet() }).catch((e: Error) => e);
    expect((error as Error).message).toContain('did not start within 700 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it('reports a program that does not exist', async () => {
    const error = await McpConnection.open(launch('/nonexistent/mcp-server', []), { secrets: new SecretSet() }).catch((e: Error) => e);
    expect((error as Error).message).toContain('program not found: /nonexistent/mcp-server');
    // It wrote nothing to stderr: no empty "its stderr ends with:".
    expect((error as Error).message).not.toContain('stderr');
  });

  it('stops the server and everything it started on close', async () => {
    const connection = await connect(EVERYTHING, []);
    const tools = await connection.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const pid = (connection as unknown as { transport: { pid: number } }).transport.pid;
    expect(alive(pid)).toBe(true);
    await connection.close();
    expect(alive(pid)).toBe(false);
  });
});
