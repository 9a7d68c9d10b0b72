// toolman benchmarks: plain Node, medians over repeated runs, each figure saying how many runs
// and what was timed. `npm run bench` builds first.
//   node bench/run.mjs [--runs N] [--quick]
// Writes .bench/results.json (every figure, the date, Node, the machine's load) and prints the
// rows of the README's table.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { load } from 'js-yaml';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog } from './generate-catalog.mjs';
import { median, oneShotBench } from './one-shot.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'toolman.js');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runs = Number(args[args.indexOf('--runs') + 1]) || (quick ? 5 : 11);
const bigRuns = quick ? 1 : 5;

/** 500 queries from the generated catalog: a tool's summary or first words, its name as gold. */
function searchCases(catalogFile) {
  const lines = [];
  const files = readdirSync(dirname(catalogFile)).filter((f) => f.startsWith('tools-')).sort();
  const tools = files.flatMap((f) => load(readFileSync(join(dirname(catalogFile), f), 'utf8')).tools);
  for (let i = 0; i < 500; i++) {
    const tool = tools[(i * 7919) % tools.length];
    const query = (tool.summary ?? tool.description ?? tool.name).split(/\s+/).slice(0, 8).join(' ');
    lines.push(JSON.stringify({ id: `q${i}`, query, gold: [tool.name] }));
  }
  return lines.join('\n') + '\n';
}

/** One whole `toolman` process: wall time, and with `memory` its peak RSS (every thread). */
function time(argv, { memory = false, env = {} } = {}) {
  const full = memory ? ['--import', join(root, 'bench', 'rss-reporter.mjs'), ...argv] : argv;
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, full, { cwd: root, encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, NO_COLOR: '1', ...env } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  const rss = /BENCH_MAXRSS_KB=(\d+)/.exec(result.stderr ?? '');
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : undefined, stdout: result.stdout };
}

const catalogOf = (name, count, uniqueShapes = false) => {
  const dir = join(root, '.bench', name);
  if (!existsSync(join(dir, 'catalog.yaml'))) generateCatalog(dir, count, { uniqueShapes });
  return join(dir, 'catalog.yaml');
};

const results = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, load_average_at_start: loadavg().map((l) => Math.round(l * 100) / 100), rows: [] };
const rows = results.rows;
const say = (label, value, note = '') => console.log(`${label.padEnd(64)} ${value.padStart(12)}${note ? `  ${note}` : ''}`);
const ms = (v, digits = 1) => `${v.toFixed(digits)} ms`;

console.log(`toolman bench, ${results.date}: node ${process.version}, ${results.cpus} CPUs, load average ${results.load_average_at_start.join(' ')} at the start\n`);

// 1. One-shot commands, whole process, interleaved with `node -e 0`: first run and warm.
const big10k = catalogOf('catalog-10000', 10_000);
const oneShot = await oneShotBench({ runs, big: big10k });
results.bare_node_ms = oneShot.bare_node_ms;
if (oneShot.bare_node_without_extra_ca_ms !== undefined) results.bare_node_without_extra_ca_ms = oneShot.bare_node_without_extra_ca_ms;
console.log(`one-shot commands, whole process (spawn to exit), median of ${oneShot.runs} interleaved rounds; node -e 0: ${oneShot.bare_node_ms} ms`);
for (const row of oneShot.rows) {
  rows.push({ ...row, runs: oneShot.runs, what: 'whole process, ratio to node -e 0 in the same rounds' });
  const part = (f) => (f ? `${f.median_ms.toFixed(0)} ms ${f.ratio.toFixed(2)}x` : '');
  say(`  ${row.label}`, part(row.warm), row.first ? `first run: ${part(row.first)}` : '');
}

