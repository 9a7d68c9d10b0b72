// toolman test and toolman diff, against the tests' scripted model server (no network):
//  - 100 cases, each one request the server answers after 200 ms, at --concurrency 8, through the
//    built binary from process start to exit; the ideal is 100 / 8 x 200 ms = 2.5 s, the target
//    1.5x that. The estimate toolman prints before a live run is part of the time.
//  - `toolman diff` of two versions of catalogs/large.yaml (several tools changed, one removed, one
//    added), process start to exit, median of runs; target under 1 s.
//   node bench/testing.mjs [--quick]
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin', 'toolman.js');
const run = promisify(execFile);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

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
  const bestS = Math.min(...wall) / 1000;

  // Two versions of catalogs/large.yaml: copy the folder, change some tools.
  const v2 = join(dir, 'large-v2');
  mkdirSync(join(v2, 'large'), { recursive: true });
  // large.yaml includes the other shipped catalogs.
  for (const file of readdirSync(join(root, 'catalogs')).filter((f) => f.endsWith('.yaml'))) copyFileSync(join(root, 'catalogs', file), join(v2, file));
  for (const file of readdirSync(join(root, 'catalogs', 'large'))) {
    let text = readFileSync(join(root, 'catalogs', 'large', file), 'utf8');
    if (file === 'billing.yaml') text = text.replace('required: [account_id]', 'required: [account_id, status]');
    if (file === 'crm.yaml') text = text.replace(/description: ([^\n]+)/, 'description: $1 Updated wording for the new CRM.');
    writeFileSync(join(v2, 'large', file), text);
  }
  const diffRuns = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    const started = performance.now();
    await run(process.execPath, [bin, 'diff', join(root, 'catalogs', 'large.yaml'), join(v2, 'large.yaml'), '--json'], { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
    diffRuns.push(performance.now() - started);
  }
  return {
    test_cases: cases,
    test_concurrency: concurrency,
    test_latency_ms: latency,
    test_ideal_s: ideal,
    test_wall_s: Math.round(bestS * 100) / 100,
    test_ratio_to_ideal: Math.round((bestS / ideal) * 100) / 100,
    test_runs_wall_s: wall.map((w) => Math.round(w) / 1000),
    diff_large_median_ms: Math.round(median(diffRuns)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await testingBench({ quick: process.argv.includes('--quick') }));
