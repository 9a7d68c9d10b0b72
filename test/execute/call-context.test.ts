import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { CallContext } from '../../src/execute/call-context.js';
import { RunnerRegistry, type RunContext, type ToolRunner } from '../../src/execute/runner.js';
import type { CallEvent } from '../../src/execute/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/executor.yaml'], { cwd: ROOT });

/** A mock runner that keeps every context it was given and uses it the way runners do. */
function recordingRunner(seen: RunContext[], use: (context: RunContext) => Promise<unknown> | unknown = () => ({ ok: true })): ToolRunner<'mock'> {
  return {
    kind: 'mock',
    async run(_handler, _args, context) {
      seen.push(context);
      return use(context);
    },
  };
}

function session(runner: ToolRunner<'mock'>, events: CallEvent[] = []) {
  return new ToolSession(catalog, {}, { cwd: ROOT, env: {}, runners: new RunnerRegistry([runner]), onEvent: (event) => events.push(event) });
}

describe("the call context a runner gets (issue 24: one shape for every call's)", () => {
  it('is an instance of one class, with the same own properties for every call', async () => {
    const seen: RunContext[] = [];
    const s = session(recordingRunner(seen));
    await s.runTurn([{ id: 'a', name: 'lookup', arguments: { key: 'x' } }]);
    await s.runTurn([{ id: 'b', name: 'lookup', arguments: { key: 'y' } }], { signal: new AbortController().signal });
    expect(seen).toHaveLength(2);
    for (const context of seen) expect(context).toBeInstanceOf(CallContext);
    expect(Object.keys(seen[0]!)).toEqual(Object.keys(seen[1]!));
    expect(seen.map((c) => c.callId)).toEqual(['a', 'b']);
    expect(seen[0]!.tool.name).toBe('lookup');
  });

  it('hands progress on unbound, and its signal aborts when the turn is cancelled', async () => {
    const seen: RunContext[] = [];
    const events: CallEvent[] = [];
    const controller = new AbortController();
    const s = session(
      recordingRunner(seen, (context) => {
        // As a runner that passes it to a helper does (src/agents/a2a-agent.ts: limitProgress(context.progress)).
        const { progress } = context;
        progress('half way', { progress: 1, total: 2 });
        return new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
      }),
      events,
    );
    const turn = s.runTurn([{ id: 'c', name: 'lookup', arguments: { key: 'x' } }], { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const { responses } = await turn;
    expect(responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
    expect(events.find((e) => e.type === 'tool_progress')).toMatchObject({ message: 'half way', progress: 1, total: 2 });
    expect(seen[0]!.signal.aborted).toBe(true);
  });

  it('keeps its signal through a spread, as a runner wrapper that adds its own progress makes one (RunContext is public)', async () => {
    const seen: RunContext[] = [];
    const wrapped: RunContext[] = [];
    const inner = recordingRunner(seen, (context) => {
      wrapped.push({ ...context, progress: () => undefined });
      return { ok: true };
    });
    await session(inner).runTurn([{ id: 'd', name: 'lookup', arguments: { key: 'x' } }]);
    expect(wrapped[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(Object.keys(seen[0]!)).toContain('signal');
  });
});
