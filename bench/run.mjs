// toolman benchmarks: plain Node, medians over repeated runs. `npm run bench` builds first.
//   node bench/run.mjs [--runs N] [--quick]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog } from './generate-catalog.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'toolman.js');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runs = Number(args[args.indexOf('--runs') + 1]) || (quick ? 5 : 21);
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

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function time(argv, { measureMemory = false } = {}) {
  const full = measureMemory ? ['--import', join(root, 'bench', 'rss-reporter.mjs'), ...argv] : argv;
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, full, { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  const rss = /BENCH_MAXRSS_KB=(\d+)/.exec(result.stderr ?? '');
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : undefined };
}

function series(label, argv, count, options) {
  const samples = [];
  for (let i = 0; i < count; i++) samples.push(time(argv, options));
  const result = { label, runs: count, median_ms: median(samples.map((s) => s.ms)) };
  if (options?.measureMemory) result.peak_rss_mb = Math.max(...samples.map((s) => s.rssMb ?? 0));
  return result;
}

const results = [];
const print = (r, extra = '') => console.log(`${r.label.padEnd(52)} ${r.median_ms.toFixed(1).padStart(8)} ms${r.peak_rss_mb ? `  peak ${r.peak_rss_mb.toFixed(0)} MB` : ''}${extra}`);

console.log(`toolman bench: node ${process.version}, medians of ${runs} runs (10k: ${bigRuns})\n`);
time(['-e', '0']); // warm the file cache
const bare = series('node -e 0', ['-e', '0'], runs);
print(bare);
for (const catalog of ['assistant', 'large']) {
  const r = series(`toolman validate catalogs/${catalog}.yaml`, [bin, 'validate', `catalogs/${catalog}.yaml`], runs);
  r.ratio_to_bare_node = r.median_ms / bare.median_ms;
  results.push(r);
  print(r, `  (${r.ratio_to_bare_node.toFixed(2)}x node -e 0)`);
}
const version = series('toolman --version', [bin, '--version'], runs);
version.ratio_to_bare_node = version.median_ms / bare.median_ms;
results.push(version);
print(version, `  (${version.ratio_to_bare_node.toFixed(2)}x node -e 0)`);

for (const [name, uniqueShapes] of [['catalog-10000', false], ['catalog-10000-unique', true]]) {
  const dir = join(root, '.bench', name);
  if (!existsSync(join(dir, 'catalog.yaml'))) {
    mkdirSync(dir, { recursive: true });
    generateCatalog(dir, 10_000, { uniqueShapes });
  }
  const label = `validate 10,000 tools${uniqueShapes ? ' (every schema a new shape)' : ' (real definitions, renamed)'}`;
  const r = series(label, [bin, 'validate', '--quiet', join('.bench', name, 'catalog.yaml')], bigRuns, { measureMemory: true });
  results.push(r);
  print(r);
}

