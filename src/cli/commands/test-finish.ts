import type { BaselineComparison } from '../../testing/baseline.js';
import type { TestResults } from '../../testing/results-document.js';
import type { FlakyCase, HistoryPlace, HistoryRecord } from '../../testing/run-history.js';
import type { SuiteReport } from '../../testing/suite-report.js';
import { resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { checkOutputPath } from '../../shared/output-file.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { plainText } from '../output/terminal-text.js';
import { appendReportFile, writeReportFile } from '../output/write-report-file.js';
import { jsonDocument as jsonText } from '../output/json-document.js';

/** What a finished run (or merged shards) is reported and gated with: the options of `toolman test` and `toolman test merge`. */
export interface FinishOptions {
  json?: boolean;
  junit?: string;
  html?: string;
  baseline?: string;
  updateBaseline?: boolean;
  history?: string;
  quarantineFlaky?: boolean;
  flakyWindow?: string;
}

/** Flags that only make sense on a whole run: refused on a shard (`toolman test merge` takes them). */
export const WHOLE_RUN_FLAGS = [
  ['--junit', 'junit'],
  ['--html', 'html'],
  ['--baseline', 'baseline'],
  ['--update-baseline', 'updateBaseline'],
  ['--history', 'history'],
  ['--quarantine-flaky', 'quarantineFlaky'],
] as const;

/**
 * Checks the finishing flags before anything runs: a bad combination is a usage error, and a report
 * path toolman would refuse (a link, a folder, a device) is refused now, not after an hour of runs.
 */
export async function checkFinishOptions(options: FinishOptions, cwd: string): Promise<void> {
  if (options.updateBaseline && !options.baseline) throw new ToolmanError(ErrorCode.USAGE, '--update-baseline needs --baseline FILE (where to write it)');
  if (options.quarantineFlaky && !options.baseline && !options.history) throw new ToolmanError(ErrorCode.USAGE, '--quarantine-flaky needs a run history: --history PATH, or --baseline FILE (the history is kept next to it)');
  if (options.flakyWindow !== undefined && !/^\s*\d+\s*$/.test(options.flakyWindow)) throw new ToolmanError(ErrorCode.USAGE, `--flaky-window takes a whole number from 2 to 1000, not ${JSON.stringify(options.flakyWindow)}`);
  if (options.flakyWindow !== undefined && (Number(options.flakyWindow) < 2 || Number(options.flakyWindow) > 1000)) throw new ToolmanError(ErrorCode.USAGE, `--flaky-window takes a whole number from 2 to 1000, not ${options.flakyWindow}`);
  const check = (file: string | undefined, label: string, mode: 'replace' | 'append') => {
    if (file !== undefined) checkOutputPath(resolve(cwd, file), label, mode, { cwd });
  };
  check(options.junit, '--junit', 'replace');
  check(options.html, '--html', 'replace');
  if (options.updateBaseline) check(options.baseline, '--baseline', 'replace');
  const { historyPlace } = await import('../../testing/run-history.js');
  const history = historyPlace(options.history, options.baseline, cwd);
  if (history && !history.folder) check(history.path, '--history', 'append');
}

/** How a run ended besides its results: Ctrl-C, and how many runs it stopped. */
export interface RunEnd {
  interrupted: boolean;
  stopped: number;
}

/**
 * Everything after the runs, the same for one run and for merged shards: flaky cases from the
 * history, the comparison with a baseline, the verdict (quarantined flaky cases left out of it),
 * the reports (text or --json, JUnit, HTML), then the history and baseline written. A shard's
 * results are only printed (--json): its verdict comes from the merge.
 */
export async function finishResults(results: TestResults, options: FinishOptions, io: CliIO, end: RunEnd = { interrupted: false, stopped: 0 }): Promise<ExitCode> {
  const allRuns = results.suites.flatMap((s) => s.runs);
  const notRun = results.suites.reduce((n, s) => n + s.report.not_run.runs, 0);
  if (results.plan.shard) {
    const doc = { toolman_results: 1, ok: null, ...(end.interrupted ? { interrupted: true, runs_not_finished: end.stopped } : {}), runs_not_run: notRun, plan: results.plan, suites: results.suites.map((s) => ({ suite: s.plan.name, runs: s.runs })) };
    io.stdout.write(jsonText(doc) + '\n');
    for (const s of results.suites) printNotRun(s.report, io);
    if (end.interrupted) return EXIT.INTERRUPTED;
    return notRun ? EXIT.USAGE : EXIT.OK;
  }
  const complete = !end.interrupted && notRun === 0;
  const history = await import('../../testing/run-history.js');
  const { historyPlace, historyRecords, readHistory, flakyCases, DEFAULT_FLAKY_WINDOW } = history;
  const place = historyPlace(options.history, options.baseline, io.cwd);
  const current = historyRecords(results);
  let flaky: FlakyCase[] = [];
  if (place) flaky = flakyCases(readHistory(place), complete ? current : [], options.flakyWindow ? Number(options.flakyWindow) : DEFAULT_FLAKY_WINDOW);
  const quarantined = new Set(options.quarantineFlaky ? flaky.map((f) => key(f.suite, f.case, f.provider)) : []);
  const skip = (suite: string, name: string, provider: string) => quarantined.has(key(suite, name, provider));

  let baseline: BaselineComparison | undefined;
  if (options.baseline && !options.updateBaseline) {
    const { readBaseline, compareWithBaseline } = await import('../../testing/baseline.js');
    baseline = compareWithBaseline(readBaseline(options.baseline, io.cwd), results, skip);
  }

  // The verdict: cases under their bar, the run under --min-pass-rate, regressions; quarantined cases left out.
  const gated = results.suites.flatMap((s) => s.runs.filter((r) => r.error === null && !skip(s.plan.name, r.case, r.provider)));
  const ran = allRuns.filter((r) => r.error === null);
  const overall = gated.length ? gated.filter((r) => r.passed).length / gated.length : 0;
  const failedCases = results.suites.reduce((n, s) => n + s.report.cases.filter((row) => !row.ok && !skip(s.plan.name, row.case, row.provider)).length, 0);
  const minPassRate = results.plan.min_pass_rate;
  const ok = complete && failedCases === 0 && overall >= minPassRate - 1e-9 && (baseline?.regressions.length ?? 0) === 0;

  const gates: Gates = { ok, overall, failedCases, flaky, quarantined: options.quarantineFlaky === true, baseline, notRun, end, minPassRate };
  if (options.json) io.stdout.write(jsonText(jsonDocument(results, gates, options)) + '\n');
  else await printText(results, gates, options, io);

  if (options.junit) {
    const { junitXml } = await import('../../testing/junit-report.js');
    writeReportFile(options.junit, junitXml(results.suites.map((s) => ({ name: s.plan.name, results: s.runs }))), { label: '--junit', mode: 'replace', cwd: io.cwd });
  }
  if (options.html) {
    const { testReportHtml } = await import('../output/html-report.js');
    writeReportFile(options.html, testReportHtml(results, { flaky, quarantined: options.quarantineFlaky === true, ...(baseline ? { baseline } : {}), ok, interrupted: end.interrupted }), { label: '--html', mode: 'replace', cwd: io.cwd });
  }
  // Only a finished run with every run made is history or a baseline: part of one would mislead later runs.
  if (place && complete) writeHistory(place, current, io, history);
  if (options.updateBaseline && options.baseline) {
    if (!complete) {
      io.stderr.write(`error: the baseline ${plainText(options.baseline)} was not updated: ${end.interrupted ? 'the run was interrupted' : `${notRun} run${notRun === 1 ? '' : 's'} could not run`}\n`);
      return end.interrupted ? EXIT.INTERRUPTED : EXIT.USAGE;
    }
    const { baselineOf } = await import('../../testing/baseline.js');
    writeReportFile(options.baseline, JSON.stringify(baselineOf(results), null, 2) + '\n', { label: '--baseline', mode: 'replace', cwd: io.cwd });
    io.stderr.write(`baseline ${plainText(options.baseline)} written: ${ran.length} runs of ${results.suites.reduce((n, s) => n + s.report.cases.length, 0)} cases\n`);
  }
  if (end.interrupted) return EXIT.INTERRUPTED;
  if (notRun > 0) return EXIT.USAGE;
  return ok ? EXIT.OK : EXIT.FAILURE;
}

interface Gates {
  ok: boolean;
  overall: number;
  failedCases: number;
  flaky: FlakyCase[];
  quarantined: boolean;
  baseline: BaselineComparison | undefined;
  notRun: number;
  end: RunEnd;
  minPassRate: number;
}

const key = (suite: string, name: string, provider: string) => `${suite}\u0000${name}\u0000${provider}`;

/** Appends this run's verdicts: to the history file, or as a new file of the history folder. */
function writeHistory(place: HistoryPlace, records: readonly HistoryRecord[], io: CliIO, history: typeof import('../../testing/run-history.js')): void {
  if (!records.length) return;
  const text = history.historyText(records);
  if (place.folder) writeReportFile(history.historyFileFor(place), text, { label: '--history', mode: 'new', cwd: io.cwd });
  else appendReportFile(place.path, text, { label: '--history', cwd: io.cwd });
}

/** The one --json document of a finished run: the plan (what `toolman test merge` reads), every suite's report and runs, and the gates. */
function jsonDocument(results: TestResults, gates: Gates, options: FinishOptions): object {
  const { end } = gates;
  return {
    toolman_results: 1,
    ok: gates.ok,
    ...(end.interrupted ? { interrupted: true, runs_not_finished: end.stopped } : {}),
    pass_rate: gates.overall,
    min_pass_rate: gates.minPassRate,
    runs_not_run: gates.notRun,
    plan: results.plan,
    suites: results.suites.map((s) => ({ ...s.report, runs: s.runs })),
    ...(options.history || options.baseline ? { flaky: gates.flaky, quarantined: gates.quarantined } : {}),
    ...(gates.baseline ? { baseline: { file: options.baseline, regressions: gates.baseline.regressions, missing: gates.baseline.missing, added: gates.baseline.added, comparison: gates.baseline.suites } } : {}),
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);

async function printText(results: TestResults, gates: Gates, options: FinishOptions, io: CliIO): Promise<void> {
  const c = palette(colorEnabled(io, io.stdout));
  const { printTestReport } = await import('../output/test-report.js');
  const { end } = gates;
  for (const { report, runs } of results.suites) {
    if (end.interrupted && runs.length === 0) continue;
    await printTestReport(report, io);
    printNotRun(report, io);
    if (end.interrupted) continue;
    for (const p of report.providers) {
      if (p.cost_missing.runs === 0) continue;
      const why = Object.entries(p.cost_missing.reasons).map(([reason, n]) => `${n} ${plainText(reason)}`).join(', ');
      io.stdout.write(c.dim(`cost of ${plainText(p.provider)}: ${p.cost_usd === null ? 'none' : `$${p.cost_usd.toFixed(4)}`} over ${p.runs - p.cost_missing.runs} priced runs; ${p.cost_missing.runs} without a cost (${why})\n`));
    }
    const seq = report.sequential;
    if (seq) {
      io.stdout.write(
        `\nsequential test (alpha ${seq.alpha}): ${seq.runs_made} of ${seq.runs_planned} runs made, ${seq.runs_saved} saved (${seq.runs_planned ? ((seq.runs_saved / seq.runs_planned) * 100).toFixed(0) : 0}%); ${seq.calls_made} model calls made, ~${seq.calls_saved_estimate} saved (estimated from each case's rounds per run); settled by curtailment ${seq.settled_by.curtailment}, by evidence ${seq.settled_by.evidence}, after all runs ${seq.settled_by['all runs']}\n`,
      );
    }
  }
  if (gates.flaky.length) {
    io.stdout.write(`\nflaky cases (the verdict flipped within the latest runs, oldest first)${gates.quarantined ? c.yellow(': quarantined, left out of the verdict') : ''}:\n`);
    for (const f of gates.flaky) io.stdout.write(`  ${plainText(f.case)} [${plainText(f.provider)}] (${plainText(f.suite)}): ${f.verdicts.map((v) => (v ? 'pass' : 'fail')).join(' ')} (${f.flips} flip${f.flips === 1 ? '' : 's'})\n`);
  }
  if (gates.baseline) printBaseline(gates.baseline, options.baseline!, io);
  const ran = results.suites.flatMap((s) => s.runs.filter((r) => r.error === null));
  const passed = ran.filter((r) => r.passed).length;
  const all = ran.length ? passed / ran.length : 0;
  if (end.interrupted) {
    io.stdout.write(`\n${c.yellow('interrupted')}: ${ran.length} run${ran.length === 1 ? '' : 's'} finished (${passed} passed), ${end.stopped} stopped or not started${ran.length ? '; the figures above cover the finished runs only' : ''}\n`);
  } else if (ran.length === 0 && gates.notRun > 0) {
    io.stdout.write(`\n${c.red('could not run')}: none of the ${gates.notRun} runs ran (see why above); no verdict\n`);
  } else {
    const verdict = gates.notRun ? c.red('incomplete') : gates.ok ? c.green('passed') : c.red('failed');
    const regressions = gates.baseline?.regressions.length ?? 0;
    io.stdout.write(
      `\n${verdict}: ${passed}/${ran.length} runs passed (${(all * 100).toFixed(1)}%)${gates.failedCases ? `; ${gates.failedCases} case${gates.failedCases === 1 ? '' : 's'} under min_pass_rate` : ''}${gates.overall < gates.minPassRate - 1e-9 ? `; under --min-pass-rate ${gates.minPassRate}` : ''}${regressions ? `; ${regressions} regression${regressions === 1 ? '' : 's'} against the baseline` : ''}${gates.quarantined && gates.flaky.length ? `; ${gates.flaky.length} flaky case${gates.flaky.length === 1 ? '' : 's'} quarantined` : ''}${gates.notRun ? `; ${gates.notRun} run${gates.notRun === 1 ? '' : 's'} could not run and ${gates.notRun === 1 ? 'is' : 'are'} not counted` : ''}\n`,
    );
  }
}

function printBaseline(comparison: BaselineComparison, file: string, io: CliIO): void {
  const c = palette(colorEnabled(io, io.stdout));
  const rows = comparison.suites.flatMap((s) => s.comparison.rows);
  io.stdout.write(`\nagainst the baseline ${plainText(file)} (the rules of --compare: a regression is a 95% interval that excludes 0):\n`);
  const changed = rows.filter((r) => r.pass_rate.delta !== 0 || r.tokens.verdict === 'worse' || r.tokens.verdict === 'better' || r.cost.verdict === 'worse');
  for (const r of changed.slice(0, 30)) {
    const ci = r.pass_rate.interval ? ` [${signed(r.pass_rate.interval.low)}, ${signed(r.pass_rate.interval.high)}]` : '';
    io.stdout.write(`  ${plainText(r.case)} [${plainText(r.provider)}]: pass ${pct(r.pass_rate.a)} → ${pct(r.pass_rate.b)} (Δ ${signed(r.pass_rate.delta)} pts${ci}, ${r.pass_rate.verdict ?? '-'}); tokens/run ${num(r.tokens.a)} → ${num(r.tokens.b)} (${r.tokens.verdict ?? '-'})\n`);
  }
  if (changed.length > 30) io.stdout.write(`  ... ${changed.length - 30} more (see --json)\n`);
  if (!changed.length) io.stdout.write(`  every case as in the baseline (${rows.length} compared)\n`);
  for (const r of comparison.regressions) {
    const where = r.case === null ? `overall [${plainText(r.provider)}]` : `${plainText(r.case)} [${plainText(r.provider)}]`;
    const rate = r.metric !== 'tokens' && r.metric !== 'cost';
    // Levels as levels (100% → 0%), the interval of the change in signed points.
    const scale = rate ? (x: number) => `${signed(x)} pts` : (x: number) => (r.metric === 'cost' ? `$${x.toFixed(5)}` : num(x));
    const level = rate ? pct : scale;
    io.stdout.write(`  ${c.red('regression')}: ${where} ${r.metric.replace('_', ' ')} ${r.delta.a === null ? '-' : level(r.delta.a)} → ${r.delta.b === null ? '-' : level(r.delta.b)}${r.delta.interval ? `, 95% CI of the change [${scale(r.delta.interval.low)}, ${scale(r.delta.interval.high)}] (${r.delta.interval.method})` : ''}\n`);
  }
  if (comparison.missing.length) io.stdout.write(c.dim(`  in the baseline, not in this run: ${comparison.missing.slice(0, 5).map((m) => `${plainText(m.case)} [${plainText(m.provider)}]`).join(', ')}${comparison.missing.length > 5 ? ` and ${comparison.missing.length - 5} more` : ''}\n`));
  if (comparison.added.length) io.stdout.write(c.dim(`  new since the baseline (not compared): ${comparison.added.slice(0, 5).map((m) => `${plainText(m.case)} [${plainText(m.provider)}]`).join(', ')}${comparison.added.length > 5 ? ` and ${comparison.added.length - 5} more` : ''}\n`));
  if (!comparison.regressions.length) io.stdout.write(`  ${c.green('within noise')}: no regression beyond the 95% intervals\n`);
}

const signed = (x: number | null) => (x === null ? '-' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}`);
const num = (x: number | null) => (x === null ? '-' : Math.round(x).toString());

/** Runs that could not run, each reason once with the runs it stopped. */
export function printNotRun(report: SuiteReport, io: CliIO): void {
  if (report.not_run.runs === 0) return;
  io.stderr.write(`error: ${report.not_run.runs} run${report.not_run.runs === 1 ? '' : 's'} of ${plainText(report.suite)} could not run (not counted as passed or failed):\n`);
  for (const { reason, runs } of report.not_run.reasons.slice(0, 5)) io.stderr.write(`  ${runs.slice(0, 2).map(plainText).join(', ')}${runs.length > 2 ? ` and ${runs.length - 2} more` : ''}: ${plainText(reason)}\n`);
  if (report.not_run.reasons.length > 5) io.stderr.write(`  and ${report.not_run.reasons.length - 5} more reasons\n`);
}
