import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallEvent, ToolCall, ToolResponse } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

// Module handlers run in worker threads: whatever a module does (throw from a timer, leave a
// rejection unhandled, process.exit, spin, leave a timer running) is that call's error, never
// toolman's crash; the timeout stops it; toolman exits when done.

const CATALOG = 'test/fixtures/catalogs/module-isolation.yaml';
const MODULE = 'module ./handlers/hostile.mjs';
const call = (name: string, args: unknown = {}, id = name): ToolCall => ({ id, name, arguments: args });
const STACK_LINE = /^\s+at .+[:(]/m;

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function open(onEvent?: (event: CallEvent) => void) {
  const manager = await ToolManager.open({ catalogs: [CATALOG], cwd: ROOT });
  managers.push(manager);
  return { manager, session: await manager.session(onEvent ? { onEvent } : {}) };
}

async function runOne(session: Awaited<ReturnType<typeof open>>['session'], name: string, args: unknown = {}): Promise<ToolResponse> {
  return (await session.runTurn([call(name, args)])).responses[0]!;
}

describe('a module that crashes its worker fails only the calls in flight on it', () => {
  it('a throw inside a timer is the call\'s error, and the next call gets a fresh worker', async () => {
    const { session } = await open();
    expect(await runOne(session, 'tally')).toMatchObject({ ok: true, content: '{"session":1,"module":1}' });
    expect(await runOne(session, 'throws_in_timer')).toMatchObject({
      ok: false,
      error_kind: 'tool_error',
      error: `throws_in_timer failed: ${MODULE} threw outside the call: boom in a timer`,
    });
    // A new worker: module state and the worker-side scratch start again.
    expect(await runOne(session, 'tally')).toMatchObject({ ok: true, content: '{"session":1,"module":1}' });
  });

  it('an unhandled rejection is the call\'s error', async () => {
    const { session } = await open();
    expect(await runOne(session, 'unhandled_rejection')).toMatchObject({
      ok: false,
      error: `unhandled_rejection failed: ${MODULE} threw outside the call (a promise rejection nobody handled): rejected and forgotten`,
    });
  });

  it('process.exit(3) ends the worker, not toolman', async () => {
    const { session } = await open();
    expect(await runOne(session, 'exits')).toMatchObject({ ok: false, error: `exits failed: ${MODULE} exited with code 3` });
    expect((await runOne(session, 'tally')).ok).toBe(true);
  });

  it('only the call that exits fails: its siblings in the same module are run again on a fresh worker', async () => {
    const { session } = await open();
    const turn = await session.runTurn([call('pauses', { ms: 150 }, 'p1'), call('exits'), call('pauses', { ms: 200 }, 'p2')]);
    expect(turn.responses.map((r) => r.ok)).toEqual([true, false, true]);
    expect(turn.responses[1]).toMatchObject({ error: `exits failed: ${MODULE} exited with code 3` });
    // Run again on the new worker: its module state starts over.
    expect(turn.responses.filter((r) => r.ok).map((r) => JSON.parse(r.content).calls).sort()).toEqual([1, 2]);
  });

  it('only the call whose timer threw fails, and a rejection nobody handled the same', async () => {
    const { session } = await open();
    const thrown = await session.runTurn([call('throws_in_timer'), call('pauses', { ms: 100 }, 'p1')]);
    expect(thrown.responses[0]).toMatchObject({ ok: false, error: `throws_in_timer failed: ${MODULE} threw outside the call: boom in a timer` });
    expect(thrown.responses[1]).toMatchObject({ ok: true });
    const rejected = await session.runTurn([call('pauses', { ms: 100 }, 'p2'), call('unhandled_rejection')]);
    expect(rejected.responses.map((r) => r.ok)).toEqual([true, false]);
  });

  it('a worker that ends with nobody to blame: each call in flight runs again alone, so only the guilty one fails', async () => {
    const { session } = await open();
    const turn = await session.runTurn([call('exits_unseen'), call('pauses', { ms: 150 }, 'p1'), call('pauses', { ms: 150 }, 'p2')]);
    expect(turn.responses.map((r) => r.ok)).toEqual([false, true, true]);
    expect(turn.responses[0]).toMatchObject({ error: `exits_unseen failed: ${MODULE} exited with code 4` });
  });

  it('a turn with a crashing call and a good call (another module) returns the good result', async () => {
    const { session } = await open();
    const turn = await session.runTurn([call('exits'), call('echo', { text: 'still here' })]);
    expect(turn.responses.map((r) => r.ok)).toEqual([false, true]);
    expect(JSON.parse(turn.responses[1]!.content)).toEqual({ echoed: 'still here' });
  });
});

describe('timeouts and cancellation reach a module', () => {
  it('stops a CPU-bound call at its timeout; later calls run in a new worker', async () => {
    const { session } = await open();
    const started = performance.now();
    expect(await runOne(session, 'spins')).toMatchObject({ ok: false, error_kind: 'timeout', error: 'spins did not finish within 300 ms and was stopped' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await runOne(session, 'tally')).toMatchObject({ ok: true, content: '{"session":1,"module":1}' });
  });

  it('a call in flight on a worker that a blocked call got stopped runs again on a fresh one', async () => {
    const { session } = await open();
    const turn = await session.runTurn([call('spins', {}, 's1'), call('pauses', { ms: 450 }, 'p1')]);
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'timeout' });
    expect(turn.responses[1]).toMatchObject({ ok: true });
    expect(JSON.parse(turn.responses[1]!.content)).toMatchObject({ paused: 450, calls: 1 });
  });

  it('a cooperative call stops on its signal and its worker (and module state) lives on', async () => {
    const { session } = await open();
    expect(await runOne(session, 'tally')).toMatchObject({ content: '{"session":1,"module":1}' });
    expect(await runOne(session, 'slow_short')).toMatchObject({ ok: false, error_kind: 'timeout' });
    expect(await runOne(session, 'tally')).toMatchObject({ content: '{"session":2,"module":2}' });
  });

  it('cancelling the turn cancels the call', async () => {
    const { session } = await open();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const turn = await session.runTurn([call('slow_cooperative')], { signal: controller.signal });
    expect(turn.responses[0]).toMatchObject({ ok: false, error_kind: 'cancelled' });
  });

  it('close() stops the workers and fails the calls still in flight', async () => {
    const { manager, session } = await open();
    const turn = session.runTurn([call('slow_cooperative')]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await manager.close();
    expect((await turn).responses[0]).toMatchObject({ ok: false, error: `slow_cooperative failed: ${MODULE} was stopped: toolman closed its module runner` });
  });
});

describe('what a module function gets and returns', () => {
  it('scratch is per session (and tool), module state per worker, progress reaches the events', async () => {
    const events: CallEvent[] = [];
    const { manager, session } = await open((e) => events.push(e));
    const other = await manager.session();
    const counts = async (s: typeof session) => JSON.parse((await runOne(s, 'tally')).content);
    expect(await counts(session)).toEqual({ session: 1, module: 1 });
    expect(await counts(session)).toEqual({ session: 2, module: 2 });
    expect(await counts(other)).toEqual({ session: 1, module: 3 });
    expect(events.filter((e) => e.type === 'tool_progress').map((e) => (e.type === 'tool_progress' ? e.message : ''))).toEqual(['tally 1', 'tally 2']);
  });

  it('calls into one module run concurrently', async () => {
    let tallyDone!: () => void;
    const done = new Promise<void>((resolve) => (tallyDone = resolve));
    const { session } = await open((e) => {
      if (e.type === 'tool_status' && e.id === 't2' && e.status === 'done') tallyDone();
    });
    await session.runTurn([call('tally', {}, 't1')]); // the worker has started
    const controller = new AbortController();
    const turn = session.runTurn([call('slow_cooperative', { n: 1 }, 'w1'), call('slow_cooperative', { n: 2 }, 'w2'), call('tally', {}, 't2')], { signal: controller.signal });
    await done; // tally answered while both waits run in the same worker
    controller.abort();
    expect((await turn).responses.map((r) => r.error_kind)).toEqual(['cancelled', 'cancelled', null]);
  });

  it('a result that is not JSON, a throw, a missing export and a missing file are clear errors', async () => {
    const { session } = await open();
    const turn = await session.runTurn([call('not_json'), call('throws'), call('missing_export')]);
    expect(turn.responses.map((r) => r.error)).toEqual([
      'not_json failed: notJson returned a value that is not JSON: Do not know how to serialize a BigInt',
      'throws failed: plain failure',
      `missing_export failed: ${MODULE} has no exported function "nothingHere"`,
    ]);

    const dir = mkdtempSync(join(tmpdir(), 'toolman-module-'));
    writeFileSync(join(dir, 'toolman.yaml'), 'toolman: 1\ntools:\n  - name: gone\n    description: A module handler whose file is missing.\n    handler: { module: ./nowhere.mjs#run }\n');
    const manager = await ToolManager.open({ catalogs: [join(dir, 'toolman.yaml')], cwd: dir });
    managers.push(manager);
    const missing = await (await manager.session()).runTurn([call('gone')]);
    expect(missing.responses[0]!.error).toBe(`gone failed: module file ${join(dir, 'nowhere.mjs')} does not exist`);
  });
});

describe("what a module prints", () => {
  it('goes to standard error, redacted even when the secret is written in pieces; stdout keeps only the result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-module-'));
    writeFileSync(join(dir, 'chatty.mjs'), 'export function run() { process.stdout.write("token=" + process.env.CHATTY_TOKEN.slice(0, 5)); process.stdout.write(process.env.CHATTY_TOKEN.slice(5) + "\\n"); console.error("half a line"); return { ok: true }; }\n');
    writeFileSync(join(dir, 'toolman.yaml'), 'toolman: 1\ntools:\n  - name: chatty\n    description: A module handler that prints its token.\n    effect: read\n    parameters: { type: object, properties: {} }\n    handler: { module: ./chatty.mjs#run }\n    prompts: { system: "${env:CHATTY_TOKEN} is never shown" }\n');
    const run = await runBin(['--catalog', join(dir, 'toolman.yaml'), 'call', 'chatty', '--json'], { env: { CHATTY_TOKEN: 'sk-live-1234567890' } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).responses[0]).toMatchObject({ ok: true, content: '{"ok":true}' });
    expect(run.stderr).toContain('token=');
    expect(run.stderr).toContain('half a line');
    expect(run.stderr).not.toContain('sk-live');
    expect(run.stderr).not.toContain('1234567890');
  });
});

