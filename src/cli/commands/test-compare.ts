import { join } from 'node:path';
import { ERROR_PREFIX } from '../output/error-prefix.js';
import type { Comparison, MetricDelta, Variant } from '../../testing/compare-runs.js';
import type { RunResult } from '../../testing/run-suite.js';
import type { VariantUsage } from '../../testing/variant-usage.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { readRegularFile } from '../../shared/read-file.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { createTable } from '../output/table.js';
import { plainText } from '../output/terminal-text.js';
import { writeReportFile } from '../output/write-report-file.js';
import { requireFolder, suitesHost, suitesRequest, type TestOptions } from './test-setup.js';

/** Most variants one comparison takes: each is a whole run of the suites. */
const MAX_VARIANTS = 26;

/**
 * `toolman test --compare A B C... SUITE...`: the same suites on several variants (catalog files,
 * profiles, loading strategies: eager, deferred/client tool search, native search), every one
 * compared with the first, per case and overall, with its 95% interval and a verdict; and for
 * each variant the cached share of the provider-reported input and the cost per run. Exit 1 when
 * a variant's overall pass rate is worse than A's for some provider.
 */
export async function compareCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  const given = options.compare ?? [];
  // `--compare A B C suite.yaml`: with no suite before --compare, the suite files at its end are the suites.
  const [specs, trailing] = options.suites.length ? [given, []] : splitTrailingSuites(given, io.cwd);
  const suites = [...options.suites, ...trailing];
  if (specs.length < 2) throw new ToolmanError(ErrorCode.USAGE, '--compare takes at least two variants: A B [C...]', { hint: 'e.g. --compare old.yaml new.yaml, --compare eager deferred native, --compare profile:a profile:b' });
  if (specs.length > MAX_VARIANTS) throw new ToolmanError(ErrorCode.USAGE, `--compare takes at most ${MAX_VARIANTS} variants`);
  if (suites.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name at least one suite file to compare on');
  // A comparison has no single pass rate, JUnit report, baseline or shard to give them: refused, not ignored.
  const refused = [['--junit', options.junit], ['--min-pass-rate', options.minPassRate], ['--baseline', options.baseline], ['--history', options.history], ['--shard', options.shard], ['--sequential', options.sequential], ['--coverage', options.coverage]] as const;
  for (const [flag, value] of refused) {
    if (value !== undefined && value !== false) throw new ToolmanError(ErrorCode.USAGE, `${flag} does not go with --compare`, { hint: `run each variant on its own for that: toolman test SUITE ${flag} ...` });
  }
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  const { parseVariant, compareRuns, variantLabel } = await import('../../testing/compare-runs.js');
  const variants = specs.map((spec, i) => parseVariant(spec, variantLabel(i)));
  const request = await suitesRequest({ ...options, suites, compare: [] }, io);
  // A comparison's recordings are DIR/A, DIR/B, ..., which only `--compare ... --record DIR` makes.
  if (options.replay) for (const label of ['', ...variants.map((v) => v.label)]) requireFolder(join(options.replay, label), io.cwd, '--replay', 'record every variant with: toolman test SUITE --compare A B ... --record DIR');
  const host = suitesHost(io, true);
  const { preflight, runSuites } = await import('../../testing/run-suites.js');
  const budget = { spent: 0 };
  const outcomes = [];
  try {
    // Every variant checked (catalogs, profiles) and the whole cost estimated before any runs.
    await preflight(request, host, variants);
    for (const variant of variants) {
      if (options.signal?.aborted) break;
      outcomes.push(await runSuites(request, host, variant, budget));
    }
  } finally {
    await host.close();
  }
  if (options.signal?.aborted) return EXIT.INTERRUPTED;
  const sets = outcomes.map((out) => out.map((o) => ({ suite: o.suite.name, results: o.results })));
  const comparisons = variants.slice(1).map((variant, i) => compareRuns(variants[0]!, variant, sets[0]!, sets[i + 1]!));
  const { variantUsage } = await import('../../testing/variant-usage.js');
  const usage = variants.map((v, i) => variantUsage(v, sets[i]!.flatMap((s) => s.results)));
  const errors = variants.flatMap((v, i) => sets[i]!.flatMap((s) => s.results.filter((r) => r.error !== null).map((r) => ({ variant: v.label, suite: s.suite, case: r.case, provider: r.provider, repeat: r.repeat, error: r.error! }))));
  if (options.json) {
    // Each comparison's errors are the run-level errors below, listed once per variant.
    io.stdout.write(JSON.stringify({ variants: usage.map((u, i) => ({ ...u, ...variantFields(variants[i]!), runs: sets[i]!.reduce((n, s) => n + s.results.length, 0) })), comparisons: comparisons.map(({ errors: _errors, ...c }) => c), errors }, null, 2) + '\n');
  } else {
    for (const comparison of comparisons) await printComparison(comparison, io);
    await printUsage(usage, io);
  }
  if (options.html) {
    const { compareReportHtml } = await import('../output/html-report.js');
    writeReportFile(options.html, compareReportHtml(usage, comparisons), { label: '--html', mode: 'replace', cwd: io.cwd });
  }
  // Runs that could not run are no verdict, as in a plain run: the comparison is incomplete.
  if (reportVariantErrors(variants, sets, io)) return EXIT.USAGE;
  return comparisons.some((c) => c.overall.some((o) => o.pass_rate.verdict === 'worse')) ? EXIT.FAILURE : EXIT.OK;
}

