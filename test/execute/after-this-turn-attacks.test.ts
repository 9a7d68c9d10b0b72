import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { MOST_QUEUED } from '../../src/shared/after-this-turn.js';
import { RunnerRegistry, type ToolRunner } from '../../src/execute/runner.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/executor.yaml'], { cwd: ROOT });

/** A runner that never answers and never reads its signal: only the executor can end the call. */
const deaf: ToolRunner<'mock'> = { kind: 'mock', run: () => new Promise(() => {}) };
const session = (runner: ToolRunner<'mock'> = deaf) => new ToolSession(catalog, {}, { cwd: ROOT, env: {}, runners: new RunnerRegistry([runner]) });
const hang = (id = 'h') => ({ id, name: 'hang', arguments: {} });
const waitLong = (id = 'w') => ({ id, name: 'wait_long', arguments: {} });

describe('calls armed after the turn (issue 24) still end by timeout and cancellation', () => {
  it('a deaf call times out near its timeout_ms (100 ms)', async () => {
    const started = performance.now();
    const { responses } = await session().runTurn([hang()]);
    expect(responses[0]).toMatchObject({ ok: false, error_kind: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a driver abort in the same turn as the call starts cancels the deaf call', async () => {
    const controller = new AbortController();
    const turn = session().runTurn([waitLong()], { signal: controller.signal });
    controller.abort();
    const { responses } = await turn;
    expect(responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
  });

  it('a driver abort after a microtask (before the loop turns) cancels it', async () => {
    const controller = new AbortController();
    const turn = session().runTurn([waitLong()], { signal: controller.signal });
    await Promise.resolve();
    await Promise.resolve();
    controller.abort();
    expect((await turn).responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
  });

  it('one of two signals (a client cancel, a server stop) aborting in the same turn cancels it', async () => {
    const a = new AbortController();
    const b = new AbortController();
    const turn = session().runTurn([waitLong()], { signal: [a.signal, b.signal] });
    b.abort();
    expect((await turn).responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('a call that blocks the loop past its timeout is stopped as soon as the loop turns, not timeout_ms later', async () => {
    const blocking: ToolRunner<'mock'> = {
      kind: 'mock',
      run: () => {
        const until = performance.now() + 300;
        while (performance.now() < until);
        return new Promise(() => {});
      },
    };
    const started = performance.now();
    const { responses } = await session(blocking).runTurn([hang()]);
    expect(responses[0]).toMatchObject({ ok: false, error_kind: 'timeout' });
    // 300 ms blocked + at most a few ms; the 100 ms timeout counted from the start, not from the loop's turn.
    expect(performance.now() - started).toBeLessThan(390);
  });

  it(`more than MOST_QUEUED (${MOST_QUEUED}) deaf calls started in one turn all time out; none is left unarmed`, async () => {
    const s = session();
    const controller = new AbortController();
    const turns = Array.from({ length: MOST_QUEUED * 2 + 7 }, (_, i) => s.runTurn([hang(`h${i}`)], { signal: controller.signal }));
    const all = await Promise.race([Promise.all(turns), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5000))]);
    expect(all).not.toBe('hung');
    for (const turn of all as Awaited<(typeof turns)[number]>[]) expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'timeout' });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it(`more than MOST_QUEUED deaf calls with one signal aborted in the same turn are all cancelled`, async () => {
    const s = session();
    const controller = new AbortController();
    const turns = Array.from({ length: MOST_QUEUED + 50 }, (_, i) => s.runTurn([waitLong(`w${i}`)], { signal: controller.signal }));
    controller.abort();
    const all = await Promise.race([Promise.all(turns), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5000))]);
    expect(all).not.toBe('hung');
    for (const turn of all as Awaited<(typeof turns)[number]>[]) expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
  });

  it('many turns on one long-lived signal leave no listener and no warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const quick: ToolRunner<'mock'> = { kind: 'mock', run: async () => new Promise((r) => setImmediate(() => setImmediate(() => r({ ok: true })))) };
      const s = session(quick);
      const controller = new AbortController();
      for (let i = 0; i < 50; i++) await Promise.all([s.runTurn([{ id: `a${i}`, name: 'lookup', arguments: { key: 'x' } }], { signal: controller.signal }), s.runTurn([{ id: `b${i}`, name: 'lookup', arguments: { key: 'y' } }, { id: `c${i}`, name: 'lookup', arguments: { key: 'z' } }], { signal: controller.signal })]);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('a stateful job (a module generator in a worker) and the turn armed after the loop turns', () => {
  it('a driver abort in the same turn as the call starts cancels it before the first yield, and its cleanup runs', async () => {
    const { ToolManager } = await import('../../src/manager/tool-manager.js');
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/stateful.yaml'], cwd: ROOT });
    try {
      const s = await manager.session({});
      await s.runTurn([{ id: 'warm', name: 'seen', arguments: {} }]);
      const controller = new AbortController();
      const pending = s.runTurn([{ id: 'r', name: 'run_tests', arguments: { count: 1, pause_ms: 5000 } }], { signal: controller.signal });
      controller.abort();
      const started = performance.now();
      expect((await pending).responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
      expect(performance.now() - started).toBeLessThan(2000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(JSON.parse((await s.runTurn([{ id: 'seen', name: 'seen', arguments: {} }])).responses[0]!.content)).toMatchObject({ steps: 0, cleanups: 1 });
    } finally {
      await manager.close();
    }
  });
});