// Search on 10,000 tools: index build and median query time, from `toolman eval search`.
{
  const dir = join(root, '.bench', 'catalog-10000');
  const casesFile = join(root, '.bench', 'search-cases-10000.jsonl');
  if (!existsSync(casesFile)) writeFileSync(casesFile, searchCases(join(dir, 'catalog.yaml')));
  const builds = [];
  const queries = [];
  for (let i = 0; i < bigRuns; i++) {
    const result = spawnSync(process.execPath, [bin, '--catalog', join('.bench', 'catalog-10000', 'catalog.yaml'), 'eval', 'search', '--cases', casesFile, '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    const doc = JSON.parse(result.stdout);
    builds.push(doc.timing.index_ms);
    queries.push(doc.timing.query_median_ms);
  }
  const r = { label: 'search index build, 10,000 tools', runs: bigRuns, median_ms: median(builds) };
  const q = { label: 'search query, 10,000 tools (median of 500 queries)', runs: bigRuns, median_ms: median(queries) };
  results.push(r, q);
  console.log(`${r.label.padEnd(52)} ${r.median_ms.toFixed(1).padStart(8)} ms`);
  console.log(`${q.label.padEnd(52)} ${q.median_ms.toFixed(3).padStart(8)} ms`);
}

// Token counting: format and count every tool of the 10,000-tool catalog (from `toolman budget`).
for (const provider of ['openai', 'anthropic', 'gemini']) {
  const samples = [];
  for (let i = 0; i < bigRuns; i++) {
    const result = spawnSync(process.execPath, [bin, '--catalog', join('.bench', 'catalog-10000', 'catalog.yaml'), 'budget', '--provider', provider, '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    samples.push(JSON.parse(result.stdout).timing.count_eager_ms);
  }
  const r = { label: `format + count 10,000 tools (${provider})`, runs: bigRuns, median_ms: median(samples) };
  results.push(r);
  console.log(`${r.label.padEnd(52)} ${r.median_ms.toFixed(1).padStart(8)} ms`);
}

{
  const { executorBench } = await import('./executor.mjs');
  const r = await executorBench({ quick });
  const overhead = { label: 'executor overhead per call (median)', median_ms: r.overhead_ms };
  const batch = { label: '100 safe mock tools, 50 ms each, one turn', median_ms: r.batch_100x50ms_ms };
  const moduleCall = { label: 'module tool call in its worker thread (median)', median_ms: r.module_call_ms };
  const moduleCold = { label: 'module tool, first call (worker start + import)', median_ms: r.module_cold_call_ms };
  results.push(overhead, batch, moduleCall, moduleCold);
  console.log(`${overhead.label.padEnd(52)} ${overhead.median_ms.toFixed(3).padStart(8)} ms`);
  console.log(`${batch.label.padEnd(52)} ${batch.median_ms.toFixed(1).padStart(8)} ms`);
  console.log(`${moduleCall.label.padEnd(52)} ${moduleCall.median_ms.toFixed(3).padStart(8)} ms`);
  console.log(`${moduleCold.label.padEnd(52)} ${moduleCold.median_ms.toFixed(1).padStart(8)} ms`);
}

{
  const { chatBench } = await import('./chat.mjs');
  const r = await chatBench({ quick });
  const own = { label: 'chat: toolman time per round, large.yaml (median)', median_ms: r.own_per_round_ms };
  results.push(own);
  console.log(`${own.label.padEnd(52)} ${own.median_ms.toFixed(2).padStart(8)} ms`);
  for (const catalog of ['assistant', 'large']) {
    const first = { label: `chat --prompt: start to first request (${catalog})`, median_ms: r.first_request_ms[catalog], ratio_to_bare_node: r.first_request_ratio[catalog] };
    results.push(first);
    console.log(`${first.label.padEnd(52)} ${first.median_ms.toFixed(1).padStart(8)} ms  ${first.ratio_to_bare_node.toFixed(2)}x node -e 0 (its own baseline)`);
  }
}

{
  const { testingBench } = await import('./testing.mjs');
  const r = await testingBench({ quick });
  const suite = { label: `test: ${r.test_cases} cases, ${r.test_latency_ms} ms latency, ${r.test_concurrency} at once`, median_ms: r.test_wall_s * 1000, ratio_to_ideal: r.test_ratio_to_ideal };
  const diff = { label: 'diff of two versions of large.yaml', median_ms: r.diff_large_median_ms };
  results.push(suite, diff);
  console.log(`${suite.label.padEnd(52)} ${suite.median_ms.toFixed(0).padStart(8)} ms  ${r.test_ratio_to_ideal.toFixed(2)}x the ideal`);
  console.log(`${diff.label.padEnd(52)} ${diff.median_ms.toFixed(0).padStart(8)} ms`);
}

{
  const { shardsBench } = await import('./shards.mjs');
  const r = await shardsBench({ quick });
  const head = r.live_large_warm;
  const row = { label: `test: 1,000 runs as 4 shards + merge, CPU vs whole`, median_ms: head.sharded_cpu_ms, whole_cpu_ms: head.whole_cpu_ms, ratio_to_unsharded: head.ratio, merged_equals_whole: head.merged_equals_whole, context: { cache_off: r.live_large_cache_off.ratio, replay_small: r.replay_small_cache_off.ratio } };
  results.push(row);
  console.log(`${row.label.padEnd(52)} ${row.median_ms.toFixed(0).padStart(8)} ms  ${head.ratio.toFixed(2)}x the whole run's ${head.whole_cpu_ms} ms (live, large.yaml, ${head.cpu_per_run_ms} ms a run, cache warm; cache off ${r.live_large_cache_off.ratio.toFixed(2)}x; small replay ${r.replay_small_cache_off.ratio.toFixed(2)}x); merge = whole: ${head.merged_equals_whole}`);
  const { validateRulesBench } = await import('./validate-rules.mjs');
  const r = await validateRulesBench({ quick });
  const rules = { label: 'validate large.yaml: what the issue-20 rules add', median_ms: r.new_rules_ms, share_of_validate: r.new_rules_share, with_quality_ms: r.new_rules_with_quality_ms, warm_ms: r.warm_ms };
  results.push(rules);
  console.log(`${rules.label.padEnd(52)} ${rules.median_ms.toFixed(1).padStart(8)} ms  ${(100 * r.new_rules_share).toFixed(1)}% of validate (${r.validate_large_ms.toFixed(0)} ms); --quality ${r.new_rules_with_quality_ms.toFixed(1)} ms`);
}

{
  const { mcpBench } = await import('./mcp.mjs');
  const r = await mcpBench({ quick });
  const validate = { label: 'validate, 3 MCP servers, tool lists cached', median_ms: r.validate.cached_ms, ratio_to_written_out: r.validate.ratio };
  const start = { label: '3 stdio MCP servers started in parallel', median_ms: r.start.parallel_ms, ratio_to_slowest_alone: r.start.ratio };
  results.push(validate, start);
  console.log(`${validate.label.padEnd(52)} ${validate.median_ms.toFixed(1).padStart(8)} ms  ${r.validate.ratio.toFixed(2)}x the tools written out`);
  console.log(`${start.label.padEnd(52)} ${start.median_ms.toFixed(1).padStart(8)} ms  ${r.start.ratio.toFixed(2)}x the slowest alone`);
}

{
  const { serveBench } = await import('./serve.mjs');
  const r = await serveBench({ quick });
  const call = { label: 'serve (stdio): tools/call round trip (median)', median_ms: r.call_round_trip_ms, p95_ms: r.call_round_trip_p95_ms, serve_overhead_ms: r.serve_overhead_ms };
  results.push(call);
  console.log(`${call.label.padEnd(52)} ${call.median_ms.toFixed(2).padStart(8)} ms  (p95 ${r.call_round_trip_p95_ms.toFixed(2)} ms; executor alone ${r.executor_in_process_ms.toFixed(3)} ms)`);
}

{
  const { replBench } = await import('./repl.mjs');
  const r = await replBench({ runs: quick ? 5 : 11, bareMs: bare.median_ms });
  if (!r) console.log('toolman chat (REPL): skipped, tmux is not installed');
  else {
    results.push(r);
    console.log(`${r.label.padEnd(52)} ${r.median_ms.toFixed(1).padStart(8)} ms  ${r.ratio_to_bare_node.toFixed(2)}x node -e 0`);
  }
}

mkdirSync(join(root, '.bench', '.'), { recursive: true });
writeFileSync(join(root, '.bench', 'results.json'), JSON.stringify({ node: process.version, bare_node_ms: bare.median_ms, results }, null, 2));
console.log('\nwritten to .bench/results.json');