const variantFields = (v: Variant) => ({ ...(v.catalog ? { catalog: v.catalog } : {}), ...(v.profile ? { profile: v.profile } : {}), ...(v.loading ? { loading: v.loading } : {}), ...(v.search ? { search: v.search } : {}) });

/**
 * The suites at the end of `--compare A B C suite.yaml...` (commander hands them over with the
 * variants): from the end, the files that read as suites (a top-level `cases:` key, which no
 * catalog has).
 */
function splitTrailingSuites(values: readonly string[], cwd: string): [string[], string[]] {
  let cut = values.length;
  while (cut > 2 && looksLikeSuite(values[cut - 1]!, cwd)) cut--;
  // The two-variant form always worked positionally: `--compare A B suite.yaml`.
  if (cut === values.length && values.length > 2) cut = 2;
  return [values.slice(0, cut), values.slice(cut)];
}

function looksLikeSuite(value: string, cwd: string): boolean {
  if (!/\.ya?ml$/i.test(value)) return false;
  try {
    return /^cases\s*:/m.test(readRegularFile(value, { cwd, maxBytes: 8 << 20 }));
  } catch {
    return false;
  }
}

/**
 * Runs that could not run (no recording, a replay mismatch, the API failed) are left out of the
 * comparison, not counted as failures: said on stderr, and the comparison fails. True if any.
 */
function reportVariantErrors(variants: readonly Variant[], sets: readonly { suite: string; results: readonly RunResult[] }[][], io: CliIO): boolean {
  let any = false;
  variants.forEach((variant, i) => {
    const runs = sets[i]!.flatMap((s) => s.results);
    const failed = runs.filter((r) => r.error !== null);
    if (!failed.length) return;
    any = true;
    io.stderr.write(`error: ${failed.length} of ${runs.length} runs of ${variant.label} (${plainText(variant.spec)}) could not run and are left out of the comparison:\n`);
    writeReasons(failed.map((r) => ({ error: r.error!, run: `${r.case} #${r.repeat} [${r.provider}]` })), io);
  });
  return any;
}

function writeReasons(failed: readonly { error: string; run: string }[], io: CliIO): void {
  const reasons = new Map<string, string[]>();
  for (const f of failed) reasons.set(f.error, [...(reasons.get(f.error) ?? []), f.run]);
  for (const [reason, runs] of [...reasons].slice(0, 5)) io.stderr.write(`  ${runs.slice(0, 2).map(plainText).join(', ')}${runs.length > 2 ? ` and ${runs.length - 2} more` : ''}: ${plainText(reason)}\n`);
  if (reasons.size > 5) io.stderr.write(`  and ${reasons.size - 5} more reasons\n`);
}

