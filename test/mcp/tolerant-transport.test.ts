import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpConnection } from '../../src/mcp/mcp-connection.js';
import { serverLaunch } from '../../src/mcp/server-launch.js';
import { StdioProcessTransport } from '../../src/mcp/stdio-process-transport.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { NODE, SERVERS } from './helpers.js';

// A 2026-07-28 server whose answers break the revision's schema in every way the v2 SDK checks
// (the SDK rejects the whole answer for any of them, tested below): toolman keeps what is good.

const HOSTILE = join(SERVERS, 'scripted-server.mjs');
const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
const never = () => new AbortController().signal;

const hostileStdio = () => serverLaunch({ name: 'h', command: NODE, args: [HOSTILE, 'modern-hostile'], env: {}, headers: {}, timeoutMs: 10_000 }, tmpdir(), process.env, new SecretSet());

/** The same hostile answers over HTTP, from a raw server (no SDK on that side, so nothing cleans them). */
let http: Server;
let url: string;
beforeAll(async () => {
  const schema = (props = {}) => ({ type: 'object', properties: props });
  const tools = [
    { name: 'ok_tool', description: 'A perfectly ordinary tool among hostile ones.', inputSchema: schema() },
    { name: 'no_type', description: 'Has an input schema without type: object.', inputSchema: { properties: {} } },
    { name: 'bad_header', description: 'Marks a number parameter for a header.', inputSchema: schema({ n: { type: 'number', description: 'n', 'x-mcp-header': 'N' } }) },
    { name: 'good_header', description: 'Marks a string parameter for a header.', inputSchema: schema({ r: { type: 'string', description: 'r', 'x-mcp-header': 'Region' } }) },
  ];
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'server/discover'
          ? { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' }
          : message.method === 'tools/list'
            ? { tools, ttlMs: 'soon' }
            : { content: [{ type: 'text', text: 'kept' }, { type: 'hologram' }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
});
afterAll(() => http.close());

describe('the tolerant transport', () => {
  it('is still needed: the v2 SDK rejects the whole tools/list and tools/call for one bad part', async () => {
    const client = new Client({ name: 't', version: '0' }, { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 3000 } } });
    await client.connect(new StdioProcessTransport({ command: NODE, args: [HOSTILE, 'modern-hostile'], cwd: tmpdir(), env: { PATH: process.env.PATH ?? '' } }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      await expect(client.request({ method: 'tools/list', params: {} })).rejects.toThrow(/Invalid result for tools\/list/);
      await expect(client.request({ method: 'tools/call', params: { name: 'odd_blocks', arguments: {} } })).rejects.toThrow(/resultType|Invalid result/);
    } finally {
      await client.close();
    }
  });

  it('keeps every good tool of a 2026-07-28 list, and says why each bad one was left out (stdio)', async () => {
    const connection = await McpConnection.open(hostileStdio(), { secrets: new SecretSet() });
    open.push(connection);
    expect(connection.era).toBe('modern');
    const tools = await connection.listTools();
    // On stdio x-mcp-header marks may be ignored (the spec's MAY): bad_header is kept there.
    expect(tools.map((t) => t.name)).toEqual(['ok_tool', 'bad_icons', 'bad_header', 'odd_blocks']);
    expect(tools.find((t) => t.name === 'bad_icons')).not.toHaveProperty('icons');
    expect(connection.listRepairs.map((r) => [r.code, r.tool, r.message])).toEqual([
      ['TM0804', 'no_type', 'left out: its inputSchema is not an object schema (type: object)'],
      ['TM0804', 'string_hint', 'left out: its annotations are malformed (hints must be true or false)'],
      ['TM0804', '#5', 'left out: it has no name'],
    ]);
    // No cache hints: immediately stale, never shared.
    expect(connection.listHints).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('names a content block of an unknown kind and keeps the rest; a result without resultType is complete', async () => {
    const connection = await McpConnection.open(hostileStdio(), { secrets: new SecretSet() });
    open.push(connection);
    const result = await connection.callTool('odd_blocks', {}, { signal: never(), timeoutMs: 10_000 });
    expect(result.content).toEqual([
      { type: 'text', text: 'kept' },
      { type: 'text', text: '[hologram content]' },
      { type: 'text', text: 'also kept' },
    ]);
  });

  it('leaves out a tool with an invalid x-mcp-header over HTTP (TM0830), and repairs hints that are not numbers', async () => {
    const launch = serverLaunch({ name: 'web', url, args: [], env: {}, headers: {}, timeoutMs: 10_000 }, tmpdir(), process.env, new SecretSet());
    const connection = await McpConnection.open(launch, { secrets: new SecretSet() });
    open.push(connection);
    expect(connection.era).toBe('modern');
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['ok_tool', 'good_header']);
    expect(connection.listRepairs).toEqual([
      { method: 'tools/list', code: 'TM0804', message: 'its ttlMs "soon" is not a whole number of milliseconds; the list is treated as immediately stale' },
      { method: 'tools/list', tool: 'no_type', code: 'TM0804', message: 'left out: its inputSchema is not an object schema (type: object)' },
      { method: 'tools/list', tool: 'bad_header', code: 'TM0830', message: 'left out: invalid x-mcp-header: property "n": x-mcp-header on a parameter of type number (only integer, string or boolean)' },
    ]);
    const result = await connection.callTool('ok_tool', {}, { signal: never(), timeoutMs: 10_000 });
    expect(result.content).toEqual([
      { type: 'text', text: 'kept' },
      { type: 'text', text: '[hologram content]' },
    ]);
  });
});
