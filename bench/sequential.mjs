// The figures docs/testing.md gives for `toolman test --sequential`: cases with known pass rates,
// each simulated over seeded sequences of 20 repeats (src/testing/sequential-simulation.ts, the
// code test/testing/sequential-test.test.ts checks); the sequential verdict against the fixed-N
// one, and the share of runs made. Pure computation: no model, no process per run.
//   node bench/sequential.mjs [--seeds N]
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const args = process.argv.slice(2);
const seeds = Number(args[args.indexOf('--seeds') + 1]) || 10_000;
const { simulateSequential, CLEAR_FIXTURES, NEAR_BAR_FIXTURES } = await import(await bundleForScript('sequential-bench', ["export * from './src/testing/sequential-simulation.ts';"]));
const row = (f) => `| ${f.minPassRate} | ${f.p} | ${f.repeat} | ${(f.agreement * 100).toFixed(2)}% | ${(f.calls_ratio * 100).toFixed(1)}% |`;
console.log(`seeds per fixture: ${seeds}, alpha 0.05\n`);
console.log('| min_pass_rate | true pass rate | repeat | same verdict as fixed N | runs made |\n|---:|---:|---:|---:|---:|');
const clear = CLEAR_FIXTURES.map((f) => simulateSequential(f, seeds));
for (const f of clear) console.log(row(f));
console.log(`| clear cases, mean | | | ${((clear.reduce((s, f) => s + f.agreement, 0) / clear.length) * 100).toFixed(2)}% | ${((clear.reduce((s, f) => s + f.calls_ratio, 0) / clear.length) * 100).toFixed(1)}% |`);
const near = NEAR_BAR_FIXTURES.map((f) => simulateSequential(f, seeds));
for (const f of near) console.log(row(f));
