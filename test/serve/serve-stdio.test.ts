import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { alive } from '../helpers/process-alive.js';
import { connectStdio, textOf, waitUntil, SERVE_CATALOG } from './serve-client.js';
import { BIN, ROOT } from '../helpers/paths.js';

// The built `toolman serve` process against the SDK's own client, over stdio (no network, no keys).
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});
async function serve(...args: Parameters<typeof connectStdio>) {
  const connected = await connectStdio(...args);
  open.push(connected.client);
  return connected;
}

describe('toolman serve over stdio', () => {
  it('lists the selection with MCP annotations, leaving out policy-denied and deferred tools', async () => {
    const { client } = await serve();
    const info = client.getServerVersion();
    expect(info?.name).toBe('toolman');
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    // The catalog's description, the listed tools' prompt contributions (not the deferred ones'), the search note.
    expect(client.getInstructions()).toBe(
      'Mock tools for testing toolman serve from an MCP client.\n\nNotes are shown to the whole team; never put secrets in them.\n\nSome tools of this catalog are not listed until tool_search finds them; the list changes when it does.',
    );
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(['lookup', 'add_note', 'remove_record', 'wait_long', 'chatty_module', 'progress_steps', 'show_secret', 'hold_pid', 'big', 'tool_search']);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('lookup')).toMatchObject({
      title: 'Look up a record',
      inputSchema: { type: 'object', required: ['key'] },
      annotations: { title: 'Look up a record', readOnlyHint: true, openWorldHint: false },
    });
    expect(byName.get('add_note')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    expect(byName.get('remove_record')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(byName.get('remove_record')?._meta).toMatchObject({ 'toolman/confirm': 'ask' });
    // Programs and modules may reach anything: the spec's default, stated.
    expect(byName.get('show_secret')?.annotations?.openWorldHint).toBe(true);
  });

  it('calls a mock tool through the executor: text, structured content, tool errors as isError', async () => {
    const { client } = await serve();
    const ok = await client.callTool({ name: 'lookup', arguments: { key: 'a1' } });
    expect(ok.isError).toBeFalsy();
    expect(JSON.parse(textOf(ok))).toEqual({ key: 'a1', found: true });
    expect(ok.structuredContent).toEqual({ key: 'a1', found: true });
    const failed = await client.callTool({ name: 'lookup', arguments: { key: 'missing' } });
    expect(failed).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'tool_error' } });
    expect(textOf(failed)).toContain('no record missing');
  });

  it('answers invalid arguments with an error result the model can act on, and keeps serving', async () => {
    const { client } = await serve();
    for (const args of [{ key: 5 }, {}, { key: 'a', extra: true }, { key: 'a', limit: 99 }]) {
      const result = await client.callTool({ name: 'lookup', arguments: args });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({ 'toolman/error_kind': 'invalid_arguments' });
      expect(textOf(result)).toMatch(/invalid arguments for lookup/);
    }
    // Deep arguments are refused for that call alone.
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) deep = { d: deep };
    const tooDeep = await client.callTool({ name: 'lookup', arguments: { key: 'a', deep } });
    expect(tooDeep.isError).toBe(true);
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'b' } })).isError).toBeFalsy();
  });

  it('declines a destructive call without --yes (the client cannot ask) and runs it with --yes', async () => {
    const plain = await serve();
    const declined = await plain.client.callTool({ name: 'remove_record', arguments: { key: 'r1' } });
    expect(declined).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
    expect(textOf(declined)).toMatch(/needs the user's approval.*does not support elicitation.*--yes/);
    expect(plain.stderr()).toMatch(/declined: remove_record is destructive/);

    const yes = await serve(['--yes']);
    const approved = await yes.client.callTool({ name: 'remove_record', arguments: { key: 'r1' } });
    expect(approved.isError).toBeFalsy();
    expect(approved.structuredContent).toEqual({ deleted: 'r1' });
  });

  it('asks for approval through elicitation when the client supports it', async () => {
    let answer: 'accept' | 'decline' | 'always' = 'accept';
    const { client, seen } = await serve([], {
      elicit: () => (answer === 'decline' ? { action: 'decline' } : { action: 'accept', content: { always: answer === 'always' } }),
    });
    const accepted = await client.callTool({ name: 'remove_record', arguments: { key: 'k1' } });
    expect(accepted.structuredContent).toEqual({ deleted: 'k1' });
    expect(seen.elicitations).toHaveLength(1);
    expect(seen.elicitations[0]).toMatch(/remove_record is destructive.*\n.*"key": "k1"/s);

    answer = 'decline';
    const declined = await client.callTool({ name: 'remove_record', arguments: { key: 'k2' } });
    expect(declined).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
    expect(textOf(declined)).toMatch(/the user declined/);

    answer = 'always';
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'k3' } })).isError).toBeFalsy();
    // "Allow for this session": not asked again.
    answer = 'decline';
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'k4' } })).isError).toBeFalsy();
    expect(seen.elicitations).toHaveLength(3);
  });

  it('finds a deferred tool through tool_search, sends list_changed, and then lists and runs it', async () => {
    const { client, seen } = await serve();
    const early = await client.callTool({ name: 'weather_station', arguments: {} });
    expect(early).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'not_available' } });
    expect(textOf(early)).toMatch(/tool_search/);

    const found = await client.callTool({ name: 'tool_search', arguments: { query: 'rooftop temperature and wind' } });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain('weather_station');
    // The notice comes before the call's result.
    expect(seen.listChanged).toBe(1);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('weather_station');
    expect(names).not.toContain('tool_search'); // nothing left to find
    const result = await client.callTool({ name: 'weather_station', arguments: {} });
    expect(result.structuredContent).toEqual({ temp_c: 4, wind_kmh: 12 });
  });

  it('with --search-mode discover, reaches deferred tools through invoke_tool, with approval rules intact', async () => {
    const { client } = await serve(['--search-mode', 'discover']);
    expect(client.getInstructions()).toContain('discover_tools finds them');
    expect(client.getInstructions()).not.toContain('tool_search');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['discover_tools', 'get_tool_schema', 'invoke_tool']));
    expect(names).not.toContain('weather_station');
    const listed = await client.callTool({ name: 'discover_tools', arguments: {} });
    expect(textOf(listed)).toContain('weather_station');
    const result = await client.callTool({ name: 'invoke_tool', arguments: { name: 'weather_station', arguments: {} } });
    expect(JSON.parse(textOf(result))).toEqual({ temp_c: 4, wind_kmh: 12 });
    // A denied tool stays out of reach through the wrapper too.
    expect((await client.callTool({ name: 'invoke_tool', arguments: { name: 'archive_everything', arguments: {} } })).isError).toBe(true);
  });

  it('treats a policy-denied tool as unknown: not listed, not callable', async () => {
    const { client } = await serve();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('archive_everything');
    await expect(client.callTool({ name: 'archive_everything', arguments: {} })).rejects.toThrow(/-32602.*Unknown tool: archive_everything/);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
    // Still serving.
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'x' } })).isError).toBeFalsy();
  });

  it('serves a profile: tools outside it are unknown', async () => {
    const { client } = await serve(['--profile', 'readonly']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('lookup');
    expect(names).not.toContain('add_note');
    expect(names).not.toContain('remove_record');
    await expect(client.callTool({ name: 'remove_record', arguments: { key: 'a' } })).rejects.toThrow(/Unknown tool/);
  });

  it('redacts secrets and truncates results as the executor does', async () => {
    const { client } = await serve([], { env: { SERVE_SECRET: 'swordfish-7c1' } });
    const secret = await client.callTool({ name: 'show_secret', arguments: {} });
    expect(JSON.stringify(secret)).not.toContain('swordfish-7c1');
    expect(textOf(secret)).toContain('token=[redacted]');
    const big = await client.callTool({ name: 'big', arguments: {} });
    expect(big._meta).toMatchObject({ 'toolman/truncated': true });
    expect(textOf(big)).toContain('more items');
  });

  it('keeps stray writes to standard output off the protocol stream', async () => {
    const { client, stderr } = await serve();
    const result = await client.callTool({ name: 'chatty_module', arguments: { word: 'ping' } });
    expect(result.structuredContent).toEqual({ echoed: 'ping' });
    await waitUntil(() => stderr().includes('chatty says ping on stdout'));
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'after' } })).isError).toBeFalsy();
  });

  it('cancels a running call on notifications/cancelled and keeps serving', async () => {
    const { client, stderr } = await serve(['--verbose']);
    const abort = new AbortController();
    const pending = client.callTool({ name: 'wait_long', arguments: {} }, undefined, { signal: abort.signal });
    await waitUntil(() => stderr().includes('wait_long running'));
    const started = Date.now();
    abort.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await waitUntil(() => /wait_long \(cancelled\)/.test(stderr()));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'x' } })).isError).toBeFalsy();
  });

  it('cancelling a call stops its program', async () => {
    const { client } = await serve();
    const pidFile = join(mkdtempSync(join(tmpdir(), 'toolman-serve-')), 'pid');
    const abort = new AbortController();
    const pending = client.callTool({ name: 'hold_pid', arguments: { file: pidFile } }, undefined, { signal: abort.signal });
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0);
    const program = Number(readFileSync(pidFile, 'utf8'));
    abort.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await waitUntil(() => !alive(program), 5_000);
  });

  it('sends progress notifications when the client asks for them', async () => {
    const { client, transport } = await serve();
    // Counted as they come off the wire: the SDK's client hands notifications to their handler a
    // microtask late, so one read holding the last progress and the result can lose that progress.
    const progress: { progress: number; total?: number; message?: string }[] = [];
    // The SDK's transport hands its handler a second argument (the request's extra) its type leaves out.
    const deliver = transport.onmessage! as (message: Parameters<NonNullable<typeof transport.onmessage>>[0], extra?: unknown) => void;
    transport.onmessage = ((message: Parameters<typeof deliver>[0], extra?: unknown) => {
      if ('method' in message && message.method === 'notifications/progress') {
        const { progressToken: _token, ...rest } = message.params as { progressToken: unknown; progress: number; message?: string };
        progress.push(rest);
      }
      deliver(message, extra);
    }) as typeof transport.onmessage;
    const result = await client.callTool({ name: 'progress_steps', arguments: {} }, undefined, { onprogress: () => undefined });
    expect(result.structuredContent).toEqual({ done: true });
    expect(progress).toEqual([
      // Module handlers report messages only: toolman counts the steps, so progress always increases.
      { progress: 1, message: 'step one' },
      { progress: 2, message: 'step two' },
    ]);
  });

  it('stops when the client closes the connection, leaving no process', async () => {
    const { client, pid } = await serve();
    expect(alive(pid)).toBe(true);
    await client.close();
    await waitUntil(() => !alive(pid));
  });
});

