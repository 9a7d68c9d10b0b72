import { join } from 'node:path';
import type { LockMode } from '../../lock/pin-tools.js';
import type { Comparison, MetricDelta, Variant } from '../../testing/compare-runs.js';
import type { SuitesHost } from '../../testing/run-suites.js';
import type { Suite } from '../../testing/suite-types.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { createTable } from '../output/table.js';
import { plainText } from '../output/terminal-text.js';
import { reportErrors } from './test-compare.js';
import { requireFolder, suitesHost, suitesRequest } from './test-setup.js';
import type { LockOptions } from './lock.js';

/** One suite's overall pass rate, old definitions (A) against new (B), per provider. */
export interface GateRow {
  suite: string;
  provider: string;
  cases: number;
  pass_rate: MetricDelta;
}

/** What the gate decided and from what. */
export interface GateReport {
  accepted: boolean;
  exit: ExitCode;
  reason: string;
  /** The tools that drifted, by catalog name. */
  drifted: string[];
  /** Suite files run (they name a drifted tool) and skipped (they name none). */
  suites: { run: string[]; skipped: string[] };
  rows: GateRow[];
}

/**
 * `lock --update --gate SUITE...`: the suites whose cases name a drifted tool run twice through
 * `toolman test --compare`'s machinery (runSuites, compareRuns): A with the lock's pinned copies
 * of the definitions (calls still go to the servers as they are), B with the servers' current
 * ones. The new hashes are accepted only when no suite's overall pass rate, per provider, is
 * "worse" by compare's rule: the paired 95% interval over the suite's cases lies entirely below
 * 0. Runs that could not run are no verdict: nothing is accepted (exit 2). A suite that names no
 * drifted tool says nothing about the change and is skipped; when none is left, nothing is
 * accepted either (a gate without evidence would always pass).
 */
export async function runGate(options: LockOptions & { gate: string[] }, io: CliIO, drifted: string[], lockDisplay: string): Promise<GateReport> {
  const { loadSuite } = await import('../../testing/load-suite.js');
  const { globMatch } = await import('../../testing/check-expectations.js');
  const base = { drifted, rows: [] as GateRow[] };
  const run: string[] = [];
  const skipped: string[] = [];
  for (const file of options.gate) {
    const names = suiteToolNames(loadSuite(file, { cwd: io.cwd }));
    (names.some((name) => drifted.some((tool) => globMatch(name, tool))) ? run : skipped).push(file);
  }
  const suites = { run, skipped };
  if (skipped.length > 0) io.stderr.write(`gate: skipped ${skipped.map(plainText).join(', ')}: no case names a changed tool (${drifted.map(plainText).join(', ') || 'none'})\n`);
  if (drifted.length === 0 || run.length === 0) {
    return { ...base, suites, accepted: false, exit: EXIT.FAILURE, reason: `no suite names a changed tool (${drifted.join(', ') || 'none'}), so the gate has nothing to go on` };
  }

  const request = await suitesRequest({ ...options, suites: run, compare: [] }, io);
  if (options.replay) for (const label of ['A', 'B']) requireFolder(join(options.replay, label), io.cwd, '--replay', 'record both sides with: toolman lock --update --gate SUITE... --record DIR');
  const a: Variant = { label: 'A', spec: `${lockDisplay} (the pinned definitions)` };
  const b: Variant = { label: 'B', spec: 'the servers\' definitions now' };
  const host = (lock: LockMode): SuitesHost => ({ ...suitesHost(io), open: (catalogs, body, namedBy) => withManager(io, catalogs, body, { requireValid: 'all', lock, ...(namedBy ? { namedBy } : {}) }) });
  const [hostA, hostB] = [host('pinned'), host('accept-drift')];
  const { preflight, runSuites } = await import('../../testing/run-suites.js');
  const { compareRuns } = await import('../../testing/compare-runs.js');
  await preflight(request, hostA, [a]);
  await preflight(request, hostB, [b]);
  const spent = { spent: 0 };
  const outA = await runSuites(request, hostA, a, spent);
  const outB = await runSuites(request, hostB, b, spent);
  if (options.signal?.aborted) return { ...base, suites, accepted: false, exit: EXIT.INTERRUPTED, reason: 'interrupted' };

  const rows: GateRow[] = [];
  const comparisons: Comparison[] = [];
  outA.forEach((sideA, i) => {
    const sideB = outB[i];
    if (!sideB) return;
    const comparison = compareRuns(a, b, [{ suite: sideA.suite.name, results: sideA.results }], [{ suite: sideB.suite.name, results: sideB.results }]);
    comparisons.push(comparison);
    for (const o of comparison.overall) rows.push({ suite: sideA.suite.name, provider: o.provider, cases: o.cases, pass_rate: o.pass_rate });
  });
  if (!options.json) await printGate(rows, io);
  const notRun = comparisons.filter((comparison) => reportErrors(comparison, io)).length;
  if (notRun > 0) return { ...base, suites, rows, accepted: false, exit: EXIT.USAGE, reason: 'some runs could not run, so there is no verdict' };
  const worse = rows.filter((r) => r.pass_rate.verdict === 'worse');
  if (worse.length > 0) {
    return { ...base, suites, rows, accepted: false, exit: EXIT.FAILURE, reason: `the new definitions are worse on ${worse.map((r) => `${r.suite} [${r.provider}]`).join(', ')} (pass rate ${worse.map((r) => pct(r.pass_rate.a) + ' → ' + pct(r.pass_rate.b)).join(', ')}; the paired 95% interval lies below 0)` };
  }
  const unsure = rows.filter((r) => r.pass_rate.verdict === 'insufficient data').length;
  return { ...base, suites, rows, accepted: true, exit: EXIT.OK, reason: `the gate passed: no suite got worse${unsure ? ` (${unsure} with too little data for an interval: at least 2 cases are needed)` : ''}` };
}

