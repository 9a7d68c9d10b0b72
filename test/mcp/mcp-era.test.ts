import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpConnection } from '../../src/mcp/mcp-connection.js';
import { serverLaunch } from '../../src/mcp/server-launch.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { McpProtocolChoice } from '../../src/catalog/types.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { catalogDir, EVERYTHING, FILESYSTEM, MODERN, NODE, scripted, SERVERS, startModernHttp } from './helpers.js';

// Both SDK generations, as npm ships them and as the SDK's v2 builds them: the official reference
// servers (server-everything and server-filesystem 2026.8.31, on the v1 SDK: 2025-11-25 only) and
// the v2 fixture (test/fixtures/mcp/servers/modern-server.mjs, 2026-07-28 and, unless
// --modern-only, 2025-11-25 too).

const open: McpConnection[] = [];
const stops: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => stops.forEach((stop) => stop()));

function stdio(command: string, args: string[], protocol: McpProtocolChoice = 'auto', env: Record<string, string> = {}) {
  return serverLaunch({ name: 'test', command, args, env, headers: {}, protocol, timeoutMs: 15_000 }, tmpdir(), process.env, new SecretSet());
}

async function connect(launch: ReturnType<typeof stdio>, verdict?: Parameters<typeof McpConnection.open>[1]['verdict']) {
  const connection = await McpConnection.open(launch, { secrets: new SecretSet(), ...(verdict ? { verdict } : {}) });
  open.push(connection);
  return connection;
}

