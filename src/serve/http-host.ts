import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { ServeLimits } from './call-slots.js';
import { HttpGuard } from './http-guard.js';

export const MCP_PATH = '/mcp';
/** The spec's own limit for the SDK transport; a call's arguments are far smaller. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One MCP session: its server (over its own toolman session), what to close, and whether a call of it is running or waiting. */
export interface OpenedSession {
  server: Server;
  close(): void;
  busy(): boolean;
}

export interface HttpHostOptions {
  host: string;
  port: number;
  token?: string;
  openSession(): Promise<OpenedSession>;
  log(line: string): void;
  /** Sessions kept (at the limit only an idle one makes room), body and idle timeouts. */
  limits: Pick<ServeLimits, 'maxSessions' | 'bodyTimeoutMs' | 'idleTimeoutMs'>;
}

export interface HttpHost {
  url: string;
  close(): Promise<void>;
}

interface Live {
  transport: StreamableHTTPServerTransport;
  opened: OpenedSession;
  lastSeen: number;
  closed: boolean;
}

/**
 * Streamable HTTP (spec 2025-11-25, "Transports") on Node's own HTTP server: one endpoint,
 * `/mcp`; each client session gets its own transport, MCP server and toolman session (tools
 * found by search belong to the session that searched). Requests pass the guard (bearer token,
 * Host and Origin) before anything reads them.
 */
export async function listenHttp(options: HttpHostOptions): Promise<HttpHost> {
  const { limits } = options;
  const guard = new HttpGuard(options.host, options.token);
  const sessions = new Map<string, Live>();

  const end = (live: Live, id: string | undefined) => {
    if (live.closed) return;
    live.closed = true;
    if (id) sessions.delete(id);
    live.opened.close();
    void live.opened.server.close().catch(() => undefined);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const foreign = guard.check(req.headers, true);
    if (foreign) return reply(res, foreign.status, foreign.message, foreign.headers);
    // Browser clients (the MCP Inspector's direct mode) need CORS; the guard has vetted the origin,
    // and a browser must be able to read a 401 to ask for the token.
    const origin = req.headers.origin;
    if (origin) for (const [name, value] of Object.entries(corsHeaders(origin))) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const unauthorized = guard.check(req.headers);
    if (unauthorized) return reply(res, unauthorized.status, unauthorized.message, unauthorized.headers);
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') return reply(res, 405, 'Method not allowed', { Allow: 'GET, POST, DELETE, OPTIONS' });

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if (!read.ok) return reply(res, read.status, read.message, undefined, read.code);
      body = read.value;
    }
    const id = header(req, 'mcp-session-id');
    if (id !== undefined) {
      const live = sessions.get(id);
      if (!live) return reply(res, 404, 'Session not found: start a new one with initialize', undefined, -32001);
      live.lastSeen = Date.now();
      await live.transport.handleRequest(req, res, body);
      live.lastSeen = Date.now();
      return;
    }
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (req.method !== 'POST' || !initializes) return reply(res, 400, 'Bad request: no Mcp-Session-Id; send initialize first');

    if (sessions.size >= limits.maxSessions) {
      // Clients that vanished never say goodbye: the session idle longest makes room, but never
      // one with a call running or waiting (another client's work is not thrown away for a newcomer).
      const idle = [...sessions].filter(([, live]) => !live.opened.busy()).sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
      if (!idle) return reply(res, 503, `Service unavailable: ${sessions.size} sessions are open and each has a call in flight; try again later`, { 'Retry-After': '5' });
      options.log(`closing the session idle longest (${idle[0]}): ${limits.maxSessions} sessions are open`);
      end(idle[1], idle[0]);
    }
    const opened = await options.openSession();
    const live: Live = { transport: undefined as never, opened, lastSeen: Date.now(), closed: false };
    live.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, live),
      onsessionclosed: (sessionId) => end(live, sessionId),
    });
    opened.server.onclose = () => end(live, live.transport.sessionId);
    await opened.server.connect(live.transport);
    await live.transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session behind.
    if (live.transport.sessionId === undefined) end(live, undefined);
  };

  // Node checks the request timeouts this often: often enough for the body timeout to mean what it says.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(50, Math.floor(limits.bodyTimeoutMs / 4)));
  const http = createServer({ connectionsCheckingInterval }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) reply(res, 500, 'Internal server error', undefined, -32603);
      else res.end();
    });
  });
  // Slow or stuck clients must not hold sockets for ever: a request (headers and body) must arrive
  // within the body timeout, or Node answers 408 and closes the connection. Responses are not
  // bounded by it (an SSE stream of a call lasts as long as the call).
  http.requestTimeout = limits.bodyTimeoutMs;
  http.headersTimeout = Math.min(30_000, limits.bodyTimeoutMs);
  // Sessions nobody has used for the idle timeout, with nothing running, are closed.
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, live] of [...sessions]) {
        if (now - live.lastSeen < limits.idleTimeoutMs || live.opened.busy()) continue;
        options.log(`closing session ${id}: idle for ${Math.round((now - live.lastSeen) / 1000)} s`);
        end(live, id);
      }
    },
    Math.min(60_000, Math.max(50, Math.floor(limits.idleTimeoutMs / 4))),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options.host, options.port)));
    http.listen(options.port, options.host, () => resolve());
  });
  http.on('error', (error) => options.log(`HTTP server error: ${error.message}`));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;

  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    close: async () => {
      clearInterval(sweep);
      for (const [id, live] of [...sessions]) end(live, id);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

function corsHeaders(origin: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
    'Access-Control-Expose-Headers': 'Mcp-Session-Id, WWW-Authenticate',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON-RPC error as the body, so MCP clients can show it. */
function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type ReadResult = { ok: true; value: unknown } | { ok: false; status: number; message: string; code: number };

/** How much of a refused body is read and dropped, so the client can read the 413 before the socket closes. */
const MAX_DRAIN_BYTES = 4 * MAX_BODY_BYTES;
const TOO_LARGE = { ok: false, status: 413, message: `Payload too large: at most ${MAX_BODY_BYTES} bytes`, code: -32600 } as const;

/**
 * The request body as JSON, within the size limit; never throws. A body over the limit, declared
 * (Content-Length) or found while reading (chunked), is refused with 413. The rest of a chunked
 * body is read and dropped (up to a bound, then the socket is closed): closing a socket with
 * unread data resets it, and the client would never see the answer.
 */
function readJson(req: IncomingMessage): Promise<ReadResult> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > MAX_BODY_BYTES + MAX_DRAIN_BYTES) req.socket.destroy();
        return;
      }
      if (size > MAX_BODY_BYTES) {
        refused = true;
        chunks.length = 0;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => resolve({ ok: false, status: 400, message: 'Bad request: the body could not be read', code: -32700 }));
    req.on('end', () => {
      if (refused) return;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      } catch {
        resolve({ ok: false, status: 400, message: 'Parse error: the body is not JSON', code: -32700 });
      }
    });
  });
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ToolmanError(ErrorCode.USAGE, `port ${port} on ${host} is already in use`, { hint: 'stop what is listening there, or choose another --port (0 picks a free one)' });
    case 'EACCES':
      return new ToolmanError(ErrorCode.USAGE, `not allowed to listen on port ${port}`, { hint: 'ports below 1024 need privileges; choose a port from 1024 up' });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ToolmanError(ErrorCode.USAGE, `--host ${host} is not an address of this machine`, { hint: 'use 127.0.0.1 (the default), or an address this machine has' });
    default:
      return new ToolmanError(ErrorCode.USAGE, `cannot listen on ${host}:${port}: ${error.message}`);
  }
}