/** Every tool name a suite's cases mention: forced, expected (called or not, counted), approved, stubbed. */
export function suiteToolNames(suite: Suite): string[] {
  const names = new Set<string>();
  const expectations = (e: Suite['cases'][number]['expect']) => {
    if (!e) return;
    for (const call of e.calls ?? []) names.add(call.tool);
    for (const name of e.not_called ?? []) names.add(name);
    for (const name of Object.keys(e.call_count ?? {})) if (name !== '*') names.add(name);
    for (const name of e.approvals ?? []) names.add(name);
  };
  for (const testCase of suite.cases) {
    for (const name of testCase.force) names.add(name);
    for (const stub of testCase.stubs) names.add(stub.tool);
    expectations(testCase.expect);
    for (const turn of testCase.turns) expectations(turn.expect);
  }
  return [...names];
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);

async function printGate(rows: readonly GateRow[], io: CliIO): Promise<void> {
  const c = palette(colorEnabled(io, io.stdout));
  const table = await createTable(['suite', 'provider', 'cases', 'pass A (pinned)', 'pass B (now)', 'Δ pts', '95% CI (paired t)', 'verdict'], io);
  for (const r of rows) {
    const d = r.pass_rate;
    const verdict = d.verdict === 'worse' ? c.red('worse') : d.verdict === 'better' ? c.green('better') : c.dim(d.verdict ?? '-');
    const delta = d.delta === null ? '-' : `${d.delta > 0 ? '+' : ''}${(d.delta * 100).toFixed(0)}`;
    const ci = d.interval ? `[${(d.interval.low * 100).toFixed(0)}, ${(d.interval.high * 100).toFixed(0)}]` : '-';
    table.push([plainText(r.suite), r.provider, String(r.cases), pct(d.a), pct(d.b), delta, ci, verdict]);
  }
  io.stdout.write(`${table.toString()}\n`);
}
