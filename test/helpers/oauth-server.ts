import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, Server as McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

/**
 * An OAuth 2.1 authorization server and an MCP server it protects, on loopback, as MCP 2026-07-28
 * describes them (basic/authorization/*.mdx, read 2026-11-24): protected-resource metadata
 * (RFC 9728) named in the 401's WWW-Authenticate, authorization-server metadata (RFC 8414) with
 * or without a path in the issuer, registration by Client ID Metadata Document, by DCR (RFC 7591)
 * or beforehand, the authorization code flow with PKCE S256 and `state`, `iss` in the answer
 * (RFC 9207; or a wrong one, or none), the `resource` parameter (RFC 8707) checked at the token
 * endpoint, refresh tokens rotated on use, and a tool that needs a scope the first login lacks
 * (403 insufficient_scope: step-up). The authorization endpoint approves at once (no page): the
 * "browser" only follows its redirect. Every request is recorded.
 */
export interface OAuthServersOptions {
  /** How a client may register: by CIMD, by DCR, or only beforehand (client `pre-client`, secret `pre-secret`). */
  registration?: 'cimd' | 'dcr' | 'pre';
  /** `supported`: iss sent and advertised; `not-advertised`: neither; `wrong`: another issuer sent; `missing`: advertised, not sent. */
  iss?: 'supported' | 'not-advertised' | 'wrong' | 'missing';
  /** A path in the issuer (`/tenant`): its metadata is at /.well-known/oauth-authorization-server/tenant. */
  issuerPath?: string;
  /** The scope the 401 names (default `read`). */
  challengeScope?: string;
  /** `write_note` needs this scope too (default `write`); a token without it gets 403 insufficient_scope. */
  stepUpScope?: string;
  /** Access tokens expire after this many seconds (default an hour). */
  tokenSeconds?: number;
}

export interface OAuthServers {
  /** The protected MCP endpoint. */
  mcpUrl: string;
  issuer: string;
  /** Every request to either server: method and path (query dropped), for assertions. */
  requests: { server: 'as' | 'mcp'; method: string; path: string; query: Record<string, string>; body?: Record<string, string>; authorization?: string }[];
  /** Every access token issued, with what it allows. */
  tokens: Map<string, { scope: string; resource: string; clientId: string; expires: number }>;
  /** Every client registered (DCR), by id. */
  clients: Map<string, Record<string, unknown>>;
  /** Makes every access token expire now (a refresh must follow). */
  expireAll(): void;
  close(): Promise<void>;
}

