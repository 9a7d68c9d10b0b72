import { createServer, request, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Server, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readJson } from '../../src/serve/http-body.js';
import { LegacySessions } from '../../src/serve/legacy-sessions.js';
import { KEEP_ALIVE_MS } from '../../src/serve/session-transport.js';

// A 2025-11-25 session's plain requests are answered by toolman itself (issue 24), everything
// else by the SDK's transport. Held here through the sessions' own class (LegacySessions) with a
// server whose tool the test drives: instant, progress first, or waiting for the test.

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

let http: HttpServer | undefined;
let sessions: LegacySessions | undefined;
afterEach(async () => {
  vi.useRealTimers();
  sessions?.close();
  sessions = undefined;
  if (http) {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http!.close(() => resolve()));
  }
  http = undefined;
});

/** What the test's tool does, by the `mode` argument of a call. */
interface Harness {
  url: string;
  logs: string[];
  /** Calls of mode `wait` not answered yet: each ends when its function is called. */
  waiting: (() => void)[];
  /** Opens a session (initialize, initialized); returns the headers its requests carry. */
  open(): Promise<Record<string, string>>;
}

async function harness(): Promise<Harness> {
  const logs: string[] = [];
  const waiting: (() => void)[] = [];
  sessions = new LegacySessions(
    async () => {
      const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {}, logging: {} } });
      server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
      server.setRequestHandler('tools/call', async (req, ctx: ServerContext): Promise<CallToolResult> => {
        const args = (req.params.arguments ?? {}) as { mode?: string; text?: string };
        if (args.mode === 'progress') await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: req.params._meta?.progressToken ?? 'p', progress: 1, message: 'halfway' } });
        if (args.mode === 'wait') await new Promise<void>((resolve) => waiting.push(resolve));
        return { content: [{ type: 'text', text: args.text ?? 'done' }], structuredContent: { text: args.text ?? 'done' } };
      });
      server.onerror = (error) => logs.push(`protocol error: ${error.message}`);
      return { server, close: () => undefined, busy: () => false };
    },
    { maxSessions: 10, idleTimeoutMs: 60_000 },
    (line) => logs.push(line),
  );
  http = createServer(async (req, res) => {
    const read = req.method === 'POST' ? await readJson(req) : { ok: true as const, value: undefined };
    if (!read.ok) return void res.writeHead(400).end();
    const auth = { token: '', clientId: 'anonymous', scopes: [], extra: { principal: 'p' } };
    const id = req.headers['mcp-session-id'];
    const withAuth = Object.assign(req, { auth });
    if (typeof id === 'string' && sessions!.has(id)) await sessions!.handle(id, withAuth, res, read.value, 'p');
    else await sessions!.open(withAuth, res, read.value, 'p');
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    logs,
    waiting,
    open: async () => {
      const init = await post(url, {}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const session = init.headers['mcp-session-id'] as string;
      expect(init.status).toBe(200);
      const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
      expect((await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      return headers;
    },
  };
}

const ACCEPT = 'application/json, text/event-stream';

function post(url: string, headers: Record<string, string>, body: unknown, options: { method?: string; onResponse?: (headers: IncomingHttpHeaders) => void; onData?: (text: string) => void } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers } }, (res) => {
      options.onResponse?.(res.headers);
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        options.onData?.(text);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** The JSON-RPC messages of an SSE body, in order. */
function events(text: string): unknown[] {
  return text
    .split('\n\n')
    .map((event) => event.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n'))
    .filter(Boolean)
    .map((data) => JSON.parse(data) as unknown);
}

const call = (id: number | string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: args, ...(meta ? { _meta: meta } : {}) } });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe('a 2025-11-25 session answering its plain requests itself', () => {
  it('answers a request whose answer comes first as JSON, with its length and the session id, as the SDK would in its stream', async () => {
    const h = await harness();
    const headers = await h.open();
    const reply = await post(h.url, headers, call(1, { text: 'hi' }));
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.text));
    const fast = JSON.parse(reply.text) as unknown;
    expect(fast).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } } });
    // The same request as a batch of one takes the SDK's way: the same message, in an SSE stream.
    const viaSdk = await post(h.url, headers, [call(1, { text: 'hi' })]);
    expect(viaSdk.headers['content-type']).toBe('text/event-stream');
    expect(events(viaSdk.text)).toEqual([fast]);
    const list = await post(h.url, headers, { jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    expect(JSON.parse(list.text)).toMatchObject({ id: 'list', result: { tools: [{ name: 'echo' }] } });
    expect(h.logs).toEqual([]);
  });

  it('streams SSE when the server sends something else first: the progress, then the answer, then the end', async () => {
    const h = await harness();
    const headers = await h.open();
    const reply = await post(h.url, headers, call(2, { mode: 'progress', text: 'after' }, { progressToken: 'tok' }));
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(reply.headers['cache-control']).toBe('no-cache, no-transform');
    expect(reply.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
    expect(reply.text.startsWith('event: message\ndata: ')).toBe(true);
    expect(events(reply.text)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, message: 'halfway' } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'after' }], structuredContent: { text: 'after' } } },
    ]);
  });

  it('starts the SSE stream of a request that outlasts its turn at once, keeps it alive every 15 s, and leaves no timer behind', async () => {
    const h = await harness();
    const headers = await h.open();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let head: IncomingHttpHeaders | undefined;
    let seen = '';
    const reply = post(h.url, headers, call(3, { mode: 'wait', text: 'late' }), { onResponse: (headers) => (head = headers), onData: (text) => (seen = text) });
    // The headers arrive while the call still waits.
    await until(() => head !== undefined && h.waiting.length === 1);
    expect(head!['content-type']).toBe('text/event-stream');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    await until(() => seen.includes(': keepalive\n\n'));
    h.waiting.shift()!();
    const done = await reply;
    expect(events(done.text)).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'late' }], structuredContent: { text: 'late' } } }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves every other shape to the SDK transport, which answers it as before', async () => {
    const h = await harness();
    const headers = await h.open();
    // A top-level key the JSON-RPC schema does not know: the SDK refuses the message.
    const extra = await post(h.url, headers, { ...call(4, {}), extra: true });
    expect(extra.status).toBe(400);
    expect(JSON.parse(extra.text)).toMatchObject({ error: { code: -32700 } });
    // An id that is not an integer, a progress token that is an object: the same.
    expect((await post(h.url, headers, call(4.5, {}))).status).toBe(400);
    expect((await post(h.url, headers, call(5, {}, { progressToken: { no: 1 } }))).status).toBe(400);
    // A protocol version it does not support, an Accept without SSE.
    const version = await post(h.url, { ...headers, 'mcp-protocol-version': '1999-01-01' }, call(6, {}));
    expect(version.status).toBe(400);
    expect(version.text).toMatch(/Unsupported protocol version/);
    expect((await post(h.url, { ...headers, accept: 'application/json' }, call(7, {}))).status).toBe(406);
    // A notification: accepted, nothing to answer.
    expect((await post(h.url, headers, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } })).status).toBe(202);
    // A second initialize on the session: the SDK refuses it.
    expect((await post(h.url, headers, { jsonrpc: '2.0', id: 8, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })).status).toBe(400);
    // Without the version header the session's own is assumed: answered here.
    const { 'mcp-protocol-version': _, ...noVersion } = headers;
    expect(JSON.parse((await post(h.url, noVersion, call(9, { text: 'v' }))).text)).toMatchObject({ id: 9, result: { structuredContent: { text: 'v' } } });
  });

  it('answers both requests when a client reuses an id still in flight (the second goes the SDK way)', async () => {
    // JSON-RPC wants ids unique among requests in flight; a client that reuses one gets its
    // answers by id, as from the SDK's transport (which of the two HTTP requests carries which
    // answer is not defined), but both end.
    const h = await harness();
    const headers = await h.open();
    const first = post(h.url, headers, call(10, { mode: 'wait', text: 'one' }));
    await until(() => h.waiting.length === 1);
    const second = post(h.url, headers, call(10, { text: 'two' }));
    const firstReply = await first;
    h.waiting.shift()!();
    const secondReply = await second;
    const answers = [firstReply, secondReply].flatMap((reply) => (reply.headers['content-type'] === 'application/json' ? [JSON.parse(reply.text) as unknown] : events(reply.text)));
    expect(answers.map((a) => (a as { result: { structuredContent: { text: string } } }).result.structuredContent.text).sort()).toEqual(['one', 'two']);
  });

  it('ends a waiting answer when the session is deleted, and drops the answer of a client that left without harm', async () => {
    const h = await harness();
    const headers = await h.open();
    // The client leaves while its call waits; the answer, when it comes, is dropped.
    const controller = new AbortController();
    const left = fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: JSON.stringify(call(11, { mode: 'wait' })), signal: controller.signal })
      .then((response) => response.text())
      .catch((error: Error) => error.name);
    await until(() => h.waiting.length === 1);
    controller.abort();
    expect(await left).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 50));
    h.waiting.shift()!();
    await until(() => h.logs.some((line) => /No connection established for request ID: 11/.test(line)));
    // The session goes on.
    expect(JSON.parse((await post(h.url, headers, call(12, { text: 'still' }))).text)).toMatchObject({ id: 12 });
    // A call waiting when its session is deleted: its stream ends without an answer.
    const pending = post(h.url, headers, call(13, { mode: 'wait' }));
    await until(() => h.waiting.length === 1);
    expect((await post(h.url, headers, undefined, { method: 'DELETE' })).status).toBe(200);
    const ended = await pending;
    expect(ended.headers['content-type']).toBe('text/event-stream');
    expect(events(ended.text)).toEqual([]);
    expect(sessions!.has(headers['mcp-session-id']!)).toBe(false);
  });

  it('forgets every request whose client left, at any point, and leaves no timer behind', async () => {
    const h = await harness();
    const headers = await h.open();
    const { port } = new URL(h.url);
    // The keep-alive timers are unref'd: counted through fake ones.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    /** A raw POST whose client leaves right after sending it, once the headers are in, or once the first event is. */
    const leaving = (message: unknown, when: 'sent' | 'headers' | 'event') =>
      new Promise<void>((resolve) => {
        const text = JSON.stringify(message);
        const socket = connect(Number(port), '127.0.0.1', () => {
          const head = `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\nMcp-Session-Id: ${headers['mcp-session-id']}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n`;
          socket.write(head + text, () => when === 'sent' && socket.destroy());
        });
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.toString('utf8');
          // (An answer that comes first comes whole, as JSON: there is no event to wait for.)
          if (when === 'headers' || seen.includes('data: ') || seen.includes('"result"')) socket.destroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
      });
    const ids: number[] = [];
    const gone: Promise<void>[] = [];
    let id = 100;
    const cases = [['instant', 'sent'], ['instant', 'headers'], ['progress', 'sent'], ['progress', 'headers'], ['progress', 'event'], ['wait', 'sent'], ['wait', 'headers']] as const;
    for (const [mode, when] of cases) {
      ids.push(id);
      gone.push(leaving(call(id++, { mode }, { progressToken: id }), when));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The waiting calls are cancelled after their clients left: the server never answers them.
    for (const cancelled of ids) await post(h.url, headers, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: cancelled } });
    while (h.waiting.length) h.waiting.shift()!();
    await Promise.all(gone);
    // Each id is free again: a new request with it is answered here (JSON), not taken for a reuse of an id in flight.
    for (const reused of ids) {
      // (An id still held would take the SDK's way, whose stream for it never gets the answer.)
      const again = await Promise.race([post(h.url, headers, call(reused, { text: 'again' })), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`id ${reused} is still held`)), 2000))]);
      expect(again.headers['content-type']).toBe('application/json');
      expect(JSON.parse(again.text)).toMatchObject({ id: reused, result: { structuredContent: { text: 'again' } } });
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
