import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAuthServer } from '../helpers/auth-server.js';
import { runBin } from '../helpers/cli.js';
import { alive } from '../helpers/process-alive.js';
import { SERVE_CATALOG, spawnServe, startHttp, waitUntil } from '../serve/serve-client.js';

const catalog = ['--catalog', SERVE_CATALOG];

/** JSON-RPC lines a client would send over stdio. */
const line = (message: object) => JSON.stringify(message) + '\n';
const handshake =
  line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) +
  line({ jsonrpc: '2.0', method: 'notifications/initialized' });

describe('toolman serve: options', () => {
  it.each([
    [['--port', 'abc'], /--port must be a port number/],
    [['--port', '70000'], /--port must be a port number/],
    [['--host', '127.0.0.1'], /--host needs --port/],
    [['--token-env', 'X'], /--token-env needs --port/],
    [['--port', '0', '--host', '0.0.0.0'], /would let other machines call the catalog's tools, and no token protects it.*\n.*--auth-issuer URL/],
    [['--port', '0', '--token-env', 'SERVE_TEST_UNSET_VARIABLE'], /the variable is not set or empty/],
    [['--port', '0', '--token-env', 'not a name'], /takes the name of an environment variable/],
    [['--profile', 'nope'], /profile/i],
    [['--search-mode', 'magic'], /invalid/],
    [['--auth-issuer', 'https://as.example'], /--auth-issuer needs --port/],
    [['--port', '0', '--auth-scope', 'mcp'], /--auth-scope needs --auth-issuer/],
    [['--port', '0', '--public-url', 'https://x.example/mcp'], /--public-url needs --auth-issuer/],
    [['--port', '0', '--auth-issuer', 'https://as.example', '--auth-scope', 'offline_access'], /offline_access: that scope asks the authorization server for a refresh token/],
    [['--port', '0', '--auth-issuer', 'http://as.example.com'], /--auth-issuer must be an https URL \(http only on this machine\)/],
    [['--port', '0', '--auth-issuer', 'http://127.0.0.1:1'], /no authorization server metadata found/],
    [['--port', '0', '--auth-issuer', 'http://127.0.0.1:1', '--public-url', 'ftp://x'], /--public-url must be an http\(s\) URL/],
    [['--port', '0', '--host', '0.0.0.0', '--token-env', 'SERVE_TEST_UNSET_VARIABLE'], /the variable is not set or empty/],
    [['--port', '0', '--token-env', 'HOME', '--auth-issuer', 'https://as.example'], /--token-env and --auth-issuer: choose one/],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const run = await runBin([...catalog, 'serve', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('refuses a catalog with errors (exit 1) before serving', async () => {
    const run = await runBin(['--catalog', 'test/fixtures/catalogs/authoring/mistakes.yaml', 'serve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the catalog has \d+ errors/);
    expect(run.stdout).toBe('');
  });

  it('says so when the port is in use (exit 2)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await runBin([...catalog, 'serve', '--port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    } finally {
      blocker.close();
    }
  });

  it('has help text', async () => {
    const run = await runBin(['serve', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--token-env/);
    expect(run.stdout).toMatch(/Standard output carries only MCP messages/);
  });
});

describe('toolman serve --auth-issuer (the built binary)', () => {
  it('publishes its metadata, refuses requests without a token of that server and serves one with it', async () => {
    const as = await startAuthServer();
    const served = await startHttp(['--auth-issuer', as.issuer, '--auth-scope', 'mcp']);
    try {
      expect(served.stderr()).toMatch(/bearer token required: tokens of http:\/\/127\.0\.0\.1:\d+\)/);
      const prm = (await served.waitFor(/protected-resource metadata at (\S+);/))[1]!;
      expect(await (await fetch(prm)).json()).toMatchObject({ resource: served.url, authorization_servers: [as.issuer], scopes_supported: ['mcp'] });
      const refused = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${prm}"`);
      const token = await as.token({ aud: served.url });
      const init = await fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      expect(init.status).toBe(200);
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
      await as.close();
    }
  });
});

describe('toolman serve: the stdio stream and shutdown', () => {
  it('writes nothing but JSON-RPC to stdout, even when a handler prints, and exits 0 when stdin closes', async () => {
    const served = spawnServe([], { stdin: 'pipe' });
    served.child.stdin!.write(handshake);
    served.child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chatty_module', arguments: { word: 'raw' } } }));
    await waitUntil(() => served.stdout().includes('"id":1'));
    served.child.stdin!.end();
    const { code } = await served.done;
    expect(code).toBe(0);
    const messages = served.stdout().trim().split('\n').map((text) => JSON.parse(text) as { jsonrpc: string; id?: number; method?: string });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([0, 1]);
    expect(messages.some((m) => m.method === 'fake')).toBe(false);
    expect(served.stderr()).toMatch(/chatty says raw on stdout/);
    expect(served.stderr()).toMatch(/the client closed the connection; stopped/);
  });

  it('survives garbage on stdin', async () => {
    const served = spawnServe([], { stdin: 'pipe' });
    served.child.stdin!.write('this is not json\n{"jsonrpc": "2.0", "id": 5, "method": "no/such"}\n[1,2\n');
    served.child.stdin!.write(handshake);
    served.child.stdin!.write(line({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lookup', arguments: { key: 'still' } } }));
    await waitUntil(() => served.stdout().includes('"id":7'));
    served.child.stdin!.end();
    expect((await served.done).code).toBe(0);
    expect(served.stdout()).toContain('still');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('on %s, stops running calls and their programs, and exits 130', async (signal) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-serve-'));
    const pidFile = join(dir, 'pid');
    const served = spawnServe([], { stdin: 'pipe' });
    served.child.stdin!.write(handshake);
    served.child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold_pid', arguments: { file: pidFile } } }));
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0);
    const program = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(program)).toBe(true);
    served.child.kill(signal);
    const { code } = await served.done;
    expect(code).toBe(130);
    await waitUntil(() => !alive(program), 5_000);
  });

  it('over HTTP, stops on SIGTERM with exit 130', async () => {
    const served = await startHttp();
    served.child.kill('SIGTERM');
    expect((await served.done).code).toBe(130);
    expect(served.stderr()).toMatch(/stopped/);
  });
});
