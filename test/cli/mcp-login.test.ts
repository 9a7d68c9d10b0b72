import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeLibraryConsole } from '../../src/cli/library-console.js';
import { runBin, spawnBin } from '../helpers/cli.js';
import { fakeBrowser, startOAuthServers, type OAuthServers } from '../helpers/oauth-server.js';
import { ROOT } from '../helpers/paths.js';

// `toolman mcp login|logout` and `--login` from the built binary, with a "browser" that follows
// the sign-in page's redirect (test/helpers/fake-browser.mjs as $BROWSER).

const FAKE_BROWSER = join(ROOT, 'test', 'helpers', 'fake-browser.mjs');
let oauth: OAuthServers;
beforeAll(async () => {
  oauth = await startOAuthServers();
});
afterAll(() => oauth.close());

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-login-'));
  // `local`: a stdio server (it exits at once: only `mcp login` refusing it matters).
  writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1\nmcp_servers:\n  web:\n    url: ${JSON.stringify(oauth.mcpUrl)}\n  local:\n    command: ${JSON.stringify(process.execPath)}\n    args: [-e, "process.exit(0)"]\n`);
  const log = join(dir, 'browser.jsonl');
  const env = { TOOLMAN_CONFIG_DIR: join(dir, 'config'), TOOLMAN_CACHE_DIR: 'off', BROWSER: `${process.execPath} ${FAKE_BROWSER}`, FAKE_BROWSER_LOG: log };
  const visits = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);
  return { dir, env, visits };
}

describe('toolman mcp login', () => {
  it('signs in through $BROWSER, and later commands use the tokens; other commands never open a browser', async () => {
    const { dir, env, visits } = setUp();
    // Before: `list` says how to log in, and opens nothing.
    const before = await runBin(['list'], { cwd: dir, env });
    expect(before.stderr).toContain('MCP server "web" refused toolman\'s request (HTTP 401), and toolman holds no token for it');
    expect(before.stderr).toContain('toolman mcp login web');
    expect(visits()).toEqual([]);
    const login = await runBin(['mcp', 'login', 'web'], { cwd: dir, env });
    expect(login.stderr, login.stderr).toContain('is open in your browser');
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe(`logged in: MCP server "web" (${oauth.mcpUrl}) through ${oauth.issuer}; 2 tools\n`);
    expect(visits()).toEqual([expect.objectContaining({ status: 302, callback: 200 })]);
    // The callback page echoes nothing from the answer.
    expect(String(visits()[0]!.page)).not.toContain('code');
    const call = await runBin(['call', 'whoami'], { cwd: dir, env });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('you are signed in');
    expect(visits()).toHaveLength(1);
    // Logged out: the next command says to log in again.
    const logout = await runBin(['mcp', 'logout', 'web'], { cwd: dir, env });
    expect(logout.stdout).toBe(`logged out: tokens of ${oauth.issuer} forgotten\n`);
    const after = await runBin(['call', 'whoami'], { cwd: dir, env });
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('toolman mcp login web');
  });

  it('prints the page when there is no $BROWSER, and waits for the answer', async () => {
    const { dir, env } = setUp();
    const run = spawnBin(['mcp', 'login', 'web', '--json'], { cwd: dir, env: { ...env, BROWSER: '' } });
    const printed = await waitForUrl(run.child);
    expect(printed).toContain('/authorize?');
    // The user opens it: here, the test's own browser step.
    await fakeBrowser(printed);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, server: 'web', issuer: oauth.issuer, tools: 2 });
  });

  it('signs in with --login on mcp call --url, and says how to without it', async () => {
    const { dir, env, visits } = setUp();
    const without = await runBin(['mcp', 'tools', '--url', oauth.mcpUrl], { cwd: dir, env });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(`run again with --login, or: toolman mcp login --url ${oauth.mcpUrl}`);
    expect(visits()).toEqual([]);
    const withLogin = await runBin(['mcp', 'call', 'whoami', '--url', oauth.mcpUrl, '--login', '--yes'], { cwd: dir, env });
    expect(withLogin.code, withLogin.stderr).toBe(0);
    expect(withLogin.stdout).toContain('you are signed in');
    expect(visits()).toHaveLength(1);
  });

  it('runs $BROWSER without a shell: its words are arguments, never commands', async () => {
    const { dir, env } = setUp();
    const marker = join(dir, 'pwned');
    const run = spawnBin(['mcp', 'login', 'web'], { cwd: dir, env: { ...env, BROWSER: `${process.execPath} ${FAKE_BROWSER}; touch ${marker}` } });
    // The browser gets "...;", "touch", the marker path and the URL as arguments: it opens nothing, touches nothing.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    run.kill('SIGINT');
    await run.done;
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a stdio server, an unknown name, and NAME with --url', async () => {
    const { dir, env } = setUp();
    const stdio = await runBin(['mcp', 'login', 'local'], { cwd: dir, env });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('MCP server "local" is a stdio server: it takes its credentials from its environment');
    const unknown = await runBin(['mcp', 'login', 'wev'], { cwd: dir, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('the catalog has no MCP server "wev"; did you mean web?');
    const both = await runBin(['mcp', 'login', 'web', '--url', oauth.mcpUrl], { cwd: dir, env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give NAME or --url, not both');
  });
});

/** The sign-in URL toolman printed on stderr (the line after "open this page to sign in"). */
function waitForUrl(child: { stderr: NodeJS.ReadableStream | null }): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${seen}`)), 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk;
      const match = /\n {2}(http:\/\/\S+)\n/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
}

describe('the MCP SDK\'s console lines', () => {
  it('become cleaned notes on stderr; nothing of the SDK reaches stdout; other lines pass', () => {
    const out: string[] = [];
    const err: string[] = [];
    const passed: unknown[][] = [];
    const fake = { log: (...a: unknown[]) => passed.push(a), info: (...a: unknown[]) => passed.push(a), warn: (...a: unknown[]) => passed.push(a), error: (...a: unknown[]) => passed.push(a), debug: (...a: unknown[]) => passed.push(a) } as unknown as Console;
    const restore = routeLibraryConsole({ stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, cwd: '/', env: {} }, fake);
    fake.warn('[mcp-sdk] Could not refresh OAuth tokens; \u001b[2Jfalling back');
    fake.debug('Client.listTools() called but server does not advertise tools capability - returning empty list');
    fake.log('something else');
    restore();
    expect(out).toEqual([]);
    expect(err).toEqual(['toolman: note: MCP SDK: Could not refresh OAuth tokens; falling back\n', 'toolman: note: Client.listTools() called but server does not advertise tools capability - returning empty list\n']);
    expect(passed).toEqual([['something else']]);
  });
});
