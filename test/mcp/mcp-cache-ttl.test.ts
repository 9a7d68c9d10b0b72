import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { serverLaunch } from '../../src/mcp/server-launch.js';
import { freshFor, STALE_AFTER_MS, ToolListCache } from '../../src/mcp/tool-list-cache.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { catalogDir, MODERN, NODE, scripted } from './helpers.js';

// A cached tool list is fresh while now < listed + ttlMs (MCP 2026-07-28,
// server/utilities/caching.mdx, read 2026-11-24); a 2025 server gives no hint, so a day.

const managers: ToolManager[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function open(file: string, dir: string, cache: string) {
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: cache } });
  managers.push(manager);
  return manager;
}

const modernEntry = (env: Record<string, string>) => `    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio]\n    env: ${JSON.stringify(env)}\n`;

describe('the freshness of a cached tool list', () => {
  it('follows a 2026-07-28 server\'s ttlMs: fresh within it, stale (TM0803, still used) past it', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-ttl-'));
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n${modernEntry({ TTL_MS: '60000', SCOPE: 'public' })}`);
    await (await open(file, dir, cache)).close();
    const fresh = await open(file, dir, cache);
    expect(fresh.mcpServers()[0]).toMatchObject({ source: 'cache', stale: false });
    expect((await fresh.validate()).filter((d) => d.code === 'TM0803')).toEqual([]);
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 2 * 60_000);
    const later = await open(file, dir, cache);
    expect(later.mcpServers()[0]).toMatchObject({ source: 'cache', stale: true });
    expect(later.catalog.tools.map((t) => t.name)).toContain('echo');
    const note = (await later.validate()).find((d) => d.code === 'TM0803');
    expect(note?.message).toContain("past the server's freshness hint (ttlMs 60000)");
  });

  it('takes a list without a hint (ttlMs 0, the v2 SDK\'s default) as stale at once', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-ttl-'));
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n${modernEntry({})}`);
    await (await open(file, dir, cache)).close();
    const next = await open(file, dir, cache);
    expect(next.mcpServers()[0]).toMatchObject({ source: 'cache', stale: true });
  });

  it('keeps a 2025 server\'s list fresh for a day', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-ttl-'));
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  s:\n${scripted('plain')}`);
    await (await open(file, dir, cache)).close();
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 23 * 3600_000);
    expect((await open(file, dir, cache)).mcpServers()[0]).toMatchObject({ source: 'cache', stale: false });
    vi.spyOn(Date, 'now').mockReturnValue(now + 25 * 3600_000);
    expect((await open(file, dir, cache)).mcpServers()[0]).toMatchObject({ source: 'cache', stale: true });
  });

  it('caps a hint at a day, as the SDK does', () => {
    expect(freshFor({ ttlMs: 7 * 24 * 3600_000 })).toBe(STALE_AFTER_MS);
    expect(freshFor({})).toBe(STALE_AFTER_MS);
    expect(freshFor({ ttlMs: 5_000 })).toBe(5_000);
  });

  it('never reads a private list under another login; a public one is shared', () => {
    const cache = ToolListCache.from({ TOOLMAN_CACHE_DIR: mkdtempSync(join(tmpdir(), 'toolman-ttl-')), XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'toolman-state-')) })!;
    const launch = serverLaunch({ name: 'w', url: 'https://mcp.example.com/mcp', args: [], env: {}, headers: {} }, tmpdir(), {}, new SecretSet());
    cache.set(launch, { tools: [{ name: 'mine' }], ttlMs: 60_000, cacheScope: 'private' }, 'login-a');
    expect(cache.get(launch, 'login-a')?.tools).toEqual([{ name: 'mine' }]);
    expect(cache.get(launch, 'login-b')).toBeUndefined();
    expect(cache.get(launch)).toBeUndefined();
    cache.set(launch, { tools: [{ name: 'everyone' }], ttlMs: 60_000, cacheScope: 'public' }, 'login-a');
    expect(cache.get(launch, 'login-b')?.tools).toEqual([{ name: 'everyone' }]);
  });
});
