// toolman test against the tests' scripted model server (no network): 100 cases, each one
// request the server answers after 200 ms, at --concurrency 8, through the built binary from
// process start to exit, median of 3 runs (1 with --quick); the ideal is 100 / 8 x 200 ms = 2.5 s,
// the target 1.5x that. The estimate toolman prints before a live run is part of the time.
// (`toolman diff` is measured whole-process with the other one-shot commands: bench/one-shot.mjs.)
//   node bench/testing.mjs [--quick]
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin', 'toolman.js');
const run = promisify(execFile);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function testingBench({ quick = false } = {}) {
  const bundle = await bundleForScript('testing-bench', ["export { startModelServer } from './test/helpers/model-server.ts';"]);
  const { startModelServer } = await import(bundle);
  const server = await startModelServer();
  server.script(() => ({ text: 'It is 3 °C in Oslo.', delayMs: 200, usage: { input: 300, output: 10 } }));
  const dir = mkdtempSync(join(tmpdir(), 'toolman-bench-testing-'));
  const cases = 100;
  const concurrency = 8;
  const latency = 200;
  const suite = join(dir, 'suite.yaml');
  writeFileSync(
    suite,
    [`catalog: ${JSON.stringify(join(root, 'test', 'fixtures', 'testing', 'travel.yaml'))}`, 'providers: [openai:gpt-4o-mini]', 'cases:', ...Array.from({ length: cases }, (_, i) => `  - { name: case ${i + 1}, prompt: "weather in Oslo, please (${i + 1})", expect: { answer: { contains: Oslo } } }`)].join('\n') + '\n',
  );
  const env = { ...process.env, OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: '1' };
  const wall = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    const started = performance.now();
    const result = await run(process.execPath, [bin, 'test', '--suite-catalog', suite, '--concurrency', String(concurrency), '--json'], { env, maxBuffer: 64 << 20 });
    wall.push(performance.now() - started);
    const doc = JSON.parse(result.stdout);
    if (!doc.ok) throw new Error('the benchmark suite failed');
  }
  await server.close();
  // The ideal: cases / concurrency x latency (2.5 s); whole waves of 8 make the floor 13 x 200 ms = 2.6 s.
  const ideal = (cases / concurrency) * latency / 1000;
  const medianS = median(wall) / 1000;

  return {
    test_cases: cases,
    test_concurrency: concurrency,
    test_latency_ms: latency,
    test_ideal_s: ideal,
    test_runs: wall.length,
    test_wall_s: Math.round(medianS * 100) / 100,
    test_ratio_to_ideal: Math.round((medianS / ideal) * 100) / 100,
    test_runs_wall_s: wall.map((w) => Math.round(w) / 1000),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await testingBench({ quick: process.argv.includes('--quick') }));
