// The REPL's start: from launching `toolman chat` in a terminal (tmux) to its prompt on the screen,
// median of N runs, as a ratio to `node -e 0` (target: within 6x). `npm run bench` runs it last;
// alone: node bench/repl.mjs [--runs N]. Needs tmux and a build (npm run build).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'toolman.js');
const PROMPT = 'type a message, /help for commands';
const pauseCell = new Int32Array(new SharedArrayBuffer(4));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median ms of `node -e 0`, spawned directly (as bench/run.mjs measures it). */
export function bareNode(runs) {
  spawnSync(process.execPath, ['-e', '0']);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

/**
 * Starts `command` in a new tmux session and polls the pane until `marker` shows: the time from
 * asking tmux for the session to seeing the marker (polling costs a few ms, measured alike for
 * the baseline). Returns null when it does not show within 10 s.
 */
function timeToScreen(tmux, name, command, marker) {
  const started = process.hrtime.bigint();
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', '-c', root, command);
  let ms = null;
  for (;;) {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    const pane = spawnSync('tmux', ['-L', tmux.socket, 'capture-pane', '-p', '-t', name], { encoding: 'utf8' }).stdout ?? '';
    if (pane.includes(marker)) {
      ms = Number(process.hrtime.bigint() - started) / 1e6;
      break;
    }
    if (elapsed > 10_000) break;
    // Polling back to back would keep tmux (and a core) busy while toolman starts.
    Atomics.wait(pauseCell, 0, 0, 5);
  }
  spawnSync('tmux', ['-L', tmux.socket, 'kill-session', '-t', name]);
  return ms;
}

/** The REPL benchmark; null when tmux is missing. */
export async function replBench({ runs = 11, bareMs } = {}) {
  if (spawnSync('tmux', ['-V']).status !== 0) return null;
  const socket = `toolman-bench-${process.pid}`;
  const tmux = (...args) => {
    const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  tmux.socket = socket;
  const cache = join(root, '.bench', 'cache');
  mkdirSync(cache, { recursive: true });
  // The key and server are never used: the benchmark stops at the prompt.
  const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', TOOLMAN_CACHE_DIR: cache, NO_COLOR: '1' };
  tmux('new-session', '-d', '-s', 'keep', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), 'sleep 600');
  for (const [k, v] of Object.entries(env)) tmux('set-environment', '-g', k, v);
  try {
    const quote = (a) => `'${a}'`;
    const repl = [process.execPath, bin, '-c', 'catalogs/assistant.yaml', 'chat', '--no-transcript'].map(quote).join(' ');
    const hello = [process.execPath, '-e', 'process.stdout.write("node is up"); setTimeout(() => {}, 60000)'].map(quote).join(' ');
    timeToScreen(tmux, 'warm', repl, PROMPT); // the file cache and toolman's validation cache
    const samples = [];
    const baseline = [];
    for (let i = 0; i < runs; i++) {
      const ms = timeToScreen(tmux, `r${i}`, repl, PROMPT);
      if (ms === null) throw new Error('the REPL did not show its prompt within 10 s');
      samples.push(ms);
      const base = timeToScreen(tmux, `b${i}`, hello, 'node is up');
      if (base !== null) baseline.push(base);
    }
    const bare = bareMs ?? bareNode(runs);
    const result = { label: 'toolman chat (REPL): start to prompt, in tmux', runs, median_ms: median(samples), node_in_tmux_ms: median(baseline) };
    result.ratio_to_bare_node = result.median_ms / bare;
    return result;
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf('--runs') + 1]) || 11;
  const bare = bareNode(runs);
  const r = await replBench({ runs, bareMs: bare });
  if (!r) {
    console.log('tmux is not installed: the REPL benchmark needs it');
    process.exitCode = 1;
  } else {
    console.log(`node -e 0: ${bare.toFixed(1)} ms; node printing a line in tmux: ${r.node_in_tmux_ms.toFixed(1)} ms`);
    console.log(`${r.label}: ${r.median_ms.toFixed(1)} ms = ${r.ratio_to_bare_node.toFixed(2)}x node -e 0 (target: within 6x), median of ${runs}`);
  }
}
