// toolman test --shard I/N and toolman test merge (issue 22: 6). A 1,000-run suite (100 cases x 10
// repeats) run whole, then as 4 shards (--shard I/4 --json) and their merge (toolman test merge):
// the figure is the CPU time (user + system, every thread) of all toolman processes from start to
// exit, through bench/cpu-reporter.mjs, (4 shards + merge) / the whole run; median over rounds,
// each round running the whole run and the shards back to back so both see the same machine load.
// Each round also runs a 1-run shard: its CPU is what every process pays however few runs it has
// (Node's and toolman's start, the suite and catalog, one run, the report), so 3 of those and the
// merge are what sharding adds even if a shard's runs cost what the whole run's do; `floor_ratio`
// is that estimate, (whole + 3 x one run + merge) / whole (docs/performance.md).
//
// The headline workload is live against the tests' scripted model server (its CPU is the
// "provider's", not counted): catalogs/large.yaml (126 tools, profile full), each run three model
// rounds (list a customer's invoices, get one, answer), toolman's cache warm (a CI runner that
// keeps its cache). Two context figures, one round each: the same with the cache off (every
// process parses and validates the catalog), and a replay of a small catalog's one-round runs,
// where a run costs about a millisecond and start-up is most of a shard.
//   node bench/shards.mjs [--quick]
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin', 'toolman.js');
const run = promisify(execFile);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const CASES = 100;
const REPEAT = 10;
const SHARDS = 4;
const KEY = 'sk-bench-placeholder-0001';

/** CPU milliseconds of one toolman process, its stdout written to `out`. */
async function cpu(args, { cwd, env, out }) {
  const result = await run(process.execPath, ['--import', join(root, 'bench', 'cpu-reporter.mjs'), bin, ...args], { cwd, env, maxBuffer: 256 << 20 }).catch((error) => {
    // Exit 1 (a case under its bar) still ran everything; anything else is a broken benchmark.
    if (error.code === 1) return error;
    throw error;
  });
  if (out) writeFileSync(out, result.stdout);
  const us = /BENCH_CPU_US=(\d+)/.exec(result.stderr ?? '');
  if (!us) throw new Error(`no CPU figure from toolman ${args.join(' ')}: ${result.stderr}`);
  return Number(us[1]) / 1000;
}

/** Whole run, 4 shards and their merge, `rounds` times; the merge checked against the whole run. */
async function measure(dir, base, env, rounds) {
  const opts = { cwd: dir, env };
  const whole = [];
  const sharded = [];
  const parts = [];
  const oneRun = [];
  const merges = [];
  for (let round = 0; round < rounds; round++) {
    whole.push(await cpu(base, { ...opts, out: join(dir, 'whole.json') }));
    oneRun.push(await cpu([...base, '--shard', `${round + 1}/${CASES * REPEAT}`], opts));
    const files = [];
    const each = [];
    for (let i = 1; i <= SHARDS; i++) {
      files.push(join(dir, `shard-${i}.json`));
      each.push(await cpu([...base, '--shard', `${i}/${SHARDS}`], { ...opts, out: files[i - 1] }));
    }
    const merge = await cpu(['test', 'merge', ...files, '--json'], { ...opts, out: join(dir, 'merged.json') });
    merges.push(merge);
    parts.push({ whole_ms: Math.round(whole[round]), shards_ms: each.map(Math.round), merge_ms: Math.round(merge), one_run_ms: Math.round(oneRun[round]) });
    sharded.push(each.reduce((a, b) => a + b, 0) + merge);
  }
  // Besides the CPU: the merge is the whole run (latencies aside).
  const steady = (file) => readFileSync(file, 'utf8').replace(/"latency_ms": \d+/g, '').replace(/"(mean|p50|p95)": \d+/g, '');
  const doc = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'));
  const runs = doc.suites[0].runs.length;
  return {
    runs,
    cpu_per_run_ms: Math.round((median(whole) / runs) * 100) / 100,
    whole_cpu_ms: Math.round(median(whole)),
    sharded_cpu_ms: Math.round(median(sharded)),
    ratio: Math.round((median(sharded) / median(whole)) * 1000) / 1000,
    // Each round's own ratio (its whole run and its shards are neighbours in time), and their median.
    round_ratios: sharded.map((s, i) => Math.round((s / whole[i]) * 1000) / 1000),
    round_ratio_median: Math.round(median(sharded.map((s, i) => s / whole[i])) * 1000) / 1000,
    one_run_cpu_ms: Math.round(median(oneRun)),
    merge_cpu_ms: Math.round(median(merges)),
    floor_ratio: Math.round(((median(whole) + (SHARDS - 1) * median(oneRun) + median(merges)) / median(whole)) * 1000) / 1000,
    rounds: parts,
    merged_equals_whole: steady(join(dir, 'whole.json')) === steady(join(dir, 'merged.json')),
  };
}

