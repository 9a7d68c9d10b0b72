import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { classifyInboundRequest, createMcpHandler, PROTOCOL_VERSION_META_KEY, type AuthInfo, type Server } from '@modelcontextprotocol/server';
import { isRecord } from '../shared/is-record.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { ServeLimits } from './call-slots.js';
import { header, MAX_BODY_BYTES, readJson, reply } from './http-body.js';
import { HttpGuard, type Refusal } from './http-guard.js';
import { LegacySessions, type OpenedSession } from './legacy-sessions.js';
import { parsedBodyHandler } from './parsed-body-handler.js';
import { errorLine } from './error-line.js';

export type { OpenedSession } from './legacy-sessions.js';

export const MCP_PATH = '/mcp';

/**
 * Who may call, beyond the static token: an authorization server's bearer tokens
 * (`--auth-issuer`, `bearer-auth.ts`). The host asks it for the documents it publishes and for
 * each request's caller.
 */
export interface RequestAuthorizer {
  /** Learns the endpoint's URL once the server listens (before any request is read). */
  bind?(url: string): void;
  /** A document this authorizer publishes at `path` (the protected-resource metadata), or undefined. */
  document(path: string): object | undefined;
  /** The verified caller, or the answer that refuses it (401 with a challenge, 403 for a missing scope). */
  authorize(authorization: string | undefined): Promise<{ ok: true; auth: AuthInfo } | { ok: false; refusal: Refusal }>;
}

/** What 2026-07-28 requests need from the server: an instance for one request, and the check of its `Mcp-Param-*` headers. */
export interface ModernEndpoint {
  server(auth: AuthInfo): Server;
  /** Why a `tools/call` body and its headers disagree (400, -32020), or undefined. */
  paramMismatch(body: unknown, headers: IncomingMessage['headers']): string | undefined;
}

export interface HttpHostOptions {
  host: string;
  port: number;
  token?: string;
  authorizer?: RequestAuthorizer;
  /** A 2025-11-25 session's server, for an `initialize`. */
  openSession(): Promise<OpenedSession>;
  modern: ModernEndpoint;
  log(line: string): void;
  /** Sessions kept (at the limit only an idle one makes room), body and idle timeouts. */
  limits: Pick<ServeLimits, 'maxSessions' | 'bodyTimeoutMs' | 'idleTimeoutMs'>;
}

export interface HttpHost {
  url: string;
  /** Tells every open `subscriptions/listen` stream that asked for it that a list changed. */
  listChanged(list: 'tools' | 'prompts' | 'resources'): void;
  close(): Promise<void>;
}

/** The caller of a request without a token or with the static one: nobody in particular. */
const ANONYMOUS: AuthInfo = { token: '', clientId: 'anonymous', scopes: [], extra: { principal: 'anonymous', authenticated: false } };
const ANONYMOUS_CALLER = { ok: true, auth: ANONYMOUS } as const;

/**
 * Streamable HTTP on Node's own HTTP server, one endpoint (`/mcp`) for both eras (spec
 * 2026-07-28 `basic/versioning.mdx`: a server may serve `initialize` sessions and per-request
 * `_meta` requests on one endpoint; read 2026-11-24). Every request passes the guard (Host and
 * Origin) and the caller check (the static token, or an authorization server's bearer token)
 * before its body is read. Then the SDK's own classifier decides the era: a 2025-11-25 request
 * (an `initialize`, or anything of an open session) goes to its session, on the SDK's sessionful
 * transport; everything else to the SDK's 2026-07-28 handler, which checks the `_meta` envelope,
 * the protocol version and the standard headers, and answers `server/discover` and
 * `subscriptions/listen`. GET and DELETE without a session get 405: this revision has neither.
 */
