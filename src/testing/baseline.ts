import { isRecord } from '../shared/is-record.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { jsonErrorReason } from '../shared/json-text.js';
import { plainText } from '../shared/plain-text.js';
import { MiB, readRegularFile } from '../shared/read-file.js';
import { compareFigures, figuresOf, type Comparison, type MetricDelta, type RunFigures } from './compare-runs.js';
import type { TestResults } from './results-document.js';

/**
 * A baseline: the figures of every run of an earlier `toolman test` (per suite, case and
 * provider: pass or fail, tokens, cost, precision, recall), written only by --update-baseline.
 * A later run is compared with it by exactly the rules of `--compare` (baseline = A, the run =
 * B), so "a regression" means what "worse" means there: the 95% interval excludes 0.
 */
export interface Baseline {
  toolman_baseline: 1;
  suites: { suite: string; cases: { case: string; provider: string; runs: BaselineRun[] }[] }[];
}

export type BaselineRun = Pick<RunFigures, 'passed' | 'tokens' | 'cost_usd' | 'precision' | 'recall'>;

/** The baseline of a finished run (every run ran: `toolman test` refuses to store an incomplete one). */
export function baselineOf(results: TestResults): Baseline {
  return {
    toolman_baseline: 1,
    suites: results.suites.map(({ plan, runs }) => {
      const cases: Baseline['suites'][number]['cases'] = [];
      const byKey = new Map<string, BaselineRun[]>();
      for (const run of runs) {
        if (run.error !== null) continue;
        const key = `${run.case}\u0000${run.provider}`;
        let list = byKey.get(key);
        if (!list) {
          byKey.set(key, (list = []));
          cases.push({ case: run.case, provider: run.provider, runs: list });
        }
        const { passed, tokens, cost_usd, precision, recall } = figuresOf(run);
        list.push({ passed, tokens, cost_usd, precision, recall });
      }
      return { suite: plan.name, cases };
    }),
  };
}

/** A baseline is a few KB per hundred runs; anything near this is not one. */
export const MAX_BASELINE_BYTES = 64 * MiB;
const MAX_PROBLEMS = 20;

/** Reads a baseline file (untrusted: someone else's commit may have written it): bounded, its shape checked, each problem located. */
export function readBaseline(file: string, cwd: string): Baseline {
  const text = readRegularFile(file, { cwd, maxBytes: MAX_BASELINE_BYTES, label: 'baseline' });
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ToolmanError(ErrorCode.USAGE, `the baseline ${plainText(file)} is not valid JSON: ${jsonErrorReason(error)}`, { hint: 'write it again with --update-baseline' });
  }
  const problems: string[] = [];
  const problem = (pointer: string, message: string) => problems.length <= MAX_PROBLEMS && problems.push(`${pointer || '/'}: ${message}`);
  const number = (v: unknown, pointer: string, nullable: boolean, max = Number.MAX_SAFE_INTEGER) => {
    if (v === null && nullable) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max) problem(pointer, `must be a number from 0 to ${max}${nullable ? ', or null' : ''}`);
  };
  if (!isRecord(value) || value.toolman_baseline !== 1 || !Array.isArray(value.suites)) {
    problem('', 'must be {"toolman_baseline": 1, "suites": [...]}');
  } else {
    value.suites.forEach((suite: unknown, s) => {
      const at = `/suites/${s}`;
      if (!isRecord(suite) || typeof suite.suite !== 'string' || !Array.isArray(suite.cases)) return problem(at, 'must be {"suite": NAME, "cases": [...]}');
      suite.cases.forEach((c: unknown, i) => {
        const ca = `${at}/cases/${i}`;
        if (!isRecord(c) || typeof c.case !== 'string' || typeof c.provider !== 'string' || !Array.isArray(c.runs) || c.runs.length === 0 || c.runs.length > 100) return problem(ca, 'must be {"case": NAME, "provider": NAME, "runs": [1 to 100 runs]}');
        c.runs.forEach((r: unknown, j) => {
          const ra = `${ca}/runs/${j}`;
          if (!isRecord(r) || typeof r.passed !== 'boolean') return problem(ra, 'must be {"passed": true|false, "tokens", "cost_usd", "precision", "recall"}');
          number(r.tokens, `${ra}/tokens`, false);
          number(r.cost_usd, `${ra}/cost_usd`, true, 1e9);
          number(r.precision, `${ra}/precision`, true, 1);
          number(r.recall, `${ra}/recall`, true, 1);
        });
      });
    });
  }
  if (problems.length) {
    const listed = problems.slice(0, MAX_PROBLEMS).map((p) => `  ${plainText(file)} ${plainText(p)}`);
    if (problems.length > MAX_PROBLEMS) listed.push('  ... and more');
    throw new ToolmanError(ErrorCode.USAGE, `the baseline ${plainText(file)} is not a toolman baseline:\n${listed.join('\n')}`, { hint: 'write it again with toolman test ... --baseline FILE --update-baseline' });
  }
  return value as unknown as Baseline;
}