// 2. validate at 10,000 and 50,000 tools: first run (cache off: every file parsed, every check run), peak memory.
console.log(`\nvalidate of generated catalogs, whole process, first run (TOOLMAN_CACHE_DIR=off), median of ${bigRuns} (50,000: of ${quick ? 1 : 3})`);
const scale = {};
for (const [name, count, uniqueShapes, n] of [['catalog-10000', 10_000, false, bigRuns], ['catalog-10000-unique', 10_000, true, bigRuns], ['catalog-50000', 50_000, false, quick ? 1 : 3]]) {
  const file = catalogOf(name, count, uniqueShapes);
  const samples = Array.from({ length: n }, () => time([bin, 'validate', '--quiet', file], { memory: true, env: { TOOLMAN_CACHE_DIR: 'off' } }));
  const row = { id: `validate-${name}`, label: `validate ${count.toLocaleString('en-US')} tools${uniqueShapes ? ' (every schema a new shape)' : ' (real definitions, renamed)'}`, runs: n, what: 'whole process, first run', median_ms: Math.round(median(samples.map((s) => s.ms))), peak_rss_mb: Math.round(Math.max(...samples.map((s) => s.rssMb ?? 0))) };
  rows.push(row);
  scale[name] = row;
  say(`  ${row.label}`, `${(row.median_ms / 1000).toFixed(2)} s`, `peak ${row.peak_rss_mb} MB (of ${n})`);
}
const linear = scale['catalog-50000'].median_ms / scale['catalog-10000'].median_ms;
rows.push({ id: 'validate-scaling', label: 'validate 50,000 / 10,000 tools, time', ratio: Math.round(linear * 100) / 100 });
say('  50,000 tools / 10,000 tools, time (5.00 is linear)', `${linear.toFixed(2)}x`);
{
  const samples = Array.from({ length: bigRuns }, () => time([bin, 'validate', '--quiet', big10k], { memory: true }));
  const row = { id: 'validate-10000-warm', label: 'validate 10,000 tools, warm (findings remembered)', runs: bigRuns, what: 'whole process, cache warm', median_ms: Math.round(median(samples.map((s) => s.ms))), peak_rss_mb: Math.round(Math.max(...samples.map((s) => s.rssMb ?? 0))) };
  rows.push(row);
  say(`  ${row.label}`, `${(row.median_ms / 1000).toFixed(2)} s`, `peak ${row.peak_rss_mb} MB`);
}

// 3. In-process figures the commands report about themselves.
console.log(`\nparts of a run, as the commands time them, median of ${bigRuns} runs`);
{
  const casesFile = join(root, '.bench', 'search-cases-10000.jsonl');
  if (!existsSync(casesFile)) writeFileSync(casesFile, searchCases(big10k));
  const docs = Array.from({ length: bigRuns }, () => JSON.parse(time([bin, '--catalog', big10k, 'eval', 'search', '--cases', casesFile, '--json']).stdout));
  const build = { id: 'search-index', label: 'search index build, 10,000 tools', runs: bigRuns, median_ms: median(docs.map((d) => d.timing.index_ms)) };
  const query = { id: 'search-query', label: 'search query, 10,000 tools (median of 500 queries)', runs: bigRuns, median_ms: median(docs.map((d) => d.timing.query_median_ms)) };
  rows.push(build, query);
  say(`  ${build.label}`, ms(build.median_ms));
  say(`  ${query.label}`, ms(query.median_ms, 3));
}
// Token counting: formatting and counting every tool (budget's own timing), with nothing remembered.
for (const provider of ['openai', 'anthropic', 'gemini']) {
  const samples = Array.from({ length: bigRuns }, () => JSON.parse(time([bin, '--catalog', big10k, 'budget', '--provider', provider, '--json'], { env: { TOOLMAN_CACHE_DIR: 'off' } }).stdout).timing.count_eager_ms);
  const row = { id: `count-${provider}`, label: `format + count 10,000 tools (${provider}), counts not remembered`, runs: bigRuns, median_ms: median(samples) };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms));
}