export async function listenHttp(options: HttpHostOptions): Promise<HttpHost> {
  const { limits } = options;
  const guard = new HttpGuard(options.host, options.token, options.token !== undefined || options.authorizer !== undefined);
  const legacy = new LegacySessions(options.openSession, limits, options.log);
  const modern = createMcpHandler(({ authInfo }) => options.modern.server(authInfo ?? ANONYMOUS), {
    legacy: 'reject',
    onerror: (error) => options.log(errorLine('protocol error', error)),
    // Listen streams hold a socket each: as many as sessions may be kept.
    maxSubscriptions: limits.maxSessions,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const modernNode = parsedBodyHandler(modern, (error) => options.log(errorLine('HTTP request failed', error)));

  const handle = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const foreign = guard.check(req.headers, true);
    if (foreign) return reply(res, foreign.status, foreign.message, foreign.headers);
    // Browser clients (the MCP Inspector's direct mode) need CORS; the guard has vetted the origin,
    // and a browser must be able to read a 401 to ask for the token.
    const origin = req.headers.origin;
    if (origin) for (const [name, value] of Object.entries(corsHeaders(origin, header(req, 'access-control-request-headers')))) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const published = options.authorizer?.document(path);
    if (published) {
      if (req.method !== 'GET') return reply(res, 405, 'Method not allowed', { Allow: 'GET, OPTIONS' });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
      return void res.end(JSON.stringify(published));
    }
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);

    const caller = await callerOf(req);
    if (!caller.ok) return reply(res, caller.refusal.status, caller.refusal.message, caller.refusal.headers);
    req.auth = caller.auth;
    const principal = String(caller.auth.extra?.principal);

    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') return reply(res, 405, 'Method not allowed', { Allow: 'GET, POST, DELETE, OPTIONS' });
    const sessionId = header(req, 'mcp-session-id');
    let body: unknown;
    if (req.method === 'POST') {
      const type = header(req, 'content-type') ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) return reply(res, 415, 'Unsupported Media Type: send Content-Type: application/json', undefined, -32000);
      const read = await readJson(req);
      if (!read.ok) return reply(res, read.status, read.message, undefined, read.code);
      body = read.value;
    }
    // A session's requests (its POSTs, the GET of its stream, the DELETE that ends it) are 2025-11-25 traffic.
    if (sessionId !== undefined && legacy.has(sessionId)) return legacy.handle(sessionId, req, res, body, principal);
    if (req.method !== 'POST') {
      if (sessionId !== undefined) return reply(res, 404, 'Session not found: start a new one with initialize', undefined, -32001);
      // 2026-07-28 has no GET stream and no sessions to delete (`streamable-http.mdx` §Backward Compatibility).
      return reply(res, 405, 'Method not allowed: POST a JSON-RPC request (a 2025-11-25 client sends initialize first)', { Allow: 'POST, OPTIONS' });
    }
    if (isLegacyPost(req, body)) {
      if (sessionId !== undefined) return reply(res, 404, 'Session not found: start a new one with initialize', undefined, -32001);
      const initializes = Array.isArray(body) ? body.some(isInitialize) : isInitialize(body);
      if (!initializes) return reply(res, 400, 'Bad request: no Mcp-Session-Id; send initialize first');
      return legacy.open(req, res, body, principal);
    }
    // A modern request: its custom headers against its arguments first (the SDK checks them only
    // for its high-level McpServer), then the SDK's handler. An Mcp-Session-Id is ignored there.
    const mismatch = options.modern.paramMismatch(body, req.headers);
    if (mismatch) return reply(res, 400, `Header mismatch: ${mismatch}`, undefined, -32020, requestId(body));
    await modernNode(req, res, body);
  };

  /** The request's caller: anonymous without credentials configured; with them, the static token or a verified bearer token. */
  async function callerOf(req: IncomingMessage): Promise<{ ok: true; auth: AuthInfo } | { ok: false; refusal: Refusal }> {
    if (options.token === undefined && !options.authorizer) return ANONYMOUS_CALLER;
    if (guard.tokenMatches(req.headers)) return ANONYMOUS_CALLER;
    if (options.authorizer) return options.authorizer.authorize(req.headers.authorization);
    return { ok: false, refusal: guard.check(req.headers)! };
  }

  // Node checks the request timeouts this often: often enough for the body timeout to mean what it says.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(50, Math.floor(limits.bodyTimeoutMs / 4)));
  const http = createServer({ connectionsCheckingInterval }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(errorLine('HTTP request failed', error));
      if (!res.headersSent) reply(res, 500, 'Internal server error', undefined, -32603);
      else res.end();
    });
  });
  // Slow or stuck clients must not hold sockets for ever: a request (headers and body) must arrive
  // within the body timeout, or Node answers 408 and closes the connection. Responses are not
  // bounded by it (an SSE stream of a call lasts as long as the call).
  http.requestTimeout = limits.bodyTimeoutMs;
  http.headersTimeout = Math.min(30_000, limits.bodyTimeoutMs);

  const url = await new Promise<string>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options.host, options.port)));
    http.listen(options.port, options.host, () => {
      const address = http.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}${MCP_PATH}`;
      // Here, before the first request can be read: the authorizer's audience and documents name this URL.
      options.authorizer?.bind?.(url);
      resolve(url);
    });
  });
  http.on('error', (error) => options.log(`HTTP server error: ${error.message}`));

  return {
    url,
    listChanged: (list) => (list === 'tools' ? modern.notify.toolsChanged() : list === 'prompts' ? modern.notify.promptsChanged() : modern.notify.resourcesChanged()),
    close: async () => {
      legacy.close();
      // Ends the listen streams gracefully (their result, then the close) and the modern calls still running.
      await modern.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The era of a POST whose body is parsed, decided by the SDK's own classifier: the step its
 * `isLegacyRequest` and `createMcpHandler` run on the method, the three standard headers and the
 * body (`classifyEntryRequest` in @modelcontextprotocol/server), called directly rather than
 * through `isLegacyRequest(toWebRequest(req))`, which builds a web `Request` (headers copied, the
 * body serialised again) for every request only to read those headers back: about a sixth of
 * what a 2026-07-28 call cost (issue 24). Headers sent twice are joined with ", " as a web
 * `Headers` would (Node does so for these names); the classifier trims them.
 */
export function isLegacyPost(req: Pick<IncomingMessage, 'headers'>, body: unknown): boolean {
  if (claimsEnvelope(body)) return false;
  const standard = (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const protocolVersionHeader = standard('mcp-protocol-version');
  const mcpMethodHeader = standard('mcp-method');
  const mcpNameHeader = standard('mcp-name');
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    ...(protocolVersionHeader !== undefined ? { protocolVersionHeader } : {}),
    ...(mcpMethodHeader !== undefined ? { mcpMethodHeader } : {}),
    ...(mcpNameHeader !== undefined ? { mcpNameHeader } : {}),
    ...(body !== undefined ? { body } : {}),
  });
  return outcome.kind === 'legacy';
}

/**
 * The common 2026-07-28 POST: one message, a request or a notification (a `method`, no `result`
 * or `error`), not `initialize`, whose `params._meta` holds the envelope's protocol-version key.
 * The classifier never calls such a body legacy: the claim makes it modern, or a rejection that
 * the modern handler (which classifies every request again) answers (`classifyRequestBody` and
 * `classifyNotificationBody` in @modelcontextprotocol/server 2.4). Its schema checks of the
 * message were about a thirtieth of a 2026-07-28 call's CPU here (issue 24).
 */
function claimsEnvelope(body: unknown): boolean {
  if (!isRecord(body) || typeof body.method !== 'string' || body.method === 'initialize' || 'result' in body || 'error' in body) return false;
  const meta = isRecord(body.params) ? body.params._meta : undefined;
  return isRecord(meta) && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY);
}

function isInitialize(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize' && 'id' in message;
}

function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function corsHeaders(origin: string, requested: string | undefined): Record<string, string> {
  // A tool's Mcp-Param-{Name} headers have names of its choosing, and CORS takes no pattern:
  // the ones a preflight asks for are allowed by name.
  const params = (requested ?? '').split(',').map((h) => h.trim()).filter((h) => /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/i.test(h)).slice(0, 32);
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    // 2026-07-28's standard request headers (`streamable-http.mdx` §Request Metadata), besides 2025's.
    'Access-Control-Allow-Headers': ['Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name', ...params].join(', '),
    'Access-Control-Expose-Headers': 'Mcp-Session-Id, WWW-Authenticate',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
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