describe('toolman call with hostile modules (built binary)', () => {
  const cli = (...args: string[]) => runBin(['--catalog', CATALOG, ...args]);
  const timed = async (...args: string[]) => {
    const started = performance.now();
    const run = await cli(...args);
    return { ...run, ms: performance.now() - started };
  };

  it('a spinning module times out: exit 1 within a couple of seconds, no stack trace', async () => {
    const run = await timed('call', 'spins');
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(3000);
    expect(run.stderr).toContain('error: spins did not finish within 300 ms and was stopped');
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('process.exit in a module is the call\'s error; toolman itself exits 1 normally', async () => {
    const run = await cli('call', 'exits');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`toolman: error: exits failed: ${MODULE} exited with code 3\n`);
  });

  it('a throw from a timer is the call\'s error, without a stack trace', async () => {
    const run = await cli('call', 'throws_in_timer');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`toolman: error: throws_in_timer failed: ${MODULE} threw outside the call: boom in a timer\n`);
  });

  it('a timer left running does not keep toolman alive', async () => {
    const run = await timed('call', 'leaves_timer');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ left: 'a timer running' });
    expect(run.ms).toBeLessThan(3000);
  });

  it('a batch with a crashing call and a good call prints the good result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-module-'));
    const batch = join(dir, 'batch.json');
    writeFileSync(batch, JSON.stringify([call('exits', {}, 'bad'), call('echo', { text: 'fine' }, 'good')]));
    const run = await cli('call', '--batch', batch);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('"echoed": "fine"');
    expect(run.stderr).toContain(`${MODULE} exited with code 3`);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('a batch where one export of a module exits: the other calls into the same file succeed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-module-'));
    const batch = join(dir, 'batch.json');
    writeFileSync(batch, JSON.stringify([call('pauses', { ms: 150 }, 'first'), call('exits', {}, 'bad'), call('pauses', { ms: 200 }, 'second')]));
    const run = await cli('call', '--batch', batch);
    expect(run.code).toBe(1);
    expect(run.stdout.match(/"paused": \d+/g)).toEqual(['"paused": 150', '"paused": 200']);
    expect(run.stderr).toContain(`${MODULE} exited with code 3`);
    expect(run.stderr.match(/exited with code/g)).toHaveLength(1);
  });

  it('a library user who never calls close() still exits: idle workers do not hold the process', async () => {
    const script = `
      import { ToolManager } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
      const manager = await ToolManager.open({ catalogs: [${JSON.stringify(CATALOG)}], cwd: ${JSON.stringify(ROOT)} });
      const turn = await (await manager.session()).runTurn([{ id: 'c1', name: 'leaves_timer', arguments: {} }]);
      console.log(turn.responses[0].content);`;
    const started = performance.now();
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('close', (code) => (clearTimeout(killer), resolve({ code, stdout })));
    });
    expect(result).toEqual({ code: 0, stdout: '{"left":"a timer running"}\n' });
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