{
  const { executorBench } = await import('./executor.mjs');
  const r = await executorBench({ quick });
  for (const [id, label, value, digits] of [
    ['executor-overhead', 'executor overhead per call (median)', r.overhead_ms, 3],
    ['executor-batch', '100 safe mock tools, 50 ms each, one turn', r.batch_100x50ms_ms, 1],
    ['module-call', 'module tool call in its worker thread (median)', r.module_call_ms, 3],
    ['module-cold', 'module tool, first call (worker start + import)', r.module_cold_call_ms, 1],
  ]) {
    rows.push({ id, label, median_ms: value });
    say(`  ${label}`, ms(value, digits));
  }
}
{
  const { chatBench } = await import('./chat.mjs');
  const r = await chatBench({ quick });
  const row = { id: 'chat-per-round', label: `chat: toolman's own time per round, large.yaml (median of ${r.turns} turns)`, median_ms: r.own_per_round_ms };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms, 2));
}
{
  const { testingBench } = await import('./testing.mjs');
  const r = await testingBench({ quick });
  const row = { id: 'test-100', label: `test: ${r.test_cases} cases, ${r.test_latency_ms} ms latency, ${r.test_concurrency} at once (median of ${r.test_runs})`, runs: r.test_runs, median_ms: r.test_wall_s * 1000, ratio_to_ideal: r.test_ratio_to_ideal };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms, 0), `${r.test_ratio_to_ideal.toFixed(2)}x the ideal ${r.test_ideal_s} s`);
}
{
  const { shardsBench } = await import('./shards.mjs');
  const r = await shardsBench({ quick });
  const head = r.live_large_warm;
  const row = { id: 'shards', label: 'test: 1,000 runs as 4 shards + merge, CPU vs whole', median_ms: head.sharded_cpu_ms, whole_cpu_ms: head.whole_cpu_ms, ratio_to_unsharded: head.ratio, rounds: head.round_ratios.length, round_ratios: head.round_ratios, round_ratio_median: head.round_ratio_median, merged_equals_whole: head.merged_equals_whole, context: { cache_off: r.live_large_cache_off.ratio, replay_small: r.replay_small_cache_off.ratio, one_run_cpu_ms: head.one_run_cpu_ms, merge_cpu_ms: head.merge_cpu_ms, floor_ratio: head.floor_ratio } };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms, 0), `${head.ratio.toFixed(2)}x the whole run's ${head.whole_cpu_ms} ms (live, large.yaml, cache warm; cache off ${r.live_large_cache_off.ratio.toFixed(2)}x; small replay ${r.replay_small_cache_off.ratio.toFixed(2)}x); merge = whole: ${head.merged_equals_whole}; ${head.round_ratios.length} rounds, each round's ratio ${Math.min(...head.round_ratios).toFixed(2)}-${Math.max(...head.round_ratios).toFixed(2)}x (median ${head.round_ratio_median.toFixed(2)}x); a 1-run shard ${head.one_run_cpu_ms} ms and the merge ${head.merge_cpu_ms} ms alone come to ${head.floor_ratio.toFixed(2)}x`);
}
{
  const { validateRulesBench } = await import('./validate-rules.mjs');
  const r = await validateRulesBench({ quick });
  const row = { id: 'validate-rules', label: 'validate large.yaml: what the issue-20 rules add', median_ms: r.new_rules_ms, share_of_validate: r.new_rules_share, with_quality_ms: r.new_rules_with_quality_ms, warm_ms: r.warm_ms };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms), `${(100 * r.new_rules_share).toFixed(1)}% of validate (${r.validate_large_ms.toFixed(0)} ms); --quality ${r.new_rules_with_quality_ms.toFixed(1)} ms`);
  const confusable = { id: 'validate-confusable', label: 'validate large.yaml: the confusable-tools rule', median_ms: r.confusable_ms, share_of_validate: r.confusable_share };
  rows.push(confusable);
  say(`  ${confusable.label}`, ms(confusable.median_ms), `${(100 * r.confusable_share).toFixed(1)}% of validate (cold, WordNet lookups included)`);
}
{
  const { mcpBench } = await import('./mcp.mjs');
  const r = await mcpBench({ quick });
  const validate = { id: 'mcp-validate', label: 'validate, 3 MCP servers, tool lists cached', median_ms: r.validate.cached_ms, ratio_to_written_out: r.validate.ratio };
  const start = { id: 'mcp-start', label: '3 stdio MCP servers started in parallel', median_ms: r.start.parallel_ms, ratio_to_slowest_alone: r.start.ratio };
  rows.push(validate, start);
  say(`  ${validate.label}`, ms(validate.median_ms), `${r.validate.ratio.toFixed(2)}x the tools written out`);
  say(`  ${start.label}`, ms(start.median_ms), `${r.start.ratio.toFixed(2)}x the slowest alone`);
}
{
  const { serveBench } = await import('./serve.mjs');
  const r = await serveBench({ quick });
  const row = { id: 'serve-call', label: 'serve (stdio): tools/call round trip (median)', median_ms: r.call_round_trip_ms, p95_ms: r.call_round_trip_p95_ms, serve_overhead_ms: r.serve_overhead_ms };
  rows.push(row);
  say(`  ${row.label}`, ms(row.median_ms, 2), `(p95 ${r.call_round_trip_p95_ms.toFixed(2)} ms; executor alone ${r.executor_in_process_ms.toFixed(3)} ms)`);
}
{
  // serve --port against a plain server on the same official SDK, the same mock tool and load
  // generator, both revisions, 10 and 50 clients; interleaved rounds (bench/serve.mjs).
  const { serveHttpBench } = await import('./serve.mjs');
  const load = loadavg().map((l) => Math.round(l * 100) / 100);
  for (const r of await serveHttpBench({ quick })) {
    const row = {
      id: `serve-http-${r.era}-${r.clients}`,
      label: `serve --port, ${r.era}, ${r.clients} clients x ${r.calls_per_client} tools/call, vs a plain SDK server (median of ${r.rounds} interleaved rounds)`,
      throughput_ratio: r.throughput_ratio,
      p99_ratio: r.p99_ratio,
      p99_pooled_ratio: r.p99_pooled_ratio,
      p99_ratios: r.p99_ratios,
      toolman: r.toolman,
      baseline: r.baseline,
      load_average_before: load,
      target: 'throughput >= 1.0x, p99 no worse',
    };
    rows.push(row);
    const f = (v, d = 3) => (v === undefined ? '?' : v.toFixed(d));
    say(`  serve --port ${r.era}, ${r.clients} clients: requests/s vs plain SDK`, `${r.throughput_ratio.toFixed(2)}x`, `${r.toolman.requests_per_s.toFixed(0)} vs ${r.baseline.requests_per_s.toFixed(0)}/s; p99 ${f(r.toolman.p99_ms, 1)} vs ${f(r.baseline.p99_ms, 1)} ms (ratio per round ${f(r.p99_ratio, 2)}x, pooled ${f(r.p99_pooled_ratio, 2)}x); CPU/call ${f(r.toolman.cpu_per_call_ms)} vs ${f(r.baseline.cpu_per_call_ms)} ms`);
  }
}
{
  const { replBench } = await import('./repl.mjs');
  const r = await replBench({ runs: quick ? 5 : 11, bareMs: results.bare_node_ms });
  if (!r) console.log('  toolman chat (REPL): skipped, tmux is not installed');
  else {
    rows.push({ id: 'repl', ...r });
    say(`  ${r.label}`, ms(r.median_ms), `${r.ratio_to_bare_node.toFixed(2)}x node -e 0`);
  }
}

results.load_average_at_end = loadavg().map((l) => Math.round(l * 100) / 100);
mkdirSync(join(root, '.bench'), { recursive: true });
writeFileSync(join(root, '.bench', 'results.json'), JSON.stringify(results, null, 2));
console.log(`\nload average at the end ${results.load_average_at_end.join(' ')}; written to .bench/results.json`);
