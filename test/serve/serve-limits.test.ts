import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeLimits } from '../../src/serve/call-slots.js';
import { BIN, FIXTURES, ROOT } from '../helpers/paths.js';
import { connectHttp, waitUntil } from './serve-client.js';
import { serveInProcess } from './serve-in-process.js';

/**
 * `toolman serve --port`'s limits against clients that ask too much: calls at once (per session
 * and in all), sessions (only idle ones make room), slow request bodies and idle sessions.
 */
const CATALOG = join(FIXTURES, 'catalogs', 'serve', 'limits.yaml');
type Served = { url: string; stderr(): string; close(): Promise<void> };
const servers: Served[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * The server in this process (the limits are what is tested, not the process; the flags that set
 * them are tested on the built binary below).
 */
async function serve(limits: Partial<ServeLimits>): Promise<Served> {
  const served = await serveInProcess({ catalog: CATALOG, limits });
  servers.push(served);
  return served;
}

async function client(url: string) {
  const { client, transport } = await connectHttp(url);
  clients.push(client);
  return { client, transport };
}

/** The first `count` of `promises` to settle (the others are left running). */
function firstSettled<T>(promises: Promise<T>[], count: number): Promise<T[]> {
  return new Promise((resolve) => {
    const done: T[] = [];
    for (const promise of promises) void promise.then((value) => done.push(value) === count && resolve(done));
  });
}

const most = (results: object[]) => Math.max(...results.map((r) => ((r as { structuredContent?: unknown }).structuredContent as { most: number } | undefined)?.most ?? 0));

describe('toolman serve --port keeps clients within its limits', () => {
  it('runs at most maxCallsPerSession calls of one session at once, and maxCalls over all sessions; the rest wait their turn', async () => {
    const { url } = await serve({ maxCallsPerSession: 2, maxCalls: 3 });
    const { client: one } = await client(url);
    const results = await Promise.all(Array.from({ length: 6 }, () => one.callTool({ name: 'overlap', arguments: { ms: 150 } })));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(most(results)).toBe(2);
    // Two sessions of two: three at once in all.
    const [{ client: a }, { client: b }] = await Promise.all([client(url), client(url)]);
    const earlier = results;
    const calls = [...Array.from({ length: 4 }, () => a.callTool({ name: 'overlap', arguments: { ms: 150 } })), ...Array.from({ length: 4 }, () => b.callTool({ name: 'overlap', arguments: { ms: 150 } }))];
    const both = await Promise.all(calls);
    expect(both.every((r) => !r.isError)).toBe(true);
    expect(most(both)).toBe(3);
    expect(most(earlier)).toBe(2);
  });

  it('refuses calls past what may wait, as busy results at once, and says so on stderr', async () => {
    const served = await serve({ maxCallsPerSession: 1 });
    const { client: one } = await client(served.url);
    // One runs, four wait (four per slot): the other five are answered at once.
    const calls = Array.from({ length: 10 }, () => one.callTool({ name: 'slow', arguments: {} }).catch((error: unknown) => ({ isError: true, error })));
    const busy = await firstSettled(calls, 5);
    expect(busy).toHaveLength(5);
    expect(busy[0]).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'busy' } });
    expect(JSON.stringify((busy[0] as { content: unknown }).content)).toContain('toolman serve is busy: 1 calls are running for this session (the most it runs at once) and 4 more are waiting');
    expect(served.stderr()).toContain('toolman serve is busy');
  });

  it('a new client closes only an idle session; with every session busy it is told to come back', async () => {
    const served = await serve({ maxSessions: 2 });
    const { url } = served;
    const busy = await client(url);
    const inFlight = busy.client.callTool({ name: 'slow', arguments: {} }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const idle = await client(url);
    const idleId = idle.transport.sessionId;
    // A third: the idle one goes, the one with a call in flight stays.
    const third = await client(url);
    await waitUntil(() => served.stderr().includes(`closing the session idle longest (${idleId})`));
    expect(served.stderr()).not.toContain(`(${busy.transport.sessionId})`);
    expect((await busy.client.listTools()).tools.length).toBe(2);
    // Both sessions now have a call in flight: a newcomer gets 503, nobody's work is thrown away.
    void third.client.callTool({ name: 'slow', arguments: {} }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } } }) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.text()).toContain('each has a call in flight');
    void inFlight;
  });

  it('a request whose body never finishes is answered 408 and its connection closed (--body-timeout)', async () => {
    const url = new URL((await serve({ bodyTimeoutMs: 400 })).url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a session idle past --idle-timeout is closed; one with a call in flight is not', async () => {
    const served = await serve({ idleTimeoutMs: 300 });
    const { url } = served;
    const idle = await client(url);
    const busy = await client(url);
    void busy.client.callTool({ name: 'slow', arguments: {} }).catch(() => undefined);
    await waitUntil(() => served.stderr().includes(`closing session ${idle.transport.sessionId}: idle`));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(served.stderr()).not.toContain(`closing session ${busy.transport.sessionId}`);
    const gone = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': idle.transport.sessionId!, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
    expect(gone.status).toBe(404);
  });

  it('the flags set them (the built binary), and bad values or HTTP-only flags without --port are refused', async () => {
    const run = (args: string[], until?: RegExp) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, '--catalog', CATALOG, 'serve', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
          if (until?.test(stderr)) child.kill('SIGTERM');
        });
        child.on('close', (code) => resolve({ code, stderr }));
      });
    expect(await run(['--port', '0', '--max-calls', '0'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--max-calls must be a whole number from 1 to 10000') });
    expect(await run(['--idle-timeout', '100'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--idle-timeout needs --port') });
    // Set from the command line: a call past what may wait is refused as busy.
    const child = spawn(process.execPath, [BIN, '--catalog', CATALOG, 'serve', '--port', '0', '--max-session-calls', '1', '--max-calls', '5', '--max-sessions', '3', '--body-timeout', '5000', '--idle-timeout', '60000'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    try {
      await waitUntil(() => /at http:\/\/\S+\/mcp/.test(stderr));
      const { client: one } = await client(/at (http:\/\/\S+\/mcp)/.exec(stderr)![1]!);
      const busy = await firstSettled(Array.from({ length: 6 }, () => one.callTool({ name: 'slow', arguments: {} }).catch((error: unknown) => ({ isError: true, error }))), 1);
      expect(busy[0]).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'busy' } });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
