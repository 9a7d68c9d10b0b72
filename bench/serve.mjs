// `toolman serve` benchmark: the built binary over stdio, driven by the MCP SDK's own client.
//  - overhead per tools/call: sequential round trips of a mock tool that answers at once (median,
//    p95), i.e. JSON-RPC framing both ways, the SDK's checks and toolman's executor;
//  - the same call in process through the executor, for comparison (what serve adds is the difference);
//  - start: spawn to a connected, initialized client (median of a few).
// And over streamable HTTP (`serveHttpBench`): `toolman serve --port` against a plain server on the
// same official SDK (bench/serve-baseline.mjs), the same mock tool, driven by the same load
// generator (bench/serve-load.mjs): 10 and 50 clients at once, a fixed number of tools/call each,
// in both protocol revisions; requests/s, p50/p99 latency, and the server's CPU per call (its
// process's user + system time, from /proc, over the round). Rounds interleaved (the two servers
// take turns, and which goes first alternates), medians over the rounds.
// p99, two ways (both reported): `p99_ratio`, the median over the rounds of each round's
// toolman / plain p99 (each round's two runs are neighbours in time), and `p99_pooled_ratio`, the
// p99 of every latency of every round of one server against the other's. On 2 cores shared with
// the load generator (and, here, other work) one round's p99 is a handful of calls that waited
// behind a descheduling or a GC: an A/A run (toolman against the same build as `--before`,
// 2026-11-24, load 2-7) gave per-round p99 ratios from 0.5 to 2.0 and a median of them off 1.0 by
// up to 1.46x at 50 clients, so `p99_ratios` (every round's) is printed too, to show how far
// apart the rounds are. The pooled p99 weighs every call alike and moves less with one bad round;
// neither makes a 7-round figure on a loaded machine better than about +-15%.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dump } from 'js-yaml';
import { ToolManager } from '../dist/index.js';
import { drive } from './serve-load.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'toolman.js');
const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => sorted(values)[values.length >> 1];
const p95 = (values) => sorted(values)[Math.floor(values.length * 0.95)];
const ms = (started) => Number(process.hrtime.bigint() - started) / 1e6;

function benchCatalog() {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-serve-bench-'));
  const parameters = { type: 'object', properties: { q: { type: 'string', description: 'A query' }, n: { type: 'integer', minimum: 0, description: 'A number' } }, required: ['q'] };
  const tools = [{ name: 'instant', description: 'Answers at once, to measure what serve adds around a call.', effect: 'read', parameters, handler: { mock: [{ result: { ok: true, q: '{{q}}' } }] } }];
  for (let i = 0; i < 50; i++) tools.push({ name: `tool_${i}`, description: `Benchmark tool number ${i}.`, effect: 'read', parameters, handler: { mock: [{ result: { i } }] } });
  const file = join(dir, 'serve-bench.yaml');
  writeFileSync(file, dump({ toolman: 1, name: 'serve-bench', tools }));
  return { dir, file };
}

async function connect(file) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, '--catalog', file, 'serve'], env: { ...process.env, NO_COLOR: '1' }, stderr: 'ignore' });
  const client = new Client({ name: 'toolman-bench', version: '1.0.0' });
  const started = process.hrtime.bigint();
  await client.connect(transport);
  return { client, start_ms: ms(started) };
}

export async function serveBench({ quick = false } = {}) {
  const { dir, file } = benchCatalog();
  const runs = quick ? 500 : 3000;

  const starts = [];
  for (let i = 0; i < (quick ? 2 : 5); i++) {
    const { client, start_ms } = await connect(file);
    starts.push(start_ms);
    await client.close();
  }

  const { client } = await connect(file);
  const call = async (i) => {
    const started = process.hrtime.bigint();
    const result = await client.callTool({ name: 'instant', arguments: { q: `q${i}`, n: i } });
    const took = ms(started);
    if (result.isError) throw new Error(`a benchmark call failed: ${JSON.stringify(result.content)}`);
    return took;
  };
  for (let i = 0; i < 200; i++) await call(i);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await call(i));
  const listStarted = process.hrtime.bigint();
  await client.listTools();
  const list_ms = ms(listStarted);
  await client.close();

  // The executor alone, in process: the floor serve stands on.
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir });
  const session = await manager.session();
  const direct = [];
  for (let i = 0; i < 200; i++) await session.runTurn([{ id: 'w', name: 'instant', arguments: { q: `w${i}` } }]);
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await session.runTurn([{ id: 'c', name: 'instant', arguments: { q: `q${i}`, n: i } }]);
    direct.push(ms(started));
  }
  await manager.close();

  return {
    call_round_trip_ms: median(samples),
    call_round_trip_p95_ms: p95(samples),
    executor_in_process_ms: median(direct),
    serve_overhead_ms: median(samples) - median(direct),
    list_51_tools_ms: list_ms,
    start_to_initialized_ms: median(starts),
    calls: runs,
    target_ms: 2,
  };
}

