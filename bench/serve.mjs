// `toolman serve` benchmark: the built binary over stdio, driven by the MCP SDK's own client.
//  - overhead per tools/call: sequential round trips of a mock tool that answers at once (median,
//    p95), i.e. JSON-RPC framing both ways, the SDK's checks and toolman's executor;
//  - the same call in process through the executor, for comparison (what serve adds is the difference);
//  - start: spawn to a connected, initialized client (median of a few).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dump } from 'js-yaml';
import { ToolManager } from '../dist/index.js';

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

if (import.meta.url === `file://${process.argv[1]}`) console.log(await serveBench({ quick: process.argv.includes('--quick') }));
