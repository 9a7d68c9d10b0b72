import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import { parseJsonText } from '../../shared/json-text.js';
import { readRegularFile } from '../../shared/read-file.js';
import type { RunResult } from '../../testing/run-suite.js';
import type { SuitesHost, SuitesRequest } from '../../testing/run-suites.js';
import { DEFAULT_ALPHA } from '../../testing/sequential-test.js';
import { INTERRUPTED, type Prices } from '../../testing/suite-types.js';
import type { CliIO } from '../io.js';
import { withManager } from '../open-manager.js';
import { relayInteraction } from '../../manager/mcp-client.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { plainText } from '../output/terminal-text.js';
import type { FinishOptions } from './test-finish.js';

/**
 * What every `toolman test` command reads from its flags and how its runs reach the CLI: the
 * options, the request the runner takes, the host (catalogs through withManager, lines and
 * progress on stderr). Shared by `test`, `test --compare`, `test --coverage`, `diff --suite`
 * and `lock --gate`, so none of them imports another command.
 */
export interface TestOptions extends FinishOptions {
  suites: string[];
  /** --catalog: the catalog every suite runs on. */
  catalog?: string[];
  /** --suite-catalog: load the catalog a suite names when none is given (only mock handlers answer). */
  suiteCatalog?: boolean;
  /** --live-tools: honour a suite's `tools: live`. */
  liveTools?: boolean;
  provider?: string[];
  baseUrl?: string;
  record?: string;
  replay?: string;
  maxCost?: string;
  minPassRate?: string;
  concurrency?: string;
  repeat?: string;
  prices?: string;
  compare?: string[];
  /** --sequential [ALPHA]: stop each case once its verdict is settled. */
  sequential?: boolean | string;
  /** --shard I/N. */
  shard?: string;
  /** --coverage: what the suites exercise of the catalog; nothing runs. */
  coverage?: boolean;
  signal?: AbortSignal;
}

/** A decimal number (no hex, no exponent, no empty string) in [min, max]; with `integer`, a whole one. */
export function number(value: string | undefined, flag: string, min: number, max: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const pattern = integer ? /^\s*\d+\s*$/ : /^\s*(?:\d+(?:\.\d*)?|\.\d+)\s*$/;
  const n = Number(value);
  if (!pattern.test(value) || !Number.isFinite(n) || n < min || n > max) {
    throw new ToolmanError(ErrorCode.USAGE, `${flag} takes ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return n;
}

/** `--shard I/N`: this machine's slice, 1 <= I <= N <= 1024. */
export function parseShard(value: string): { index: number; count: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count < 1 || index > count || count > 1024) {
    throw new ToolmanError(ErrorCode.USAGE, `--shard takes I/N, this machine's share of N (1 <= I <= N <= 1024), not ${JSON.stringify(value)}`, { hint: 'e.g. --shard 2/4 on the second of four CI machines; join their --json with toolman test merge' });
  }
  return { index, count };
}

/** The flags as the runner takes them, each checked (a bad number is a usage error before anything runs). */
export async function suitesRequest(options: TestOptions, io: CliIO): Promise<SuitesRequest> {
  const { parseProvider } = await import('../../testing/load-suite.js');
  const repeat = number(options.repeat, '--repeat', 1, 100, true);
  const maxCost = number(options.maxCost, '--max-cost', 0, 1e9);
  return {
    suites: options.suites,
    ...(options.catalog?.length ? { catalog: options.catalog } : {}),
    suiteCatalogs: options.suiteCatalog === true,
    liveTools: options.liveTools === true,
    ...(options.provider?.length ? { providers: options.provider.map(parseProvider) } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.record ? { record: options.record } : {}),
    ...(options.replay ? { replay: options.replay } : {}),
    ...(repeat !== undefined ? { repeat } : {}),
    concurrency: number(options.concurrency, '--concurrency', 1, 64, true) ?? 4,
    ...(maxCost !== undefined ? { maxCost } : {}),
    minPassRate: number(options.minPassRate, '--min-pass-rate', 0, 1) ?? 0,
    prices: options.prices ? readPrices(options.prices, io.cwd) : {},
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sequential !== undefined && options.sequential !== false ? { sequential: { alpha: options.sequential === true ? DEFAULT_ALPHA : number(options.sequential, '--sequential', 0.0001, 0.5)! } } : {}),
    ...(options.shard ? { shard: parseShard(options.shard) } : {}),
  };
}