/** A server process that prints its URL on stderr; its CPU time read from /proc (Linux) or not at all. */
async function startServer(args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let said = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not say its URL: ${said}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      said += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(said);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${said}`)));
  });
  child.stderr.resume();
  return { url, cpuMs: () => processCpuMs(child.pid), stop: () => child.kill('SIGTERM') };
}

let ticksPerSecond;
/** User + system CPU of a process, all threads, in ms (clock ticks: 10 ms resolution at 100 Hz). */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticksPerSecond ??= 100; // sysconf(_SC_CLK_TCK): 100 on every Linux Node supports
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

const percentile = (values, p) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * p))];

/**
 * `toolman serve --port` against the plain SDK server: every (revision, clients) pair, `rounds`
 * interleaved rounds, `calls` tools/call per client per round.
 */
export async function serveHttpBench({ quick = false, rounds = quick ? 3 : 7, calls = quick ? 100 : 200, clientCounts = [10, 50], eras = ['legacy', 'modern'], before } = {}) {
  const { file } = benchCatalog();
  const servers = {
    toolman: await startServer([bin, '--catalog', file, 'serve', '--port', '0']),
    baseline: await startServer([join(root, 'bench', 'serve-baseline.mjs')]),
    // Another build of toolman (`--before DIR`: a folder holding its bin/ and dist/), in the same rounds: an A/B of a change.
    ...(before ? { before: await startServer([join(before, 'bin', 'toolman.js'), '--catalog', file, 'serve', '--port', '0']) } : {}),
  };
  const names = Object.keys(servers);
  const samples = {};
  try {
    // Warm both (JIT, sessions' code paths) before anything is timed.
    for (const era of eras) for (const server of Object.values(servers)) await drive({ url: server.url, era, clients: 10, calls: quick ? 100 : 300 });
    for (let round = 0; round < rounds; round++) {
      for (const era of eras) {
        for (const clients of clientCounts) {
          const key = `${era}-${clients}`;
          samples[key] ??= Object.fromEntries(names.map((name) => [name, []]));
          // Which goes first turns with the rounds.
          const shift = (round + clients) % names.length;
          const order = [...names.slice(shift), ...names.slice(0, shift)];
          for (const name of order) {
            const server = servers[name];
            const cpuBefore = server.cpuMs();
            const generatorBefore = process.cpuUsage();
            const run = await drive({ url: server.url, era, clients, calls });
            const generator = process.cpuUsage(generatorBefore);
            const cpuAfter = server.cpuMs();
            const total = clients * calls;
            if (run.failures.length) throw new Error(`${name} failed ${run.failures.length} of ${total} calls (${key}); the first: ${run.failures[0]}`);
            samples[key][name].push({
              latencies: run.latencies,
              requests_per_s: (total * 1000) / run.wall_ms,
              p50_ms: percentile(run.latencies, 0.5),
              p99_ms: percentile(run.latencies, 0.99),
              cpu_per_call_ms: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / total,
              generator_cpu_per_call_ms: (generator.user + generator.system) / 1000 / total,
            });
          }
        }
      }
    }
  } finally {
    for (const server of Object.values(servers)) server.stop();
  }
  const rows = [];
  for (const [key, { toolman, baseline, before: earlier }] of Object.entries(samples)) {
    const [era, clients] = key.split('-');
    const of = (list, field) => (list.some((s) => s[field] === undefined) ? undefined : median(list.map((s) => s[field])));
    const pooledP99 = (list) => percentile(list.flatMap((s) => s.latencies), 0.99);
    const summary = (list) => ({ requests_per_s: of(list, 'requests_per_s'), p50_ms: of(list, 'p50_ms'), p99_ms: of(list, 'p99_ms'), p99_pooled_ms: pooledP99(list), cpu_per_call_ms: of(list, 'cpu_per_call_ms'), generator_cpu_per_call_ms: of(list, 'generator_cpu_per_call_ms') });
    const round2 = (x) => Math.round(x * 100) / 100;
    rows.push({
      era: era === 'legacy' ? '2025-11-25' : '2026-07-28',
      clients: Number(clients),
      calls_per_client: calls,
      rounds,
      toolman: summary(toolman),
      baseline: summary(baseline),
      ...(earlier
        ? {
            before: summary(earlier),
            cpu_ratio_to_before: median(toolman.map((t, i) => t.cpu_per_call_ms / earlier[i].cpu_per_call_ms)),
            throughput_ratio_to_before: median(toolman.map((t, i) => t.requests_per_s / earlier[i].requests_per_s)),
            p99_ratio_to_before: median(toolman.map((t, i) => t.p99_ms / earlier[i].p99_ms)),
            p99_pooled_ratio_to_before: pooledP99(toolman) / pooledP99(earlier),
          }
        : {}),
      cpu_ratio: median(toolman.map((t, i) => t.cpu_per_call_ms / baseline[i].cpu_per_call_ms)),
      // Each round's two runs are neighbours in time: the ratio is taken per round, then the median.
      throughput_ratio: median(toolman.map((t, i) => t.requests_per_s / baseline[i].requests_per_s)),
      p99_ratio: median(toolman.map((t, i) => t.p99_ms / baseline[i].p99_ms)),
      p99_pooled_ratio: pooledP99(toolman) / pooledP99(baseline),
      p99_ratios: toolman.map((t, i) => round2(t.p99_ms / baseline[i].p99_ms)),
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const beforeAt = process.argv.indexOf('--before');
  const before = beforeAt > 0 ? process.argv[beforeAt + 1] : undefined;
  const roundsAt = process.argv.indexOf('--rounds');
  const rounds = roundsAt > 0 ? { rounds: Number(process.argv[roundsAt + 1]) } : {};
  if (!process.argv.includes('--http-only')) console.log(await serveBench({ quick }));
  const { loadavg } = await import('node:os');
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start of the HTTP rounds`);
  for (const row of await serveHttpBench({ quick, before, ...rounds })) console.log(JSON.stringify(row));
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
}
