import { statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClientConnection } from '../../providers/model-client.js';
import { PROVIDER_ENV } from '../../providers/credentials.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import { parseJsonText } from '../../shared/json-text.js';
import { readRegularFile } from '../../shared/read-file.js';
import type { RunResult } from '../../testing/run-suite.js';
import type { SuiteReport } from '../../testing/suite-report.js';
import { INTERRUPTED, type Prices, type ProviderTarget, type Suite } from '../../testing/suite-types.js';
import type { Variant } from '../../testing/compare-runs.js';
import { formatOptions } from '../format-options.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { plainText } from '../output/terminal-text.js';

export interface TestOptions {
  suites: string[];
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

export interface SuiteOutcome {
  suite: Suite;
  /** The runs that finished: an interrupted run is not a result. */
  results: RunResult[];
  report: SuiteReport;
  /** Runs Ctrl-C stopped or kept from starting. */
  interrupted: number;
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
 * a recording), checks the expectations, prints the report; exit 1 when a case is under its
 * min_pass_rate or the whole run under --min-pass-rate.
 */
export async function testCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  if (options.compare?.length) {
    const { compareCommand } = await import('./test-compare.js');
    return compareCommand(options, io);
  }
  if (options.suites.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name at least one suite file', { hint: 'e.g. toolman test suites/assistant.yaml --replay suites/recordings' });
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  const minPassRate = number(options.minPassRate, '--min-pass-rate', 0, 1) ?? 0;
  if (options.replay) requireFolder(options.replay, io.cwd, '--replay');
  number(options.concurrency, '--concurrency', 1, 64, true);
  await preflight(options, io, [undefined]);
  const outcomes = await runSuites(options, io);
  const c = palette(colorEnabled(io, io.stdout));
  if (options.junit) {
    const { junitXml } = await import('../../testing/junit-report.js');
    writeFileSync(resolve(io.cwd, options.junit), junitXml(outcomes.map((o) => ({ name: o.suite.name, results: o.results }))));
  }
  const allRuns = outcomes.flatMap((o) => o.results);
  const overall = allRuns.length ? allRuns.filter((r) => r.passed).length / allRuns.length : 0;
  // Ctrl-C: what finished is reported as such; the verdict is not given on part of the runs.
  const interrupted = options.signal?.aborted === true;
  const notRun = outcomes.reduce((n, o) => n + o.interrupted, 0);
  const ok = !interrupted && outcomes.every((o) => o.report.failed_cases === 0) && overall >= minPassRate - 1e-9;
  if (options.json) {
    io.stdout.write(JSON.stringify({ ok, ...(interrupted ? { interrupted: true, runs_not_finished: notRun } : {}), pass_rate: overall, min_pass_rate: minPassRate, suites: outcomes.map((o) => ({ ...o.report, runs: o.results })) }, null, 2) + '\n');
  } else if (interrupted) {
    const { printTestReport } = await import('../output/test-report.js');
    for (const outcome of outcomes) if (outcome.results.length) await printTestReport(outcome.report, io);
    const finished = allRuns.length;
    io.stdout.write(`\n${c.yellow('interrupted')}: ${finished} run${finished === 1 ? '' : 's'} finished (${allRuns.filter((r) => r.passed).length} passed), ${notRun} stopped or not started${finished ? '; the figures above cover the finished runs only' : ''}\n`);
  } else {
    const { printTestReport } = await import('../output/test-report.js');
    for (const outcome of outcomes) {
      await printTestReport(outcome.report, io);
      for (const p of outcome.report.providers) {
        if (p.cost_missing.runs === 0) continue;
        const why = Object.entries(p.cost_missing.reasons).map(([reason, n]) => `${n} ${plainText(reason)}`).join(', ');
        io.stdout.write(c.dim(`cost of ${plainText(p.provider)}: ${p.cost_usd === null ? 'none' : `$${p.cost_usd.toFixed(4)}`} over ${p.runs - p.cost_missing.runs} priced runs; ${p.cost_missing.runs} without a cost (${why})\n`));
      }
    }
    const failed = outcomes.reduce((n, o) => n + o.report.failed_cases, 0);
    io.stdout.write(`\n${ok ? c.green('passed') : c.red('failed')}: ${allRuns.filter((r) => r.passed).length}/${allRuns.length} runs passed (${(overall * 100).toFixed(1)}%)${failed ? `; ${failed} case${failed === 1 ? '' : 's'} under min_pass_rate` : ''}${overall < minPassRate - 1e-9 ? `; under --min-pass-rate ${minPassRate}` : ''}\n`);
  }
  if (options.signal?.aborted) return EXIT.INTERRUPTED;
  return ok ? EXIT.OK : EXIT.FAILURE;
}

interface PlannedSuite {
  suite: Suite;
  targets: ProviderTarget[];
  prices: Prices;
  catalogs: string[];
}

/** One suite file as a variant runs it: repeats, profile, providers, prices and catalogs applied. */
async function planSuite(file: string, options: TestOptions, io: CliIO, variant: Variant | undefined, extraPrices: Prices): Promise<PlannedSuite> {
  const { loadSuite, parseProvider } = await import('../../testing/load-suite.js');
  const { DEFAULT_PRICES } = await import('../../testing/prices.js');
  const repeat = number(options.repeat, '--repeat', 1, 100, true);
  const suite = loadSuite(file, { cwd: io.cwd });
  if (repeat !== undefined) for (const c of suite.cases) c.repeat = repeat;
  if (variant?.profile) suite.profile = variant.profile;
  const targets: ProviderTarget[] = options.provider?.length ? options.provider.map(parseProvider) : suite.providers;
  const prices: Prices = { ...DEFAULT_PRICES, ...suite.prices, ...extraPrices };
  const catalogs = variant?.catalog ? variant.catalog.map((f) => resolve(io.cwd, f)) : suite.catalog;
  return { suite, targets, prices, catalogs };
}

const labelOf = (suite: Suite, variant: Variant | undefined) => `${plainText(suite.name)}${variant?.label ? ` [${variant.label}]` : ''}`;

/**
 * Before anything runs: every suite opened on every variant (a missing catalog file or profile
 * stops here, not after another variant's runs), and for a live run the estimate of the whole
 * invocation, held against --max-cost. With a cap, every model needs a price.
 */
export async function preflight(options: TestOptions, io: CliIO, variants: readonly (Variant | undefined)[]): Promise<void> {
  const { PRICES_DATE } = await import('../../testing/prices.js');
  const maxCost = number(options.maxCost, '--max-cost', 0, 1e9);
  const extraPrices = options.prices ? readPrices(options.prices, io.cwd) : {};
  const live = !options.replay;
  let total = 0;
  let runs = 0;
  const unpriced = new Set<string>();
  for (const variant of variants) {
    for (const file of options.suites) {
      const { suite, targets, prices, catalogs } = await planSuite(file, options, io, variant, extraPrices);
      if (variant?.catalog) for (const f of catalogs) requireFile(f, `variant ${variant.label} (${variant.spec})`);
      await withManager(
        io,
        catalogs,
        async (manager) => {
          if (variant?.loading) (await import('../../testing/compare-runs.js')).applyLoading(manager.catalog, variant.loading);
          if (variant?.profile && !manager.catalog.profiles.has(variant.profile)) {
            throw new ToolmanError(ErrorCode.USAGE, `variant ${variant.label} (${plainText(variant.spec)}): the catalog of ${plainText(suite.name)} has no profile ${JSON.stringify(plainText(variant.profile))}`, { hint: `its profiles: ${[...manager.catalog.profiles.keys()].map(plainText).join(', ') || '(none)'}` });
          }
          if (!live) return;
          connections(targets, options, io);
          const { estimateCost } = await import('../../testing/estimate-cost.js');
          const format = formatOptions(manager.catalog.format, {});
          const estimate = await estimateCost(manager, suite, targets, format, prices);
          runs += estimate.runs;
          if (estimate.usd === null) for (const m of estimate.unpriced) unpriced.add(plainText(m));
          else total += estimate.usd;
          io.stderr.write(
            `estimated cost of ${labelOf(suite, variant)}: ${estimate.usd === null ? `unknown (no price for ${estimate.unpriced.map(plainText).join(', ')}; give one with --prices FILE)` : `$${estimate.usd.toFixed(4)}`} for ${estimate.runs} runs, ~${estimate.input_tokens} input and ~${estimate.output_tokens} output tokens (list prices of ${PRICES_DATE}; ${estimate.method})\n`,
          );
        },
        { requireValid: 'all' },
      );
    }
  }
  if (!live) return;
  if (variants.length * options.suites.length > 1) io.stderr.write(`estimated cost of this run: ${unpriced.size ? `unknown (no price for ${[...unpriced].join(', ')})` : `$${total.toFixed(4)}`} for ${runs} runs\n`);
  if (maxCost === undefined) return;
  if (unpriced.size) {
    throw new ToolmanError(ErrorCode.USAGE, `--max-cost ${maxCost} needs a price for every model, and there is none for ${[...unpriced].join(', ')}; nothing was run`, { hint: 'give prices with --prices FILE ({"MODEL": {"input": N, "output": N}}, dollars per million tokens)' });
  }
  if (total > maxCost) {
    throw new ToolmanError(ErrorCode.BUDGET, `the estimated cost $${total.toFixed(4)} is over --max-cost ${maxCost}; nothing was run`, { hint: 'raise --max-cost, lower --repeat, or run fewer providers' });
  }
}

/** What the runs of one invocation have spent so far, against --max-cost. */
export interface Budget {
  spent: number;
}

/** Loads and runs every suite (each over its own catalog); `preflight` has checked them and the cost. */
export async function runSuites(options: TestOptions, io: CliIO, variant?: Variant, budget: Budget = { spent: 0 }): Promise<SuiteOutcome[]> {
  const { runSuite } = await import('../../testing/run-suite.js');
  const { summarizeRuns } = await import('../../testing/suite-report.js');
  const minPassRate = number(options.minPassRate, '--min-pass-rate', 0, 1) ?? 0;
  const concurrency = number(options.concurrency, '--concurrency', 1, 64, true) ?? 4;
  const maxCost = number(options.maxCost, '--max-cost', 0, 1e9);
  const extraPrices = options.prices ? readPrices(options.prices, io.cwd) : {};
  const outcomes: SuiteOutcome[] = [];
  for (const file of options.suites) {
    if (options.signal?.aborted) break;
    const { suite, targets, prices, catalogs } = await planSuite(file, options, io, variant, extraPrices);
    const outcome = await withManager(
      io,
      catalogs,
      async (manager) => {
        if (variant?.loading) (await import('../../testing/compare-runs.js')).applyLoading(manager.catalog, variant.loading);
        const format = formatOptions(manager.catalog.format, {});
        const live = !options.replay;
        const connection = live ? connections(targets, options, io) : undefined;
        const progress = progressBar(io, labelOf(suite, variant));
        const results = await runSuite({
          manager,
          suite,
          targets,
          format,
          ...(connection ? { connection } : {}),
          ...(options.record ? { record: resolve(io.cwd, options.record, variant?.label ?? '') } : {}),
          ...(options.replay ? { replay: resolve(io.cwd, options.replay, variant?.label ?? '') } : {}),
          concurrency,
          prices,
          ...(maxCost !== undefined ? { maxCost: Math.max(0, maxCost - budget.spent) } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          onResult: progress.update,
        });
        progress.end();
        budget.spent += results.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
        // Replay differences in tool results (and the loop's warnings), once each.
        const notices = new Map<string, string[]>();
        for (const r of results) for (const n of r.notices) notices.set(n, [...(notices.get(n) ?? []), `${r.case} #${r.repeat} [${r.provider}]`]);
        for (const [notice, runs] of notices) io.stderr.write(`warning: ${runs.slice(0, 3).map(plainText).join(', ')}${runs.length > 3 ? ` and ${runs.length - 3} more` : ''}: ${plainText(notice)}\n`);
        const finished = results.filter((r) => r.error !== INTERRUPTED);
        return { suite, results: finished, report: summarizeRuns(suite, finished, minPassRate), interrupted: results.length - finished.length };
      },
      { requireValid: 'all' },
    );
    outcomes.push(outcome);
  }
  return outcomes;
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

/** A file a variant names: missing, a usage error before anything runs. */
function requireFile(path: string, what: string): void {
  let ok = false;
  try {
    ok = statSync(path).isFile();
  } catch {
    ok = false;
  }
  if (!ok) throw new ToolmanError(ErrorCode.USAGE, `${what}: no such catalog file ${plainText(path)}`, { hint: 'a variant is a catalog file, profile:NAME, eager or deferred (or several joined with commas)' });
}

/** Live connections: each provider's key (or a local server's URL); a missing one stops the run before it starts. */
function connections(targets: readonly ProviderTarget[], options: TestOptions, io: CliIO): (target: ProviderTarget) => ClientConnection {
  const byProvider = new Map<string, ClientConnection>();
  for (const target of targets) {
    const spec = PROVIDER_ENV[target.provider];
    const baseUrl = options.baseUrl ?? io.env[spec.baseUrl] ?? undefined;
    const apiKey = spec.key.map((name) => io.env[name]).find((value) => value !== undefined && value !== '');
    if (!apiKey && !baseUrl) {
      throw new ToolmanError(ErrorCode.USAGE, `a live run with ${spec.label} needs ${spec.key[0]}`, { hint: `set ${spec.key[0]}, or run offline from recordings: toolman test SUITE --replay DIR` });
    }
    byProvider.set(target.provider, { apiKey: apiKey ?? 'local', ...(baseUrl ? { baseUrl } : {}) });
  }
  return (target) => byProvider.get(target.provider)!;
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
      if (!result.passed) failed++;
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
