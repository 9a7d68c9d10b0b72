import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/catalog/types.js';
import { RunnerRegistry, ToolFailure, type AnyToolRunner, type RunContext } from '../../src/execute/runner.js';
import { stubRunners } from '../../src/testing/stub-runners.js';

/** Every kind of handler that reaches the world, MCP servers' tools included, is held in a suite's mock mode. */
describe('stub runners', () => {
  const ran: string[] = [];
  const live = (kind: 'exec' | 'mcp'): AnyToolRunner => ({ kind, run: async () => void ran.push(kind) }) as unknown as AnyToolRunner;
  const context = (name: string) => ({ tool: { name } as Tool, callId: 'c' }) as unknown as RunContext;

  it.each(['exec', 'mcp'] as const)('in mock mode a %s tool without a stub never runs', async (kind) => {
    const registry = stubRunners([], 'mock')(new RunnerRegistry([live(kind)]));
    await expect(registry.get(kind)!.run({ kind } as never, {}, context('t'))).rejects.toBeInstanceOf(ToolFailure);
    expect(ran).toEqual([]);
  });

  it('a stub answers an MCP tool in mock mode', async () => {
    const registry = stubRunners([{ tool: 't', result: { ok: 1 } }], 'mock')(new RunnerRegistry([live('mcp')]));
    expect(await registry.get('mcp')!.run({ kind: 'mcp' } as never, {}, context('t'))).toEqual({ ok: 1 });
    expect(ran).toEqual([]);
  });
});