/**
 * The runner's surroundings on the command line: catalogs opened through withManager, lines and
 * progress on stderr. With `reuse`, a manager asked for again (the same catalogs, the same
 * variant) is the one already open, so a run opens and validates its catalog once, not once to
 * check and again to run; `close()` then closes them all.
 */
export function suitesHost(io: CliIO, reuse = false): SuitesHost & { close(): Promise<void> } {
  const open = new Map<string, { manager: ToolManager; done: () => void; closed: Promise<void> }>();
  return {
    cwd: io.cwd,
    open: async (catalogs, run, namedBy, share) => {
      // A live MCP tool's server may ask during a case: the case's `elicitation:` answers (src/testing/elicitation-stubs.ts).
      const options = { requireValid: 'all' as const, ...(namedBy ? { namedBy } : {}), mcpInteraction: relayInteraction((line) => void io.stderr.write(`${line}\n`)) };
      if (!reuse || share === undefined) return withManager(io, catalogs, run, options);
      const key = JSON.stringify([catalogs ?? null, namedBy ?? null, share]);
      let entry = open.get(key);
      if (!entry) {
        // withManager holds the manager open until `done` (the end of the command), then closes it.
        let done!: () => void;
        const held = new Promise<void>((resolve) => (done = resolve));
        let opened!: (manager: ToolManager) => void;
        const ready = new Promise<ToolManager>((resolve) => (opened = resolve));
        const closed = withManager(io, catalogs, async (manager) => {
          opened(manager);
          await held;
        }, options);
        // A catalog that cannot be opened rejects `closed` before `ready` ever resolves.
        const manager = await Promise.race([ready, closed.then(() => undefined as never)]);
        entry = { manager, done, closed };
        open.set(key, entry);
      }
      return run(entry.manager);
    },
    say: (line) => io.stderr.write(`${line}\n`),
    progress: (label) => progressBar(io, label),
    close: async () => {
      for (const entry of open.values()) entry.done();
      await Promise.all([...open.values()].map((e) => e.closed));
      open.clear();
    },
  };
}

/** A folder that must exist (recordings to replay): a usage error, before anything runs. */
export function requireFolder(folder: string, cwd: string, flag: string, hint = 'record one with: toolman test SUITE --record DIR'): void {
  const path = resolve(cwd, folder);
  let ok = false;
  try {
    ok = statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new ToolmanError(ErrorCode.USAGE, `${flag} ${plainText(folder)}: no such folder`, { hint });
}

/** `--prices FILE`: {"model": {"input": dollars per million, "output": ...}}. */
function readPrices(file: string, cwd: string): Prices {
  const value = parseJsonText(readRegularFile(file, { cwd, label: '--prices', maxBytes: 1 << 20 }), file);
  if (!isRecord(value)) throw new ToolmanError(ErrorCode.USAGE, `${file}: give prices as {"MODEL": {"input": N, "output": N}} in dollars per million tokens`);
  const prices: Prices = {};
  for (const [model, row] of Object.entries(value)) {
    const cached = isRecord(row) ? row.cached_input : undefined;
    if (!isRecord(row) || typeof row.input !== 'number' || typeof row.output !== 'number' || row.input < 0 || row.output < 0 || (cached !== undefined && (typeof cached !== 'number' || cached < 0))) {
      throw new ToolmanError(ErrorCode.USAGE, `${file}: the price of ${JSON.stringify(model)} needs "input" and "output" (and may give "cached_input"), dollars per million tokens`);
    }
    Object.defineProperty(prices, model, { value: { input: row.input, output: row.output, ...(typeof cached === 'number' ? { cached_input: cached } : {}) }, enumerable: true });
  }
  return prices;
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line per tenth elsewhere (CI logs). */
function progressBar(io: CliIO, label: string): { update: (result: RunResult, done: number, total: number) => void; end: () => void } {
  const tty = io.stderr.isTTY === true;
  let failed = 0;
  let lastTenth = -1;
  let drawn = false;
  return {
    update(result, done, total) {
      if (result.error === INTERRUPTED) return; // said once, at the end
      // A run that could not run is no failure: the report says so apart.
      if (!result.passed && result.error === null) failed++;
      if (tty) {
        const width = 24;
        const filled = Math.round((done / total) * width);
        io.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} runs${failed ? `, ${failed} failed` : ''}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor((done / total) * 10);
      if (tenth !== lastTenth && (tenth > lastTenth || done === total)) {
        lastTenth = tenth;
        io.stderr.write(`${label}: ${done}/${total} runs${failed ? `, ${failed} failed` : ''}\n`);
      }
    },
    end() {
      if (tty && drawn) io.stderr.write('\n');
    },
  };
}
