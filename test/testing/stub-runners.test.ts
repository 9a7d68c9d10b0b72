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

  it('a stub with yields answers a stateful tool, step by step, then its result', async () => {
    const signal = new AbortController().signal;
    const registry = stubRunners([{ tool: 't', yields: [{ file: '{{args.dir}}/a' }, { file: 'b' }], result: { passed: 2 } }], 'mock')(new RunnerRegistry([live('exec')]));
    const stream = registry.get('module')!.start!({ kind: 'module' } as never, { dir: 'src' }, { ...context('t'), signal } as RunContext);
    expect(await stream.next()).toEqual({ done: false, value: { file: 'src/a' } });
    expect(await stream.next()).toEqual({ done: false, value: { file: 'b' } });
    expect(await stream.next()).toEqual({ done: true, value: { passed: 2 } });
  });

  it('in mock mode a stateful plugin or module tool without a stub fails its first step and never runs', async () => {
    const signal = new AbortController().signal;
    const registry = stubRunners([], 'mock')(new RunnerRegistry([live('exec')]));
    for (const kind of ['module', 'plugin'] as const) {
      const stream = registry.get(kind)!.start!({ kind } as never, {}, { ...context('t'), signal } as RunContext);
      await expect(stream.next()).rejects.toThrow(`t has a ${kind} handler and no mock; give the case a stub for it`);
    }
  });
});
