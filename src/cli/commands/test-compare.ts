import type { Comparison, MetricDelta } from '../../testing/compare-runs.js';
import { ERROR_PREFIX } from '../output/error-prefix.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { createTable } from '../output/table.js';
import { plainText } from '../output/terminal-text.js';
import { requireFolder, suitesHost, suitesRequest, type TestOptions } from './test.js';
import { join } from 'node:path';

/**
 * `toolman test --compare A B SUITE...`: the same suites on two variants (catalog files,
 * profiles, eager or deferred loading), with the difference per case and overall, its 95%
 * interval and a verdict. Exit 1 when B's overall pass rate is worse for some provider.
 */
export async function compareCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  const given = options.compare ?? [];
  if (given.length < 2) throw new ToolmanError(ErrorCode.USAGE, '--compare takes two variants: A B', { hint: 'e.g. --compare old.yaml new.yaml, --compare eager deferred, --compare profile:a profile:b' });
  // `--compare A B suite.yaml`: what follows the two variants are suites.
  const suites = [...options.suites, ...given.slice(2)];
  if (suites.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name at least one suite file to compare on');
  // A comparison has no single pass rate or JUnit report to give them: refused, not ignored.
  for (const [flag, given] of [['--junit', options.junit], ['--min-pass-rate', options.minPassRate]] as const) {
    if (given !== undefined) throw new ToolmanError(ErrorCode.USAGE, `${flag} does not go with --compare`, { hint: `run each variant on its own for that: toolman test SUITE ${flag} ...` });
  }
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  const { parseVariant, compareRuns } = await import('../../testing/compare-runs.js');
  const a = parseVariant(given[0]!, 'A');
  const b = parseVariant(given[1]!, 'B');
  const request = await suitesRequest({ ...options, suites, compare: [] }, io);
  // A comparison's recordings are DIR/A and DIR/B, which only `--compare A B --record DIR` makes.
  if (options.replay) for (const label of ['', 'A', 'B']) requireFolder(join(options.replay, label), io.cwd, '--replay', 'record both variants with: toolman test SUITE --compare A B --record DIR');
  const host = suitesHost(io);
  const { preflight, runSuites } = await import('../../testing/run-suites.js');
  // Both variants checked (catalogs, profiles) and the whole cost estimated before either runs.
  await preflight(request, host, [a, b]);
  const budget = { spent: 0 };
  const outA = await runSuites(request, host, a, budget);
  const outB = await runSuites(request, host, b, budget);
  const comparison = compareRuns(a, b, outA.map((o) => ({ suite: o.suite.name, results: o.results })), outB.map((o) => ({ suite: o.suite.name, results: o.results })));
  if (options.json) io.stdout.write(JSON.stringify(comparison, null, 2) + '\n');
  else await printComparison(comparison, io);
  if (options.signal?.aborted) return EXIT.INTERRUPTED;
  // Runs that could not run are no verdict, as in a plain run: the comparison is incomplete.
  if (reportErrors(comparison, io)) return EXIT.USAGE;
  return comparison.overall.some((o) => o.pass_rate.verdict === 'worse') ? EXIT.FAILURE : EXIT.OK;
}

/**
 * Runs that could not run (no recording, a replay mismatch, the API failed) are left out of the
 * comparison, not counted as failures: said on stderr, and the comparison fails. True if any.
 */