/** The same for one two-variant comparison (`toolman diff --suite`). True if any run could not run. */
export function reportErrors(comparison: Comparison, io: CliIO): boolean {
  if (comparison.errors.length === 0) return false;
  for (const side of [comparison.a, comparison.b]) {
    const mine = comparison.errors.filter((e) => e.variant === side.label);
    if (!mine.length) continue;
    io.stderr.write(`${ERROR_PREFIX} ${mine.length} of ${comparison.runs[side.label] ?? 0} runs of ${side.label} (${plainText(side.spec)}) could not run and are left out of the comparison:\n`);
    writeReasons(mine.map((e) => ({ error: e.error, run: `${e.case} #${e.repeat} [${e.provider}]` })), io);
  }
  return true;
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);
const signedPct = (x: number | null) => (x === null ? '-' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}`);
const num = (x: number | null) => (x === null ? '-' : Math.round(x).toString());
const signed = (x: number | null) => (x === null ? '-' : `${x > 0 ? '+' : ''}${Math.round(x)}`);
const money = (x: number | null) => (x === null ? 'n/a' : `$${x.toFixed(5)}`);

async function printComparison(comparison: Comparison, io: CliIO): Promise<void> {
  const c = palette(colorEnabled(io, io.stdout));
  const mark = (d: MetricDelta) => (d.verdict === 'better' ? c.green('better') : d.verdict === 'worse' ? c.red('worse') : d.verdict ? c.dim(d.verdict) : '-');
  const ci = (d: MetricDelta, scale: (x: number) => string) => (d.interval ? `[${scale(d.interval.low)}, ${scale(d.interval.high)}]` : '-');
  const p = (x: number) => signedPct(x);
  const t = (x: number) => signed(x);
  const { a, b } = comparison;
  io.stdout.write(`${a.label} = ${plainText(a.spec)}\n${b.label} = ${plainText(b.spec)}\n`);
  const table = await createTable(['case', 'provider', `pass ${a.label}`, `pass ${b.label}`, 'Δ pts', '95% CI', 'verdict', `tokens ${a.label}`, `tokens ${b.label}`, 'Δ', 'verdict'], io);
  for (const row of comparison.rows) {
    table.push([plainText(row.case), plainText(row.provider), pct(row.pass_rate.a), pct(row.pass_rate.b), signedPct(row.pass_rate.delta), ci(row.pass_rate, p), mark(row.pass_rate), num(row.tokens.a), num(row.tokens.b), signed(row.tokens.delta), mark(row.tokens)]);
  }
  io.stdout.write(table.toString() + '\n');
  const overall = await createTable(['provider', 'metric', a.label, b.label, 'Δ', '95% CI (paired t over cases)', 'verdict'], io);
  for (const o of comparison.overall) {
    overall.push([plainText(o.provider), 'pass rate', pct(o.pass_rate.a), pct(o.pass_rate.b), signedPct(o.pass_rate.delta), ci(o.pass_rate, p), mark(o.pass_rate)]);
    overall.push(['', 'precision', pct(o.precision.a), pct(o.precision.b), signedPct(o.precision.delta), ci(o.precision, p), mark(o.precision)]);
    overall.push(['', 'recall', pct(o.recall.a), pct(o.recall.b), signedPct(o.recall.delta), ci(o.recall, p), mark(o.recall)]);
    overall.push(['', 'tokens/run', num(o.tokens.a), num(o.tokens.b), signed(o.tokens.delta), ci(o.tokens, t), mark(o.tokens)]);
  }
  io.stdout.write('\n' + overall.toString() + '\n');
  io.stdout.write(c.dim('per case: pass rate by Newcombe\'s hybrid score interval, tokens by Welch\'s t; a verdict needs the 95% interval to exclude 0, and at least 2 runs (per case) or 2 cases (overall), else "insufficient data"\n'));
  const pointIntervals = [...new Set([...comparison.rows.flatMap((r) => [r.tokens, r.recall]), ...comparison.overall.flatMap((o) => [o.pass_rate, o.precision, o.recall, o.tokens])].map((d) => d.interval?.method ?? '').filter((m) => m.includes('zero variance')))];
  for (const method of pointIntervals) io.stdout.write(c.dim(`note: ${method}\n`));
  io.stdout.write('\n');
}

/** Per variant and provider: the cached share of the provider-reported input and the cost per run. */
async function printUsage(usage: readonly VariantUsage[], io: CliIO): Promise<void> {
  const table = await createTable(['variant', 'provider', 'runs', 'input tokens (reported)', 'cached', 'cached share', 'cost per run'], io);
  for (const v of usage) for (const [i, p] of v.providers.entries()) table.push([i ? '' : `${v.label} = ${plainText(v.spec)}`, plainText(p.provider), String(p.runs), String(p.input), String(p.cached), p.cached_share === null ? 'n/a' : pct(p.cached_share), money(p.cost_per_run)]);
  io.stdout.write(`${table.toString()}\n`);
  const c = palette(colorEnabled(io, io.stdout));
  io.stdout.write(c.dim('cached share: input tokens the provider read from its prompt cache, over the input it reported; cost per run at list prices (cached input at the price row\'s cached_input, when it gives one)\n'));
}
