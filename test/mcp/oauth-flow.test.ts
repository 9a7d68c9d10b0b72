import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { fakeBrowser, startOAuthServers, type OAuthServers, type OAuthServersOptions } from '../helpers/oauth-server.js';
import { catalogDir } from './helpers.js';

// OAuth for an HTTP server, end to end: toolman's provider on the SDK's flow against a loopback
// authorization server and the MCP server it protects (test/helpers/oauth-server.ts).

const servers: OAuthServers[] = [];
const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(options: OAuthServersOptions = {}, entry = '') {
  const oauth = await startOAuthServers(options);
  servers.push(oauth);
  const config = mkdtempSync(join(tmpdir(), 'toolman-oauth-'));
  const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  web:\n    url: ${JSON.stringify(oauth.mcpUrl)}\n${entry}`);
  const visits: { authorize: number; callback?: number; location?: string }[] = [];
  const open = async (extra: { login?: boolean; env?: Record<string, string> } = {}) => {
    const manager = await ToolManager.open({
      catalogs: [file],
      cwd: dir,
      env: { TOOLMAN_CACHE_DIR: 'off', TOOLMAN_CONFIG_DIR: config, ...extra.env },
      ...(extra.login ? { mcpAuth: { login: { open: async (url: string) => void visits.push(await fakeBrowser(url)) } } } : {}),
    });
    managers.push(manager);
    return manager;
  };
  return { oauth, config, open, visits };
}

async function call(manager: ToolManager, name: string) {
  const session = await manager.session({ approve: async () => 'approve' });
  return (await session.runTurn([{ id: '1', name, arguments: {} }])).responses[0]!;
}

describe('signing in to an MCP server with OAuth', () => {
  it('without a login, reports the server (TM0831) with the command that logs in, and opens nothing', async () => {
    const { open, visits, oauth } = await setUp();
    const manager = await open();
    const finding = manager.loaded.diagnostics.find((d) => d.code === 'TM0831');
    expect(finding?.message).toBe('mcp server "web": refused toolman\'s request (HTTP 401), and toolman holds no token for it');
    expect(finding?.hint).toBe('toolman mcp login web');
    expect(visits).toEqual([]);
    // Nothing was registered: no DCR before a login.
    expect(oauth.clients.size).toBe(0);
  });

  it('signs in through the browser (DCR, PKCE, state, iss, resource), keeps the tokens 0600, and the next run needs no browser', async () => {
    const { open, visits, oauth, config } = await setUp();
    const first = await open({ login: true });
    expect(first.catalog.tools.map((t) => t.name)).toEqual(['whoami', 'write_note']);
    expect(visits).toHaveLength(1);
    const authorize = oauth.requests.find((r) => r.path === '/authorize')!;
    expect(authorize.query).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', resource: oauth.mcpUrl, scope: 'read' });
    expect(authorize.query.state!.length).toBeGreaterThanOrEqual(40);
    expect(authorize.query.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const token = oauth.requests.find((r) => r.path === '/token')!;
    expect(token.body).toMatchObject({ grant_type: 'authorization_code', resource: oauth.mcpUrl, redirect_uri: authorize.query.redirect_uri });
    expect(oauth.clients.size).toBe(1);
    expect([...oauth.clients.values()][0]).toMatchObject({ application_type: 'native', client_name: 'toolman' });
    await first.close();
    // The store: one 0600 file in a 0700 folder, holding the tokens.
    const folder = join(config, 'oauth');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(statSync(join(folder, files[0]!)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(folder, files[0]!), 'utf8')).toContain(oauth.issuer);
    // A later command (no browser) uses the stored token.
    const second = await open();
    expect(second.loaded.diagnostics.filter((d) => d.code === 'TM0831')).toEqual([]);
    expect((await call(second, 'whoami')).content).toBe('you are signed in');
    expect(visits).toHaveLength(1);
  });

  it('refreshes an expired token (rotated) without a browser', async () => {
    const { open, visits, oauth } = await setUp();
    await (await open({ login: true })).close();
    oauth.expireAll();
    const manager = await open();
    expect((await call(manager, 'whoami')).content).toBe('you are signed in');
    expect(oauth.requests.filter((r) => r.path === '/token').map((r) => r.body?.grant_type)).toEqual(['authorization_code', 'refresh_token']);
    expect(visits).toHaveLength(1);
  });

  it('steps up for a scope the first login lacks: with --login the browser opens again, without it the call says to log in', async () => {
    const { open, visits, oauth } = await setUp();
    const plain = await open({ login: true });
    await plain.close();
    const noLogin = await open();
    const refused = await call(noLogin, 'write_note');
    expect(refused.ok).toBe(false);
    expect(refused.error).toContain('needs more scopes than toolman\'s login has');
    expect(refused.error).toContain('toolman mcp login web');
    await noLogin.close();
    const withLogin = await open({ login: true });
    expect((await call(withLogin, 'write_note')).content).toBe('note written');
    const scopes = oauth.requests.filter((r) => r.path === '/authorize').map((r) => r.query.scope);
    expect(scopes.at(-1)?.split(' ').sort()).toEqual(['read', 'write']);
    expect(visits.length).toBeGreaterThanOrEqual(2);
  });

  it('uses a Client ID Metadata Document when the authorization server supports it (no DCR)', async () => {
    const { open, oauth } = await setUp({ registration: 'cimd' }, '    oauth: { client_metadata_url: "https://toolman.example/client.json" }\n');
    const manager = await open({ login: true });
    expect(manager.catalog.tools).toHaveLength(2);
    expect(oauth.requests.find((r) => r.path === '/authorize')!.query.client_id).toBe('https://toolman.example/client.json');
    expect(oauth.requests.some((r) => r.path === '/register')).toBe(false);
  });

  it('uses a pre-registered client and its secret from the environment', async () => {
    const { open, oauth } = await setUp({ registration: 'pre' }, '    oauth: { client_id: pre-client, client_secret_env: WEB_SECRET }\n');
    const warned = vi.spyOn(console, 'warn');
    const manager = await open({ login: true, env: { WEB_SECRET: 'pre-secret' } });
    expect(manager.catalog.tools).toHaveLength(2);
    // The client is stamped with its issuer: the SDK has nothing to warn about (SEP-2352).
    expect(warned.mock.calls.flat().join('\n')).not.toContain('SEP-2352');
    warned.mockRestore();
    const token = oauth.requests.find((r) => r.path === '/token')!;
    expect(token.authorization ?? `client_secret=${token.body?.client_secret}`).toMatch(/^Basic |client_secret=pre-secret/);
  });

  it('finds an issuer with a path (RFC 8414 path insertion)', async () => {
    const { open, oauth } = await setUp({ issuerPath: '/tenant/one' });
    const manager = await open({ login: true });
    expect(manager.catalog.tools).toHaveLength(2);
    expect(oauth.requests.some((r) => r.path === '/.well-known/oauth-authorization-server/tenant/one')).toBe(true);
  });

  it('refuses an answer from another issuer (iss), never showing what it said', async () => {
    const { open, oauth } = await setUp({ iss: 'wrong' });
    const manager = await open({ login: true });
    const finding = manager.loaded.diagnostics.find((d) => d.code === 'TM0802');
    expect(finding?.message).toBe('mcp server "web": sign-in failed: the answer came from another authorization server than the one toolman asked (iss); it was not used');
    expect(finding?.message).not.toContain('evil.example');
    expect(oauth.requests.some((r) => r.path === '/token')).toBe(false);
  });

  it('refuses an answer without iss when the authorization server says it sends one', async () => {
    const { open, oauth } = await setUp({ iss: 'missing' });
    const manager = await open({ login: true });
    expect(manager.catalog.tools).toHaveLength(0);
    const finding = manager.loaded.diagnostics.find((d) => d.code === 'TM0802');
    expect(finding?.message).toBe('mcp server "web": sign-in failed: the answer does not say which authorization server sent it (no iss), though that server says it always does; it was not used');
    expect(oauth.requests.some((r) => r.path === '/token')).toBe(false);
  });
});
