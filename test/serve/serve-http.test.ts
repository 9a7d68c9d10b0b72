import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, startHttp, textOf } from './serve-client.js';

// The built `toolman serve --port 0` process against the SDK's streamable HTTP client, on loopback.
const TOKEN = 'test-token-0123456789abcdef';
/** A raw HTTP request, to check what the guard answers before any MCP. */
function raw(url: string, headers: Record<string, string>, body = '{}', method = 'POST'): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('toolman serve over streamable HTTP', () => {
  let served: Awaited<ReturnType<typeof startHttp>>;
  const clients: Client[] = [];
  beforeAll(async () => {
    served = await startHttp();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    served.child.kill('SIGTERM');
    expect((await served.done).code).toBe(130);
  });

  it('listens on loopback, lists, calls, and declines a destructive call', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await connectHttp(served.url);
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('lookup');
    expect(names).not.toContain('archive_everything');
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'h1' } })).structuredContent).toEqual({ key: 'h1', found: true });
    const declined = await client.callTool({ name: 'remove_record', arguments: { key: 'h1' } });
    expect(declined).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
    const invalid = await client.callTool({ name: 'lookup', arguments: { key: ['not', 'a', 'string'] } });
    expect(invalid).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'invalid_arguments' } });
    await expect(client.callTool({ name: 'archive_everything', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('gives each client session its own found tools, with list_changed on the call\'s stream', async () => {
    const a = await connectHttp(served.url);
    const b = await connectHttp(served.url);
    clients.push(a.client, b.client);
    await a.client.callTool({ name: 'tool_search', arguments: { query: 'weather station temperature' } });
    expect(a.seen.listChanged).toBe(1);
    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('weather_station');
    expect((await a.client.callTool({ name: 'weather_station', arguments: {} })).isError).toBeFalsy();
    // b never searched.
    expect((await b.client.listTools()).tools.map((t) => t.name)).not.toContain('weather_station');
    expect(b.seen.listChanged).toBe(0);
  });

  it('approves through elicitation over HTTP', async () => {
    const { client, seen } = await connectHttp(served.url, { elicit: () => ({ action: 'accept', content: { always: false } }) });
    clients.push(client);
    const result = await client.callTool({ name: 'remove_record', arguments: { key: 'e1' } });
    expect(result.structuredContent).toEqual({ deleted: 'e1' });
    expect(seen.elicitations).toHaveLength(1);
  });

  it('asks for approval on the call\'s own stream, so a client that never opens the GET stream is asked too', async () => {
    // The 2025-11-25 transport lets a client skip the GET stream (basic/transports.mdx §Listening
    // for Messages from the Server: "MAY"), and a server's requests during a call "SHOULD relate
    // to the originating client request" (§Sending Messages to the Server). The SDK's own
    // ctx.mcpReq.elicitInput (2.4.0) sends on the GET stream, where this client never hears it.
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(served.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'no-get', version: '1' } } }) });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await init.text();
    await (await fetch(served.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const call = await fetch(served.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'remove_record', arguments: { key: 'g1' } } }) });
    const reader = call.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const messages = () => text.split(/\n\n/).flatMap((event) => event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean).map((d) => JSON.parse(d) as { id?: number | string; method?: string; result?: { structuredContent?: unknown } }));
    const until = async (found: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!found()) {
        const read = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), deadline - Date.now()))]);
        if (!read || read.done) throw new Error(`the call's stream said only: ${text}`);
        text += decoder.decode(read.value);
      }
    };
    await until(() => messages().some((m) => m.method === 'elicitation/create'));
    const question = messages().find((m) => m.method === 'elicitation/create')!;
    await (await fetch(served.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { always: false } } }) })).text();
    await until(() => messages().some((m) => m.id === 2));
    expect(messages().find((m) => m.id === 2)?.result?.structuredContent).toEqual({ deleted: 'g1' });
    await fetch(served.url, { method: 'DELETE', headers: session });
  });

  it('refuses other hosts and origins (DNS rebinding), other paths and unknown sessions', async () => {
    const port = new URL(served.url).port;
    expect((await raw(served.url, { host: `evil.example:${port}` }, initialize)).status).toBe(403);
    expect((await raw(served.url, { origin: 'https://evil.example' }, initialize)).status).toBe(403);
    expect((await raw(served.url, { origin: `http://localhost:${port}` }, initialize)).status).toBe(200);
    expect((await raw(served.url.replace('/mcp', '/other'), {}, initialize)).status).toBe(404);
    // CORS for browser clients on this machine (the MCP Inspector's direct mode).
    const preflight = await raw(served.url, { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' }, '', 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(preflight.headers['access-control-expose-headers']).toMatch(/Mcp-Session-Id/);
    expect((await raw(served.url, { origin: 'https://evil.example' }, '', 'OPTIONS')).status).toBe(403);
    expect((await raw(served.url, { 'mcp-session-id': 'nope' }, initialize)).status).toBe(404);
    expect((await raw(served.url, {}, '{not json')).status).toBe(400);
    expect((await raw(served.url, {}, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).status).toBe(400);
  });

  it('answers a body over 4 MiB with 413 and a JSON-RPC error, chunked or with Content-Length', async () => {
    const expected = { jsonrpc: '2.0', error: { code: -32600, message: 'Payload too large: at most 4194304 bytes' }, id: null };
    const declared = await raw(served.url, {}, `"${'x'.repeat(5 * 1024 * 1024)}"`);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toEqual(expected);
    // Transfer-Encoding: chunked (no Content-Length), 6 MiB in 64 KiB writes.
    const chunked = await new Promise<{ status: number; body: string; chunked: boolean }>((resolve, reject) => {
      const req = request(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, chunked: req.getHeader('transfer-encoding') === 'chunked' || !req.hasHeader('content-length') }));
      });
      req.on('error', reject);
      const piece = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 96) {
          sent++;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('"');
      pump();
    });
    expect(chunked.chunked).toBe(true);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual(expected);
    // And the server goes on.
    expect((await raw(served.url, {}, initialize)).status).toBe(200);
  });
});

describe('toolman serve over HTTP with a bearer token', () => {
  it('requires the token from --token-env and refuses a missing or wrong one', async () => {
    const served = await startHttp(['--token-env', 'SERVE_TOKEN'], { SERVE_TOKEN: TOKEN });
    try {
      const missing = await raw(served.url, {}, initialize);
      expect(missing.status).toBe(401);
      expect(missing.body).toMatch(/Bearer/);
      expect((await raw(served.url, { authorization: 'Bearer wrong-token' }, initialize)).status).toBe(401);
      expect((await raw(served.url, { authorization: `Bearer ${TOKEN}` }, initialize)).status).toBe(200);
      await expect(connectHttp(served.url)).rejects.toThrow();
      const { client } = await connectHttp(served.url, { token: TOKEN });
      expect(textOf(await client.callTool({ name: 'lookup', arguments: { key: 't' } }))).toContain('"found":true');
      // The token is a secret of the run: a tool that echoes it (here, a client that sends it as an argument) never shows it.
      const echoed = textOf(await client.callTool({ name: 'lookup', arguments: { key: TOKEN } }));
      expect(echoed).toContain('"key":"[redacted]"');
      expect(echoed).not.toContain(TOKEN);
      await client.close();
    } finally {
      served.child.kill('SIGINT');
      expect((await served.done).code).toBe(130);
    }
  });
});