describe('toolman serve over stdio, raw lines', () => {
  it('answers an oversize line and a garbage line with protocol errors, then keeps answering calls', async () => {
    const child = spawn(process.execPath, [BIN, '--catalog', SERVE_CATALOG, 'serve'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      child.stdin.on('error', () => undefined); // a server that quit must fail the checks, not the run
      const replies = () => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
      const write = (text: string) => new Promise<void>((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once('drain', () => resolve())));
      await write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      await waitUntil(() => replies().some((r) => r.id === 1));
      await write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      // 12 MB, in pieces as a pipe delivers them.
      const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lookup', arguments: { key: 'x'.repeat(12_000_000) } } });
      for (let i = 0; i < big.length; i += 1 << 20) await write(big.slice(i, i + (1 << 20)));
      await write('\n');
      await write('this is not json\n');
      await write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lookup', arguments: { key: 'a1' } } })}\n`);
      await waitUntil(() => replies().some((r) => r.id === 3), 15_000);
      const errors = replies().filter((r) => r.id === null);
      expect(errors.map((r) => r.error?.code)).toEqual([-32600, -32700]);
      expect(errors[0]!.error!.message).toMatch(/message too large/);
      const answer = replies().find((r) => r.id === 3)!;
      expect(answer.error).toBeUndefined();
      expect(JSON.stringify(answer.result)).toContain('"found":true');
      expect(stderr).toMatch(/over the 10485760-byte limit/);
      expect(stderr).not.toMatch(/closed the connection/);
    } finally {
      child.kill();
    }
  }, 30_000);
});
