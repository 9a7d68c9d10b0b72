import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BearerAuth, metadataUrls } from '../../src/serve/bearer-auth.js';
import type { ServeLimits } from '../../src/serve/call-slots.js';
import { startAuthServer, type AuthServerOptions, type TestAuthServer } from '../helpers/auth-server.js';
import { connectModern, modernRequest } from './modern-client.js';
import { connectHttp } from './serve-client.js';
import { serveInProcess } from './serve-in-process.js';

/**
 * `toolman serve --port --auth-issuer`: an OAuth resource server in front of the catalog (spec
 * 2026-07-28 `basic/authorization/index.mdx`; RFC 9728). A small authorization server
 * (test/helpers/auth-server.ts) publishes its metadata and keys and mints tokens; the server runs
 * in this process.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function authServer(options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const as = await startAuthServer(options);
  cleanups.push(() => as.close());
  return as;
}

async function serve(as: TestAuthServer, options: { scopes?: string[]; audience?: string; publicUrl?: string; limits?: Partial<ServeLimits> } = {}) {
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);
  const authorizer = await BearerAuth.discover({ issuer: as.issuer, scopes: options.scopes ?? [], ...(options.audience ? { audience: options.audience } : {}), ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}), log });
  const running = await serveInProcess({ authorizer, ...(options.limits ? { limits: options.limits } : {}) });
  cleanups.push(() => running.close());
  return { url: running.url, authorizer, stderr: () => [...lines, running.stderr()].filter(Boolean).join('\n') };
}

describe('the protected resource', () => {
  it('publishes its metadata at the path-aware and the root well-known URLs, without a token', async () => {
    const as = await authServer();
    const served = await serve(as, { scopes: ['mcp', 'tools:call'] });
    const origin = new URL(served.url).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(origin + path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({ resource: served.url, authorization_servers: [as.issuer], scopes_supported: ['mcp', 'tools:call'] });
    }
    expect(served.authorizer.metadataUrl).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
  });

  it('answers a request without a token 401, naming its metadata and scopes', async () => {
    const as = await authServer();
    const served = await serve(as, { scopes: ['mcp'] });
    const res = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${served.authorizer.metadataUrl}"`);
    expect(challenge).toContain('scope="mcp"');
  });

  it('serves both eras to a valid token, and keeps each caller to itself', async () => {
    const as = await authServer();
    const served = await serve(as);
    const alice = await as.token({ aud: served.url, sub: 'alice' });
    const bob = await as.token({ aud: served.url, sub: 'bob' });
    const { client: v2 } = await connectModern(served.url, { token: alice });
    cleanups.push(() => v2.close());
    expect((await v2.callTool({ name: 'lookup', arguments: { key: 'o1' } })).structuredContent).toEqual({ key: 'o1', found: true });
    // Behind a token the list is private to it.
    expect((await modernRequest(served.url, 'tools/list', {}, { token: alice })).response?.result).toMatchObject({ cacheScope: 'private' });
    const { client: v1, transport } = await connectHttp(served.url, { token: alice });
    cleanups.push(() => (v1 as LegacyClient).close());
    expect((await v1.callTool({ name: 'lookup', arguments: { key: 'o2' } })).structuredContent).toEqual({ key: 'o2', found: true });
    // Alice's 2025 session is not Bob's, whatever he sends as its id.
    const stolen = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bob}`, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }) });
    expect(stolen.status).toBe(404);
  });

  it('offers "allow for this session" to a token\'s subject, remembers it for that subject alone, and refuses its state to another', async () => {
    const as = await authServer();
    const served = await serve(as);
    const alice = await as.token({ aud: served.url, sub: 'alice' });
    const bob = await as.token({ aud: served.url, sub: 'bob' });
    const { client, seen } = await connectModern(served.url, { token: alice, elicit: () => ({ action: 'accept', content: { always: true } }) });
    cleanups.push(() => (client as ModernClient).close());
    await client.callTool({ name: 'remove_record', arguments: { key: 'a1' } });
    expect(seen.elicitations[0]!.schema).toMatchObject({ properties: { always: { title: 'Allow for this session' } } });
    await client.callTool({ name: 'remove_record', arguments: { key: 'a2' } });
    expect(seen.elicitations).toHaveLength(1);
    // Bob is asked: what Alice allowed is hers.
    const caps = { elicitation: { form: {} } };
    const asked = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'b1' } }, { token: bob, capabilities: caps });
    expect(asked.response?.result?.resultType).toBe('input_required');
    // Alice's question, answered with Bob's token: the state is bound to Alice.
    const forAlice = await modernRequest(served.url, 'tools/call', { name: 'add_note', arguments: { text: 'x' } }, { token: alice, capabilities: caps });
    expect(forAlice.response?.result?.resultType).toBe('complete');
    const aliceAsked = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'z' } }, { token: await as.token({ aud: served.url, sub: 'carol' }), capabilities: caps });
    const state = (aliceAsked.response?.result as { requestState: string }).requestState;
    const replayed = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'z' }, requestState: state, inputResponses: { approval: { action: 'accept', content: {} } } }, { token: bob, capabilities: caps });
    expect(replayed.response?.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });
});

describe('principals are bounded like sessions', () => {
  it('keeps at most --max-sessions principals: a newcomer displaces only an idle one, and is busy when none is', async () => {
    const as = await authServer();
    const served = await serve(as, { limits: { maxSessions: 1 } });
    const token = (sub: string) => as.token({ aud: served.url, sub });
    const call = async (sub: string, name: string) => modernRequest(served.url, 'tools/call', { name, arguments: name === 'lookup' ? { key: sub } : {} }, { token: await token(sub) });
    expect((await call('alice', 'lookup')).response?.result).toMatchObject({ structuredContent: { key: 'alice' } });
    // Alice is idle: Bob takes her place.
    expect((await call('bob', 'lookup')).response?.result).toMatchObject({ structuredContent: { key: 'bob' } });
    expect(served.stderr()).toMatch(/dropping the state of the client idle longest \(http:\/\/127\.0\.0\.1:\d+\|alice\)/);
    // Bob has a call running: Carol is turned away.
    const bobs = call('bob', 'wait_long');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await call('carol', 'lookup')).response?.result).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'busy' } });
    void bobs.catch(() => undefined);
  });

  it('drops a principal idle past --idle-timeout (and what it allowed with it)', async () => {
    const as = await authServer();
    const served = await serve(as, { limits: { idleTimeoutMs: 100 } });
    await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url }) });
    await modernRequest(served.url, 'tools/call', { name: 'lookup', arguments: { key: 'a' } }, { token: await as.token({ aud: served.url }) });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(served.stderr()).toMatch(/dropping the state of http:\/\/127\.0\.0\.1:\d+\|alice: idle for/);
  });
});

describe('tokens it refuses (401 invalid_token)', () => {
  it.each([
    ['another audience', { aud: 'https://other.example/mcp' }, {}],
    ['no audience', { aud: null }, {}],
    ['another issuer', { iss: 'https://evil.example' }, {}],
    ['expired', { exp: Math.floor(Date.now() / 1000) - 120 }, {}],
    ['without exp', { exp: null }, {}],
    ['signed by a stranger', {}, { key: 'stranger' as const }],
    ['HS256 (a symmetric algorithm)', {}, { alg: 'HS256' }],
    ['unsigned (alg none)', {}, { alg: 'none' }],
    ['without a subject or client', { sub: null }, {}],
  ])('%s', async (_, claims, options) => {
    const as = await authServer();
    const served = await serve(as);
    const token = await as.token({ aud: served.url, ...claims }, options);
    const answer = await modernRequest(served.url, 'tools/list', {}, { token });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('accepts RS256 too, and a configured audience instead of the URL', async () => {
    const as = await authServer();
    const served = await serve(as, { audience: 'api://toolman' });
    expect((await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: 'api://toolman' }, { alg: 'RS256' }) })).status).toBe(200);
    expect((await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url }) })).status).toBe(401);
  });

  it('a token without a required scope gets 403 insufficient_scope, naming the scopes', async () => {
    const as = await authServer();
    const served = await serve(as, { scopes: ['mcp', 'tools:call'] });
    const answer = await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url, scope: 'mcp' }) });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="mcp tools:call"/);
    expect((await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url, scope: 'tools:call mcp extra' }) })).status).toBe(200);
    // scp as a list (some servers write it so) counts too.
    expect((await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url, scope: null, scp: ['mcp', 'tools:call'] }) })).status).toBe(200);
  });

  it('does not read a key set larger than it should be: a server error (not the token\'s fault), said on stderr, and it keeps serving', async () => {
    const as = await authServer({ jwksBytes: 400_000 });
    const served = await serve(as);
    const answer = await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url }) });
    expect(answer.status).toBe(500);
    expect(served.stderr()).toMatch(/could not read the authorization server's keys .*over 262144 bytes/);
    expect((await fetch(new URL(served.url).origin + '/.well-known/oauth-protected-resource')).status).toBe(200);
  });
});

describe('the authorization server\'s metadata', () => {
  it('finds it for an issuer with a path, at the OpenID Connect location too', async () => {
    expect(metadataUrls(new URL('https://as.example/tenant/')).map((u) => u.href)).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/tenant',
      'https://as.example/.well-known/openid-configuration/tenant',
      'https://as.example/tenant/.well-known/openid-configuration',
    ]);
    const as = await authServer({ path: '/tenant', oidcOnly: true });
    const served = await serve(as);
    expect((await modernRequest(served.url, 'tools/list', {}, { token: await as.token({ aud: served.url }) })).status).toBe(200);
  });

  it('refuses metadata that names another issuer, and an issuer in the clear', async () => {
    const as = await authServer({ claimIssuer: () => 'https://evil.example' });
    await expect(BearerAuth.discover({ issuer: as.issuer, scopes: [], log: () => undefined })).rejects.toThrow(/names the issuer "https:\/\/evil.example", not this one/);
    await expect(BearerAuth.discover({ issuer: 'http://as.example.com', scopes: [], log: () => undefined })).rejects.toThrow(/must be an https URL/);
    await expect(BearerAuth.discover({ issuer: 'http://127.0.0.1:1', scopes: [], log: () => undefined })).rejects.toThrow(/no authorization server metadata found/);
  });
});
