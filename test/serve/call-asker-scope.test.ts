import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Handler, Tool } from '../../src/catalog/types.js';
import { mayBeAsked } from '../../src/manager/mcp-client.js';
import { connectHttp, textOf } from './serve-client.js';
import { connectModern } from './modern-client.js';
import { serveInProcess, type InProcessServer } from './serve-in-process.js';

// serve runs a call inside an async context holding its asker (where an upstream MCP server's
// question goes) only when the call can reach an MCP server: on Node 20 the first
// AsyncLocalStorage.run turns on async hooks for every promise of the process (issue 24). That
// MCP tools still get their asker is held by serve-relay.test.ts (both eras, both server eras).

const tool = (handler: Handler | undefined): Tool => ({ name: 't', ...(handler ? { handler } : {}) }) as unknown as Tool;

describe('mayBeAsked', () => {
  it('is false for handlers that never reach an MCP server, true for those that may (and for what it does not know)', () => {
    expect(mayBeAsked(tool({ kind: 'mock', cases: [] }))).toBe(false);
    for (const kind of ['exec', 'http', 'module', 'plugin'] as const) expect(mayBeAsked(tool({ kind } as unknown as Handler))).toBe(false);
    expect(mayBeAsked(tool({ kind: 'mcp', server: 's', tool: 't' }))).toBe(true);
    expect(mayBeAsked(tool({ kind: 'agent', agent: 'a' }))).toBe(true);
    expect(mayBeAsked(tool({ kind: 'meta' }))).toBe(true);
    expect(mayBeAsked(tool({ kind: 'some-future-kind' } as unknown as Handler))).toBe(true);
  });
});

describe('serve calls a mock tool without an async context for its asker', () => {
  let served: InProcessServer;
  beforeAll(async () => {
    served = await serveInProcess();
  }, 30_000);
  afterAll(async () => {
    await served?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The AsyncLocalStorage runs whose store is an asker (a function) while `work` runs. */
  async function askerScopes(work: () => Promise<void>): Promise<number> {
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    await work();
    return run.mock.calls.filter(([store]) => typeof store === 'function').length;
  }

  it.each([
    ['2025-11-25 (a session)', connectHttp],
    ['2026-07-28 (stateless)', connectModern],
  ])('%s', async (_era, connect) => {
    const { client } = await connect(served.url);
    try {
      const scopes = await askerScopes(async () => {
        expect(textOf(await client.callTool({ name: 'lookup', arguments: { key: 'k1' } }))).toContain('"found":true');
      });
      expect(scopes).toBe(0);
    } finally {
      await client.close();
    }
  });
});