/** One metric of one case (or of a provider overall) that got worse beyond noise. */
export interface Regression {
  suite: string;
  /** null: the provider's overall figure (paired t over cases). */
  case: string | null;
  provider: string;
  metric: 'pass_rate' | 'tokens' | 'cost' | 'precision' | 'recall';
  delta: MetricDelta;
}

export interface BaselineComparison {
  /** Per suite, the comparison of the baseline (A) with this run (B). */
  suites: { suite: string; comparison: Comparison }[];
  regressions: Regression[];
  /** Cases the baseline has and this run has not, and the other way round (not compared). */
  missing: { suite: string; case: string; provider: string }[];
  added: { suite: string; case: string; provider: string }[];
}

/**
 * The run against its baseline, suite by suite, case by case (`compareFigures`, the rules of
 * --compare). `skip` leaves cases out of the overall figures (quarantined flaky cases): their noise
 * is forgiven, but a change of their own beyond noise (a pass rate, tokens or cost whose 95% interval
 * lies on the worse side of 0) is still a regression, so quarantine never hides one. Their rows are compared and shown.
 */
export function compareWithBaseline(baseline: Baseline, results: TestResults, skip: (suite: string, name: string, provider: string) => boolean = () => false): BaselineComparison {
  const out: BaselineComparison = { suites: [], regressions: [], missing: [], added: [] };
  const a = { label: 'baseline', spec: 'the baseline' };
  const b = { label: 'run', spec: 'this run' };
  for (const { plan, runs } of results.suites) {
    const stored = baseline.suites.find((s) => s.suite === plan.name);
    const before: RunFigures[] = [];
    const known = new Set<string>();
    for (const c of stored?.cases ?? []) {
      known.add(`${c.case}\u0000${c.provider}`);
      c.runs.forEach((r, i) => before.push({ case: c.case, provider: c.provider, repeat: i + 1, error: null, ...r }));
    }
    const now = runs.map(figuresOf);
    const ran = new Set(now.filter((r) => r.error === null).map((r) => `${r.case}\u0000${r.provider}`));
    for (const key of known) if (!ran.has(key)) out.missing.push({ suite: plan.name, ...split(key) });
    for (const key of ran) if (!known.has(key)) out.added.push({ suite: plan.name, ...split(key) });
    const gated = (r: RunFigures) => !skip(plan.name, r.case, r.provider);
    const comparison = compareFigures(a, b, [{ suite: plan.name, results: before }], [{ suite: plan.name, results: now }]);
    out.suites.push({ suite: plan.name, comparison });
    for (const row of comparison.rows) {
      for (const metric of ['pass_rate', 'tokens', 'cost'] as const) if (row[metric].verdict === 'worse') out.regressions.push({ suite: plan.name, case: row.case, provider: row.provider, metric, delta: row[metric] });
    }
    // Overall, per provider, over the cases that gate (quarantined ones left out of the pairs).
    const overall = compareFigures(a, b, [{ suite: plan.name, results: before.filter(gated) }], [{ suite: plan.name, results: now.filter(gated) }]).overall;
    for (const o of overall) {
      for (const metric of ['pass_rate', 'precision', 'recall', 'tokens', 'cost'] as const) if (o[metric].verdict === 'worse') out.regressions.push({ suite: plan.name, case: null, provider: o.provider, metric, delta: o[metric] });
    }
  }
  return out;
}

function split(key: string): { case: string; provider: string } {
  const [c, provider] = key.split('\u0000') as [string, string];
  return { case: c, provider };
}
