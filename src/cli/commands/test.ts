import { statSync } from 'node:fs';
import { writePrivateFile } from '../../shared/output-file.js';
import { ERROR_PREFIX } from '../output/error-prefix.js';
import { resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import { parseJsonText } from '../../shared/json-text.js';
import { readRegularFile } from '../../shared/read-file.js';
import type { RunResult } from '../../testing/run-suite.js';
import type { SuitesHost, SuitesRequest } from '../../testing/run-suites.js';
import type { SuiteReport } from '../../testing/suite-report.js';
import { INTERRUPTED, type Prices } from '../../testing/suite-types.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { plainText } from '../output/terminal-text.js';

export interface TestOptions {
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
  json?: boolean;
  junit?: string;
  maxCost?: string;
  minPassRate?: string;
  concurrency?: string;
  repeat?: string;
  prices?: string;
  compare?: string[];
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

/**
 * `toolman test SUITE...`: runs each suite's cases with each provider through the live loop (or
 * a recording), checks the expectations, prints the report. Exit 1 when a case is under its
 * min_pass_rate or the whole run under --min-pass-rate; 2 when runs could not run (no recording,
 * the API failed): they are no verdict, not failures.
 */
export async function testCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  if (options.compare?.length) {
    const { compareCommand } = await import('./test-compare.js');
    return compareCommand(options, io);
  }
  if (options.suites.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name at least one suite file', { hint: 'e.g. toolman -c catalogs/assistant.yaml test suites/assistant.yaml --replay suites/recordings' });
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  const request = await suitesRequest(options, io);
  if (options.replay) requireFolder(options.replay, io.cwd, '--replay');
  const host = suitesHost(io);
  const { preflight, runSuites } = await import('../../testing/run-suites.js');
  await preflight(request, host, [undefined]);
  const outcomes = await runSuites(request, host);
  const c = palette(colorEnabled(io, io.stdout));
  if (options.junit) {
    const { junitXml } = await import('../../testing/junit-report.js');
    writePrivateFile(resolve(io.cwd, options.junit), junitXml(outcomes.map((o) => ({ name: o.suite.name, results: o.results }))), { label: '--junit', mode: 'replace', scope: { cwd: io.cwd } });
  }
  const ranRuns = outcomes.flatMap((o) => o.results.filter((r) => r.error === null));
  const notRun = outcomes.reduce((n, o) => n + o.report.not_run.runs, 0);
  const overall = ranRuns.length ? ranRuns.filter((r) => r.passed).length / ranRuns.length : 0;
  // Ctrl-C: what finished is reported as such; the verdict is not given on part of the runs.
  const interrupted = options.signal?.aborted === true;
  const stopped = outcomes.reduce((n, o) => n + o.interrupted, 0);
  const ok = !interrupted && notRun === 0 && outcomes.every((o) => o.report.failed_cases === 0) && overall >= request.minPassRate - 1e-9;
  if (options.json) {
    io.stdout.write(JSON.stringify({ ok, ...(interrupted ? { interrupted: true, runs_not_finished: stopped } : {}), pass_rate: overall, min_pass_rate: request.minPassRate, runs_not_run: notRun, suites: outcomes.map((o) => ({ ...o.report, runs: o.results })) }, null, 2) + '\n');
  } else {
    const { printTestReport } = await import('../output/test-report.js');
    for (const outcome of outcomes) {
      if (interrupted && outcome.results.length === 0) continue;
      await printTestReport(outcome.report, io);
      printNotRun(outcome.report, io);
      if (interrupted) continue;
      for (const p of outcome.report.providers) {
        if (p.cost_missing.runs === 0) continue;
        const why = Object.entries(p.cost_missing.reasons).map(([reason, n]) => `${n} ${plainText(reason)}`).join(', ');
        io.stdout.write(c.dim(`cost of ${plainText(p.provider)}: ${p.cost_usd === null ? 'none' : `$${p.cost_usd.toFixed(4)}`} over ${p.runs - p.cost_missing.runs} priced runs; ${p.cost_missing.runs} without a cost (${why})\n`));
      }
    }
    const passed = ranRuns.filter((r) => r.passed).length;
    if (interrupted) {
      io.stdout.write(`\n${c.yellow('interrupted')}: ${ranRuns.length} run${ranRuns.length === 1 ? '' : 's'} finished (${passed} passed), ${stopped} stopped or not started${ranRuns.length ? '; the figures above cover the finished runs only' : ''}\n`);
    } else if (ranRuns.length === 0 && notRun > 0) {
      io.stdout.write(`\n${c.red('could not run')}: none of the ${notRun} runs ran (see why above); no verdict\n`);
    } else {
      const failed = outcomes.reduce((n, o) => n + o.report.failed_cases, 0);
      const verdict = notRun ? c.red('incomplete') : ok ? c.green('passed') : c.red('failed');
      io.stdout.write(`\n${verdict}: ${passed}/${ranRuns.length} runs passed (${(overall * 100).toFixed(1)}%)${failed ? `; ${failed} case${failed === 1 ? '' : 's'} under min_pass_rate` : ''}${overall < request.minPassRate - 1e-9 ? `; under --min-pass-rate ${request.minPassRate}` : ''}${notRun ? `; ${notRun} run${notRun === 1 ? '' : 's'} could not run and ${notRun === 1 ? 'is' : 'are'} not counted` : ''}\n`);
    }
  }
  if (interrupted) return EXIT.INTERRUPTED;
  if (notRun > 0) return EXIT.USAGE;
  return ok ? EXIT.OK : EXIT.FAILURE;
}

/** Runs that could not run, each reason once with the runs it stopped. */
function printNotRun(report: SuiteReport, io: CliIO): void {
  if (report.not_run.runs === 0) return;
  io.stderr.write(`${ERROR_PREFIX} ${report.not_run.runs} run${report.not_run.runs === 1 ? '' : 's'} of ${plainText(report.suite)} could not run (not counted as passed or failed):\n`);
  for (const { reason, runs } of report.not_run.reasons.slice(0, 5)) io.stderr.write(`  ${runs.slice(0, 2).map(plainText).join(', ')}${runs.length > 2 ? ` and ${runs.length - 2} more` : ''}: ${plainText(reason)}\n`);
  if (report.not_run.reasons.length > 5) io.stderr.write(`  and ${report.not_run.reasons.length - 5} more reasons\n`);
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
  };
}

/** The runner's surroundings on the command line: catalogs opened through withManager, lines and progress on stderr. */
export function suitesHost(io: CliIO): SuitesHost {
  return {
    cwd: io.cwd,
    open: (catalogs, run, namedBy) => withManager(io, catalogs, run, { requireValid: 'all', ...(namedBy ? { namedBy } : {}) }),
    say: (line) => io.stderr.write(`${line}\n`),
    progress: (label) => progressBar(io, label),
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
    if (!isRecord(row) || typeof row.input !== 'number' || typeof row.output !== 'number' || row.input < 0 || row.output < 0) {
      throw new ToolmanError(ErrorCode.USAGE, `${file}: the price of ${JSON.stringify(model)} needs "input" and "output", dollars per million tokens`);
    }
    Object.defineProperty(prices, model, { value: { input: row.input, output: row.output }, enumerable: true });
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