export async function startOAuthServers(options: OAuthServersOptions = {}): Promise<OAuthServers> {
  const registration = options.registration ?? 'dcr';
  const iss = options.iss ?? 'supported';
  const challengeScope = options.challengeScope ?? 'read';
  const stepUpScope = options.stepUpScope ?? 'write';
  const requests: OAuthServers['requests'] = [];
  const tokens: OAuthServers['tokens'] = new Map();
  const refreshTokens = new Map<string, { scope: string; resource: string; clientId: string }>();
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; scope: string; resource: string }>();
  const clients = new Map<string, Record<string, unknown>>();
  if (registration === 'pre') clients.set('pre-client', { client_id: 'pre-client', client_secret: 'pre-secret', redirect_uris: [] });

  // --- the authorization server ---
  const as = createServer((req, res) => void handleAs(req, res));
  await listen(as);
  const asOrigin = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
  const issuer = `${asOrigin}${options.issuerPath ?? ''}`;
  const metadataPath = `/.well-known/oauth-authorization-server${options.issuerPath ?? ''}`;
  const metadata = () => ({
    issuer,
    authorization_endpoint: `${asOrigin}/authorize`,
    token_endpoint: `${asOrigin}/token`,
    ...(registration === 'dcr' ? { registration_endpoint: `${asOrigin}/register` } : {}),
    ...(registration === 'cimd' ? { client_id_metadata_document_supported: true } : {}),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [challengeScope, stepUpScope],
    ...(iss === 'supported' || iss === 'missing' || iss === 'wrong' ? { authorization_response_iss_parameter_supported: true } : {}),
  });

  async function handleAs(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', asOrigin);
    const text = req.method === 'POST' ? await read(req) : '';
    const isJson = (req.headers['content-type'] ?? '').includes('json');
    const body = req.method === 'POST' && !isJson ? Object.fromEntries(new URLSearchParams(text)) : undefined;
    requests.push({ server: 'as', method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), ...(body ? { body } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (url.pathname === metadataPath) return json(res, 200, metadata());
    if (url.pathname === '/register' && registration === 'dcr' && req.method === 'POST') {
      const raw = JSON.parse(text || '{}') as Record<string, unknown>;
      const id = `dcr-${randomBytes(6).toString('hex')}`;
      const client = { ...raw, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) };
      clients.set(id, client);
      return json(res, 201, client);
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      const q = url.searchParams;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      const known = clients.has(clientId) || (registration === 'cimd' && /^https:\/\/[^/]+\/.+/.test(clientId));
      if (!known || !/^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(redirectUri) || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state') || q.get('response_type') !== 'code') {
        return json(res, 400, { error: 'invalid_request', seen: Object.fromEntries(q) });
      }
      const code = randomBytes(16).toString('hex');
      codes.set(code, { clientId, redirectUri, challenge: q.get('code_challenge')!, scope: q.get('scope') ?? '', resource: q.get('resource') ?? '' });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      if (iss === 'supported') back.searchParams.set('iss', issuer);
      if (iss === 'wrong') back.searchParams.set('iss', 'https://evil.example');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST' && body) {
      const basic = req.headers.authorization?.startsWith('Basic ') ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString().split(':').map(decodeURIComponent) : undefined;
      const clientId = basic?.[0] ?? body.client_id ?? '';
      const secret = basic?.[1] ?? body.client_secret;
      const known = clients.get(clientId);
      if (known?.client_secret !== undefined && known.client_secret !== secret) return json(res, 401, { error: 'invalid_client' });
      if (body.grant_type === 'authorization_code') {
        const grant = codes.get(body.code ?? '');
        codes.delete(body.code ?? '');
        const challenge = createHash('sha256').update(body.code_verifier ?? '').digest('base64url');
        if (!grant || grant.clientId !== clientId || grant.redirectUri !== body.redirect_uri || grant.challenge !== challenge || grant.resource !== (body.resource ?? '')) return json(res, 400, { error: 'invalid_grant' });
        return json(res, 200, issue(grant.scope, grant.resource, clientId));
      }
      if (body.grant_type === 'refresh_token') {
        const grant = refreshTokens.get(body.refresh_token ?? '');
        // Rotated: a refresh token works once.
        refreshTokens.delete(body.refresh_token ?? '');
        if (!grant || grant.clientId !== clientId) return json(res, 400, { error: 'invalid_grant' });
        return json(res, 200, issue(grant.scope, grant.resource, clientId));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    json(res, 404, { error: 'not_found' });
  }

  function issue(scope: string, resource: string, clientId: string) {
    const access = `at-${randomBytes(16).toString('hex')}`;
    const refresh = `rt-${randomBytes(16).toString('hex')}`;
    tokens.set(access, { scope, resource, clientId, expires: Date.now() + (options.tokenSeconds ?? 3600) * 1000 });
    refreshTokens.set(refresh, { scope, resource, clientId });
    return { access_token: access, token_type: 'Bearer', expires_in: options.tokenSeconds ?? 3600, refresh_token: refresh, scope };
  }

  // --- the protected MCP server ---
  const build = () => {
    const server = new McpServer({ name: 'protected-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        { name: 'whoami', description: 'Says which client the token was issued to.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
        { name: 'write_note', description: 'Needs the write scope, which the first login does not have.', inputSchema: { type: 'object', properties: {} }, annotations: { destructiveHint: false } },
      ],
    }));
    server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: request.params.name === 'whoami' ? 'you are signed in' : 'note written' }] }));
    return server;
  };
  const handler = toNodeHandler(createMcpHandler(build));
  const mcp = createServer((req, res) => void handleMcp(req, res));
  await listen(mcp);
  const mcpOrigin = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}`;
  const mcpUrl = `${mcpOrigin}/mcp`;
  const prmUrl = `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', mcpOrigin);
    const text = req.method === 'POST' ? await read(req) : '';
    requests.push({ server: 'mcp', method: req.method ?? '', path: url.pathname, query: {}, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: [challengeScope, stepUpScope], bearer_methods_supported: ['header'] });
    if (url.pathname !== '/mcp') return json(res, 404, {});
    const token = req.headers.authorization?.startsWith('Bearer ') ? tokens.get(req.headers.authorization.slice(7)) : undefined;
    if (!token || token.expires < Date.now() || token.resource !== mcpUrl) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${prmUrl}", scope="${challengeScope}"`, 'content-type': 'application/json' }).end('{}');
      return;
    }
    let parsed: { method?: string; params?: { name?: string } } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    if (parsed?.method === 'tools/call' && parsed.params?.name === 'write_note' && !token.scope.split(' ').includes(stepUpScope)) {
      res.writeHead(403, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${challengeScope} ${stepUpScope}", resource_metadata="${prmUrl}"`, 'content-type': 'application/json' }).end('{}');
      return;
    }
    await handler(req, res, parsed);
  }

  return {
    mcpUrl,
    issuer,
    requests,
    tokens,
    clients,
    expireAll: () => {
      for (const token of tokens.values()) token.expires = 0;
    },
    close: async () => {
      await Promise.all([as, mcp].map((server) => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))));
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(value));
}

/**
 * The browser, as the conformance suite's client harness does it: GET the authorization page
 * without following redirects, then GET where it points (the loopback callback). Returns where it went.
 */
export async function fakeBrowser(url: string): Promise<{ authorize: number; callback?: number; location?: string }> {
  const page = await fetch(url, { redirect: 'manual' });
  const location = page.headers.get('location') ?? undefined;
  if (!location) return { authorize: page.status };
  const back = await fetch(location);
  await back.text();
  return { authorize: page.status, callback: back.status, location };
}