export function reportErrors(comparison: Comparison, io: CliIO): boolean {
  if (comparison.errors.length === 0) return false;
  for (const side of ['A', 'B'] as const) {
    const mine = comparison.errors.filter((e) => e.variant === side);
    if (!mine.length) continue;
    const total = comparison.runs[side];
    io.stderr.write(`${ERROR_PREFIX} ${mine.length} of ${total} runs of ${side} (${plainText(side === 'A' ? comparison.a.spec : comparison.b.spec)}) could not run and are left out of the comparison:\n`);
    const reasons = new Map<string, string[]>();
    for (const e of mine) reasons.set(e.error, [...(reasons.get(e.error) ?? []), `${e.case} #${e.repeat} [${e.provider}]`]);
    for (const [reason, runs] of [...reasons].slice(0, 5)) io.stderr.write(`  ${runs.slice(0, 2).map(plainText).join(', ')}${runs.length > 2 ? ` and ${runs.length - 2} more` : ''}: ${plainText(reason)}\n`);
    if (reasons.size > 5) io.stderr.write(`  and ${reasons.size - 5} more reasons\n`);
  }
  return true;
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);
const signedPct = (x: number | null) => (x === null ? '-' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}`);
const num = (x: number | null) => (x === null ? '-' : Math.round(x).toString());
const signed = (x: number | null) => (x === null ? '-' : `${x > 0 ? '+' : ''}${Math.round(x)}`);

async function printComparison(comparison: Comparison, io: CliIO): Promise<void> {
  const c = palette(colorEnabled(io, io.stdout));
  const mark = (d: MetricDelta) => (d.verdict === 'better' ? c.green('better') : d.verdict === 'worse' ? c.red('worse') : d.verdict ? c.dim(d.verdict) : '-');
  const ci = (d: MetricDelta, scale: (x: number) => string) => (d.interval ? `[${scale(d.interval.low)}, ${scale(d.interval.high)}]` : '-');
  const p = (x: number) => signedPct(x);
  const t = (x: number) => signed(x);
  io.stdout.write(`A = ${plainText(comparison.a.spec)}\nB = ${plainText(comparison.b.spec)}\n`);
  const table = await createTable(['case', 'provider', 'pass A', 'pass B', 'Δ pts', '95% CI', 'verdict', 'tokens A', 'tokens B', 'Δ', 'verdict'], io);
  for (const row of comparison.rows) {
    table.push([plainText(row.case), row.provider, pct(row.pass_rate.a), pct(row.pass_rate.b), signedPct(row.pass_rate.delta), ci(row.pass_rate, p), mark(row.pass_rate), num(row.tokens.a), num(row.tokens.b), signed(row.tokens.delta), mark(row.tokens)]);
  }
  io.stdout.write(table.toString() + '\n');
  const overall = await createTable(['provider', 'metric', 'A', 'B', 'Δ', '95% CI (paired t over cases)', 'verdict'], io);
  for (const o of comparison.overall) {
    overall.push([o.provider, 'pass rate', pct(o.pass_rate.a), pct(o.pass_rate.b), signedPct(o.pass_rate.delta), ci(o.pass_rate, p), mark(o.pass_rate)]);
    overall.push(['', 'precision', pct(o.precision.a), pct(o.precision.b), signedPct(o.precision.delta), ci(o.precision, p), mark(o.precision)]);
    overall.push(['', 'recall', pct(o.recall.a), pct(o.recall.b), signedPct(o.recall.delta), ci(o.recall, p), mark(o.recall)]);
    overall.push(['', 'tokens/run', num(o.tokens.a), num(o.tokens.b), signed(o.tokens.delta), ci(o.tokens, t), mark(o.tokens)]);
  }
  io.stdout.write('\n' + overall.toString() + '\n');
  io.stdout.write(c.dim('per case: pass rate by Newcombe\'s hybrid score interval, tokens by Welch\'s t; a verdict needs the 95% interval to exclude 0, and at least 2 runs (per case) or 2 cases (overall), else "insufficient data"\n'));
  const pointIntervals = [...new Set([...comparison.rows.flatMap((r) => [r.tokens, r.recall]), ...comparison.overall.flatMap((o) => [o.pass_rate, o.precision, o.recall, o.tokens])].map((d) => d.interval?.method ?? '').filter((m) => m.includes('zero variance')))];
  for (const method of pointIntervals) io.stdout.write(c.dim(`note: ${method}\n`));
}