/** The large catalog, live: each case lists an account's invoices, gets one, answers. */
async function liveLarge(rounds, cache) {
  const dir = join(root, '.bench', 'shards-large');
  mkdirSync(dir, { recursive: true });
  const cases = Array.from({ length: CASES }, (_, i) => `  - { name: case ${i + 1}, prompt: "what is due on the open invoice of account ACC-${String(i).padStart(4, '0')}?", expect: { calls: [{ tool: billing_list_invoices }, { tool: billing_get_invoice }], answer: { contains: due } } }`);
  writeFileSync(join(dir, 'suite.yaml'), ['name: shards-large', 'catalog: ../../catalogs/large.yaml', 'profile: full', 'providers: [openai:gpt-4o-mini]', `repeat: ${REPEAT}`, 'min_pass_rate: 0.5', 'cases:', ...cases].join('\n') + '\n');
  const { startModelServer } = await import(await bundleForScript('shards-bench', ["export { startModelServer } from './test/helpers/model-server.ts';"]));
  const server = await startModelServer();
  server.script((r) => {
    const messages = r.body.messages;
    const results = messages.filter((m) => m.role === 'tool').length;
    const usage = { input: 6000, output: 20, cached: 4000 };
    if (results >= 2) return { text: '1200 EUR is due.', usage };
    if (results === 1) return { toolCalls: [{ name: 'billing_get_invoice', arguments: { invoice_id: 'INV-2026-0042' } }], usage };
    const account = /ACC-\d{4}/.exec(JSON.stringify(messages.filter((m) => m.role === 'user')))[0];
    return { toolCalls: [{ name: 'billing_list_invoices', arguments: { account_id: account } }], usage };
  });
  const env = { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: cache, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` };
  const base = ['test', '--suite-catalog', 'suite.yaml', '--json', '--concurrency', '8'];
  try {
    if (cache !== 'off') await cpu([...base, '--shard', `1/${CASES * REPEAT}`], { cwd: dir, env }); // warm the cache
    return await measure(dir, base, env, rounds);
  } finally {
    await server.close();
  }
}

/** The travel catalog's one-round runs, recorded once, then replayed (no network). */
async function replaySmall(rounds) {
  const dir = join(root, '.bench', 'shards');
  const recordings = join(dir, 'recordings');
  const env = { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off', OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
  if (!existsSync(join(recordings, 'shards'))) {
    mkdirSync(dir, { recursive: true });
    const cases = Array.from({ length: CASES }, (_, i) => `  - { name: case ${i + 1}, prompt: "weather in Oslo, please (${i + 1})", expect: { answer: { contains: Oslo } } }`);
    writeFileSync(join(dir, 'suite.yaml'), ['name: shards', `catalog: ${JSON.stringify(join(root, 'test', 'fixtures', 'testing', 'travel.yaml'))}`, 'providers: [openai:gpt-4o-mini]', `repeat: ${REPEAT}`, 'cases:', ...cases].join('\n') + '\n');
    const { startModelServer } = await import(await bundleForScript('shards-bench', ["export { startModelServer } from './test/helpers/model-server.ts';"]));
    const server = await startModelServer();
    server.script(() => ({ text: 'It is 3 °C in Oslo.', usage: { input: 300, output: 10 } }));
    await run(process.execPath, [bin, 'test', '--suite-catalog', 'suite.yaml', '--record', recordings, '--concurrency', '8'], { cwd: dir, env: { ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }, maxBuffer: 64 << 20 });
    await server.close();
  }
  return measure(dir, ['test', '--suite-catalog', 'suite.yaml', '--replay', recordings, '--json', '--concurrency', '8'], env, rounds);
}

// Seven rounds: a round's ratio on this machine ranged from 0.95 to 1.29x (11 rounds, 2026-11-24,
// nothing else running); two 3-round runs gave 1.05x and 1.06x, an 11-round run just after 1.16x.
export async function shardsBench({ quick = false, rounds = quick ? 1 : 7 } = {}) {
  const cache = join(root, '.bench', 'toolman-cache');
  return {
    live_large_warm: await liveLarge(rounds, cache),
    live_large_cache_off: await liveLarge(1, 'off'),
    replay_small_cache_off: await replaySmall(1),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `--rounds N`: more rounds of the warm live measure (each round is its whole run, 4 shards and the merge, one after another).
  const roundsAt = process.argv.indexOf('--rounds');
  const rounds = roundsAt > 0 ? { rounds: Number(process.argv[roundsAt + 1]) } : {};
  if (rounds.rounds !== undefined && !(Number.isInteger(rounds.rounds) && rounds.rounds > 0)) throw new Error('--rounds takes a whole number of rounds, 1 or more');
  console.log(JSON.stringify(await shardsBench({ quick: process.argv.includes('--quick'), ...rounds }), null, 2));
}
