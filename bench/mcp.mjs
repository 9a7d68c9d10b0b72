// MCP servers as tool sources (no network; servers from node_modules and a test fixture):
//  - `toolman validate` of a catalog with three MCP servers whose tool lists are cached (no server
//    starts), against the same tools written out in catalog files (target: within 1.2x);
//  - three stdio servers started in parallel by ToolManager.open, against the slowest alone
//    (target: within 1.3x).
//   node bench/mcp.mjs [--quick]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin', 'toolman.js');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The three servers: the reference "everything" and "filesystem" servers, and the scripted fixture's paged list. */
function servers(dir) {
  return {
    everything: { command: join(root, 'node_modules', '.bin', 'mcp-server-everything'), args: [], prefix: 'ev_' },
    files: { command: join(root, 'node_modules', '.bin', 'mcp-server-filesystem'), args: [dir], prefix: 'fs_' },
    scripted: { command: process.execPath, args: [join(root, 'test', 'fixtures', 'mcp', 'servers', 'scripted-server.mjs'), 'plain'], prefix: 'sc_' },
  };
}

function catalogText(entries) {
  const lines = ['toolman: 1', 'name: mcp-bench', 'mcp_servers:'];
  for (const [name, s] of Object.entries(entries)) lines.push(`  ${name}:`, `    command: ${JSON.stringify(s.command)}`, `    args: [${s.args.map((a) => JSON.stringify(a)).join(', ')}]`, `    prefix: ${s.prefix}`);
  return lines.join('\n') + '\n';
}

function run(argv, env, cwd) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, ...argv], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 && result.status !== 1) throw new Error(`toolman ${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

export async function mcpBench({ quick = false } = {}) {
  const runs = quick ? 5 : 15;
  const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-bench-'));
  const cache = join(dir, 'cache');
  const entries = servers(dir);
  writeFileSync(join(dir, 'servers.yaml'), catalogText(entries));

  // Written out: each server snapshotted with `import --mcp`, prefixed as the server entry does, included from one root.
  for (const [name, s] of Object.entries(entries)) {
    const file = join(dir, `${name}.yaml`);
    run(['import', '--mcp', '-o', file, '--force', '--', s.command, ...s.args], { TOOLMAN_CACHE_DIR: 'off' }, dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ {2}- name: (\S+)$/gm, `  - name: ${s.prefix}$1`));
  }
  writeFileSync(join(dir, 'written.yaml'), `toolman: 1\nname: mcp-bench-written\ninclude: [everything.yaml, files.yaml, scripted.yaml]\n`);

  // Fill the cache once (this starts the servers), then validate from it: nothing starts.
  run(['list', '-c', 'servers.yaml'], { TOOLMAN_CACHE_DIR: cache }, dir);
  const cachedTools = JSON.parse(run(['list', '-c', 'servers.yaml', '--json'], { TOOLMAN_CACHE_DIR: cache }, dir).stdout).tools.length;
  const writtenTools = JSON.parse(run(['list', '-c', 'written.yaml', '--json'], { TOOLMAN_CACHE_DIR: 'off' }, dir).stdout).tools.length;
  const cached = [];
  const written = [];
  for (let i = 0; i < runs; i++) {
    cached.push(run(['validate', 'servers.yaml'], { TOOLMAN_CACHE_DIR: cache }, dir).ms);
    written.push(run(['validate', 'written.yaml'], { TOOLMAN_CACHE_DIR: 'off' }, dir).ms);
  }
  const validate = { tools: { cached: cachedTools, written: writtenTools }, cached_ms: median(cached), written_ms: median(written), ratio: median(cached) / median(written), target: 1.2 };

  // Parallel start, in process: ToolManager.open with no cache starts every server and lists its tools.
  const bundle = await bundleForScript('mcp-bench', ["export { ToolManager } from './src/manager/tool-manager.ts';"]);
  const { ToolManager } = await import(bundle);
  const openMs = async (file) => {
    const started = performance.now();
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { ...process.env, TOOLMAN_CACHE_DIR: 'off' }, requireValid: false });
    const ms = performance.now() - started;
    const unavailable = manager.mcpServers().filter((s) => s.source !== 'live');
    await manager.close();
    if (unavailable.length) throw new Error(`servers did not start: ${JSON.stringify(unavailable)}`);
    return ms;
  };
  for (const [name, s] of Object.entries(entries)) writeFileSync(join(dir, `alone-${name}.yaml`), catalogText({ [name]: s }));
  const startRuns = quick ? 3 : 7;
  await openMs(join(dir, 'servers.yaml')); // warm the file cache
  const alone = {};
  for (const name of Object.keys(entries)) {
    const samples = [];
    for (let i = 0; i < startRuns; i++) samples.push(await openMs(join(dir, `alone-${name}.yaml`)));
    alone[name] = median(samples);
  }
  const together = [];
  for (let i = 0; i < startRuns; i++) together.push(await openMs(join(dir, 'servers.yaml')));
  const slowest = Math.max(...Object.values(alone));
  const start = { alone_ms: alone, parallel_ms: median(together), slowest_ms: slowest, ratio: median(together) / slowest, target: 1.3 };
  return { validate, start };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await mcpBench({ quick: process.argv.includes('--quick') });
  console.log(`validate, 3 MCP servers cached (${r.validate.tools.cached} tools)  ${r.validate.cached_ms.toFixed(1)} ms`);
  console.log(`validate, the same tools written out (${r.validate.tools.written})   ${r.validate.written_ms.toFixed(1)} ms  ratio ${r.validate.ratio.toFixed(2)} (target <= ${r.validate.target})`);
  console.log(`start alone: ${Object.entries(r.start.alone_ms).map(([n, ms]) => `${n} ${ms.toFixed(0)} ms`).join(', ')}`);
  console.log(`start all three in parallel                     ${r.start.parallel_ms.toFixed(0)} ms  ratio to slowest ${r.start.ratio.toFixed(2)} (target <= ${r.start.target})`);
}
