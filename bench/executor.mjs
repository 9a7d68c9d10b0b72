// Executor benchmarks (in process, through the library build in dist/index.js):
//  - overhead per call: validation and bookkeeping around a mock tool that answers at once;
//  - 100 safe mock tools with 50 ms latency in one turn;
//  - a module tool that answers at once (it runs in a worker thread): median per call against the
//    mock, and one cold call (the first, which starts the worker and imports the module).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { ToolManager } from '../dist/index.js';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function executorBench({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-bench-'));
  const tools = Array.from({ length: 100 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Benchmark tool number ${i} that answers after its latency.`,
    effect: 'read',
    parameters: { type: 'object', properties: { q: { type: 'string', description: 'A query' }, n: { type: 'integer', minimum: 0, description: 'A number' } }, required: ['q'] },
    handler: { mock: [{ latency_ms: 50, result: { i, q: '{{q}}' } }] },
  }));
  tools.push({ name: 'instant', description: 'Answers at once, to measure the executor around it.', effect: 'read', parameters: tools[0].parameters, handler: { mock: [{ result: { ok: true } }] } });
  writeFileSync(join(dir, 'instant.mjs'), 'export async function instant(args) {\n  return { ok: true };\n}\n');
  writeFileSync(join(dir, 'instant-ts.ts'), 'export async function instant(args: { q: string }): Promise<{ ok: boolean }> {\n  return { ok: args.q.length >= 0 };\n}\n');
  tools.push({ name: 'module_instant', description: 'A module function that answers at once, to measure the worker round trip.', effect: 'read', parameters: tools[0].parameters, handler: { module: './instant.mjs#instant' } });
  tools.push({ name: 'module_instant_ts', description: 'The same function in TypeScript, compiled by esbuild on first call.', effect: 'read', parameters: tools[0].parameters, handler: { module: './instant-ts.ts#instant' } });
  writeFileSync(join(dir, 'bench.yaml'), dump({ toolman: 1, limits: { max_calls_per_round: 100, max_rounds: 1 }, tools }));
  // Through the facade, as every driver runs tools.
  const manager = await ToolManager.open({ catalogs: [join(dir, 'bench.yaml')], cwd: dir });
  const executor = await manager.session();

  // One timed turn of one call; the call must succeed.
  const timeCall = async (name, i) => {
    const started = process.hrtime.bigint();
    const turn = await executor.runTurn([{ id: 'c', name, arguments: { q: `q${i}`, n: i } }]);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (!turn.responses[0].ok) throw new Error(`a benchmark call failed: ${turn.responses[0].error}`);
    return ms;
  };
  // Cold module calls first: the worker starts and imports the module (TypeScript: esbuild too).
  const moduleCold = await timeCall('module_instant', 0);
  const moduleTsCold = await timeCall('module_instant_ts', 0);

  // Overhead: one call per turn, after warm-up; the mock itself does no work.
  const runs = quick ? 500 : 3000;
  for (let i = 0; i < 200; i++) await executor.runTurn([{ id: 'w', name: 'instant', arguments: { q: `w${i}`, n: i } }]);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await timeCall('instant', i));
  // The same, through a module function in its worker thread.
  for (let i = 0; i < 200; i++) await timeCall('module_instant', i);
  const moduleSamples = [];
  for (let i = 0; i < runs; i++) moduleSamples.push(await timeCall('module_instant', i));
  // 100 safe tools with 50 ms latency in one turn.
  const batches = [];
  for (let r = 0; r < (quick ? 3 : 7); r++) {
    const calls = tools.slice(0, 100).map((t, i) => ({ id: `c${i}`, name: t.name, arguments: { q: `r${r}` } }));
    const started = process.hrtime.bigint();
    const turn = await executor.runTurn(calls);
    batches.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (turn.responses.some((x) => !x.ok)) throw new Error('a benchmark call failed');
  }
  await manager.close();
  return {
    overhead_ms: median(samples),
    batch_100x50ms_ms: median(batches),
    module_call_ms: median(moduleSamples),
    module_cold_call_ms: moduleCold,
    module_ts_cold_call_ms: moduleTsCold,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await executorBench({ quick: process.argv.includes('--quick') }));