describe('the era of a server, found by asking (MCP 2026-07-28 basic/versioning.mdx)', () => {
  it('speaks 2025-11-25 with the reference servers of the v1 SDK (they answer server/discover with -32601)', async () => {
    const everything = await connect(stdio(EVERYTHING, []));
    expect([everything.era, everything.protocolVersion]).toEqual(['legacy', '2025-11-25']);
    expect((await everything.listTools()).map((t) => t.name)).toContain('get-sum');
    const sum = await everything.callTool('get-sum', { a: 2, b: 3 }, { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(JSON.stringify(sum.content)).toContain('5');
    const files = await connect(stdio(FILESYSTEM, [tmpdir()]));
    expect(files.era).toBe('legacy');
    expect((await files.listTools()).map((t) => t.name)).toContain('list_directory');
  });

  it('speaks 2026-07-28 with a v2 server over stdio, and takes its name from server/discover', async () => {
    for (const args of [['stdio'], ['stdio', '--modern-only']]) {
      const connection = await connect(stdio(NODE, [MODERN, ...args]));
      expect([connection.era, connection.protocolVersion]).toEqual(['modern', '2026-07-28']);
      expect(connection.serverInfo).toEqual({ name: 'modern-fixture', version: '2.0.0' });
      expect(connection.verdict).toMatchObject({ era: 'modern', version: '2026-07-28', discover: { supportedVersions: ['2026-07-28'] } });
      const tools = await connection.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      expect(connection.listHints).toEqual({ ttlMs: 0, cacheScope: 'private' });
      const echo = await connection.callTool('echo', { text: 'hi' }, { signal: new AbortController().signal, timeoutMs: 10_000 });
      expect(echo.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    }
  });

  it('speaks 2026-07-28 with a v2 server over streamable HTTP, and 2025-11-25 when told to', async () => {
    const server = await startModernHttp();
    stops.push(server.stop);
    const http = (protocol: McpProtocolChoice) => serverLaunch({ name: 'web', url: server.url, args: [], env: {}, headers: {}, protocol, timeoutMs: 10_000 }, tmpdir(), process.env, new SecretSet());
    const modern = await connect(http('auto'));
    expect(modern.era).toBe('modern');
    expect((await modern.listTools()).length).toBeGreaterThan(3);
    const legacy = await connect(http('legacy'));
    expect([legacy.era, legacy.protocolVersion]).toEqual(['legacy', '2025-11-25']);
    expect((await legacy.callTool('echo', { text: 'old' }, { signal: new AbortController().signal, timeoutMs: 10_000 })).content).toEqual([{ type: 'text', text: 'echo: old' }]);
  });

  it('fails clearly when the entry pins 2026-07-28 and the server is older, and when it pins legacy and the server is newer', async () => {
    const pinned = await McpConnection.open(stdio(EVERYTHING, [], '2026-07-28'), { secrets: new SecretSet() }).catch((e: Error) => e);
    expect((pinned as Error).message).toMatch(/failed to start: .*pinned protocol version 2026-07-28/);
    const old = await McpConnection.open(stdio(NODE, [MODERN, 'stdio', '--modern-only'], 'legacy'), { secrets: new SecretSet() }).catch((e: Error) => e);
    expect(old).toBeInstanceOf(Error);
    expect((old as Error).message).toContain('failed to start');
  });

  it('starts a server that exits on the probe again, as a 2025 server (rmcp servers exit on a request before initialize)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-era-'));
    const starts = join(dir, 'starts');
    const connection = await connect(stdio(NODE, [join(SERVERS, 'scripted-server.mjs'), 'exit-before-init'], 'auto', { STARTS_FILE: starts }));
    expect(connection.era).toBe('legacy');
    expect((await connection.listTools()).map((t) => t.name)).toContain('say');
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('takes a server that ignores the probe for a 2025 server once the probe times out (3 s on stdio)', async () => {
    const started = Date.now();
    const connection = await connect(stdio(NODE, [join(SERVERS, 'scripted-server.mjs'), 'silent-probe']));
    expect(connection.era).toBe('legacy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it('skips the probe with a 2025 verdict, and sends initialize first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-era-'));
    const methods = join(dir, 'methods');
    await connect(stdio(NODE, [join(SERVERS, 'scripted-server.mjs'), 'plain'], 'auto', { METHODS_FILE: methods }), { era: 'legacy' });
    expect(readFileSync(methods, 'utf8').split('\n')[0]).toBe('initialize');
  });
});

describe('the verdict kept with the cached tool list', () => {
  it('probes a server once: the next start of a 2025 server goes straight to initialize; --refresh probes again', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-era-cache-'));
    const methods = join(cache, 'methods');
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  s:\n${scripted('plain', `    env: { METHODS_FILE: ${JSON.stringify(methods)} }\n`)}`);
    const env = { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: cache };
    const first = await ToolManager.open({ catalogs: [file], cwd: dir, env });
    await first.close();
    expect(readFileSync(methods, 'utf8').split('\n').filter(Boolean).slice(0, 2)).toEqual(['server/discover', 'initialize']);
    // The list is cached: a call starts the server, with the cached verdict.
    const second = await ToolManager.open({ catalogs: [file], cwd: dir, env });
    try {
      const session = await second.session({ approve: async () => 'approve' });
      const [said] = (await session.runTurn([{ id: '1', name: 'say', arguments: { text: 'again' } }])).responses;
      expect(said!.content).toContain('said: again');
    } finally {
      await second.close();
    }
    const lines = readFileSync(methods, 'utf8').split('\n').filter(Boolean);
    const secondStart = lines.slice(lines.lastIndexOf('initialize') - 1);
    expect(secondStart[0]).not.toBe('server/discover');
    const third = await ToolManager.open({ catalogs: [file], cwd: dir, env, refreshMcp: true });
    await third.close();
    expect(readFileSync(methods, 'utf8').split('\n').filter(Boolean).filter((m) => m === 'server/discover')).toHaveLength(2);
  });

  it('keeps a v2 server\'s era and discover result with its list', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-era-cache-'));
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio]\n`);
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: cache } });
    await manager.close();
    const { readdirSync } = await import('node:fs');
    const entry = readdirSync(join(cache, 'mcp-tools')).find((f) => f.endsWith('.json'))!;
    const stored = readFileSync(join(cache, 'mcp-tools', entry), 'utf8');
    expect(stored).toContain('"era":"modern"');
    expect(stored).toContain('"protocol_version":"2026-07-28"');
    expect(stored).toContain('"server_info":{"name":"modern-fixture","version":"2.0.0"}');
    expect(stored).toContain('"ttl_ms":0');
  });
});

describe('tool changes from a 2026-07-28 server', () => {
  it('arrive on a subscriptions/listen stream while a chat watches (there is no unsolicited list_changed in this era)', async () => {
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio, --modern-only]\n`);
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
    try {
      const changes: unknown[] = [];
      manager.watchMcpServers((change) => changes.push(change));
      const session = await manager.session({ approve: async () => 'approve' });
      const [added] = (await session.runTurn([{ id: '1', name: 'add_tool', arguments: { name: 'brand_new' } }])).responses;
      expect(added!.ok, added!.error ?? '').toBe(true);
      const { vi } = await import('vitest');
      await vi.waitFor(() => expect(changes).toEqual([expect.objectContaining({ server: 'm', added: ['brand_new'] })]), { timeout: 5_000 });
      expect(manager.tool('brand_new').source).toMatchObject({ kind: 'mcp', server: 'm' });
    } finally {
      await manager.close();
    }
  });
});
