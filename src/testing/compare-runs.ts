import { precisionOf, recallOf, selectionScores } from './selection-metrics.js';
import type { RunResult } from './run-suite.js';
import { mean, newcombeDifference, pairedT, verdict, welch, type Interval, type Verdict } from './statistics.js';

/** One side of a comparison: what differs from the suite as written. */
export interface Variant {
  label: string;
  spec: string;
  catalog?: string[];
  profile?: string;
  loading?: 'eager' | 'deferred';
}

/** `new.yaml`, `profile:coding`, `eager`, `deferred`, or several joined with commas. */
export function parseVariant(spec: string, label: string): Variant {
  const variant: Variant = { label, spec };
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    if (part === 'eager' || part === 'deferred') variant.loading = part;
    else if (part.startsWith('profile:')) variant.profile = part.slice('profile:'.length);
    else variant.catalog = [...(variant.catalog ?? []), part];
  }
  return variant;
}

export interface MetricDelta {
  a: number | null;
  b: number | null;
  /** b − a. */
  delta: number | null;
  interval: Interval | null;
  verdict: Verdict | null;
}

export interface CompareRow {
  suite: string;
  case: string;
  provider: string;
  pass_rate: MetricDelta;
  tokens: MetricDelta;
  recall: MetricDelta;
}

export interface CompareOverall {
  provider: string;
  cases: number;
  pass_rate: MetricDelta;
  precision: MetricDelta;
  recall: MetricDelta;
  tokens: MetricDelta;
}

/** A run that could not run (no recording, a replay mismatch, the API failed): left out of the statistics. */
export interface RunError {
  variant: 'A' | 'B';
  suite: string;
  case: string;
  provider: string;
  repeat: number;
  error: string;
}

export interface Comparison {
  a: Variant;
  b: Variant;
  rows: CompareRow[];
  overall: CompareOverall[];
  /** Runs per variant, errors included. */
  runs: { A: number; B: number };
  errors: RunError[];
}

const tokensOf = (r: RunResult) => (r.usage.reported ? r.usage.input : r.usage.estimated_input) + r.usage.output;

/** Welch's interval for a difference of proportions (recall), clamped to [−1, 1]. */
function boundedWelch(a: number[], b: number[]): Interval & { insufficient?: true } {
  const w = welch(a, b);
  return w.insufficient ? w : clamp(w);
}

const present = (values: (number | null)[]) => values.filter((v): v is number => v !== null);

/** A difference of proportions stays within [−1, 1], whatever a t interval around it says. */
const clamp = (interval: Interval): Interval => ({ ...interval, low: Math.max(-1, interval.low), high: Math.min(1, interval.high) });

/** With too little data for an interval (`insufficient`), no interval and the verdict "insufficient data". */
function delta(a: number[], b: number[], interval: (Interval & { insufficient?: true }) | null, higherIsBetter: boolean): MetricDelta {
  const ma = a.length ? mean(a) : null;
  const mb = b.length ? mean(b) : null;
  const d = ma !== null && mb !== null ? mb - ma : null;
  if (interval?.insufficient) return { a: ma, b: mb, delta: d, interval: null, verdict: 'insufficient data' };
  return { a: ma, b: mb, delta: d, interval: interval ? { low: interval.low, high: interval.high, method: interval.method } : null, verdict: interval ? verdict(interval, higherIsBetter) : null };
}

/**
 * Compares runs of the same suites on two variants. Per case: the pass-rate difference with
 * Newcombe's hybrid score interval (repeats of A and B are independent samples), tokens and
 * recall with Welch's t interval. Overall, per provider: each case is a pair (its mean on A and
 * on B), and the mean of the differences gets a paired t interval, so case difficulty cancels
 * out. A verdict is better or worse only when the 95% interval excludes 0. Runs that errored
 * (could not run) are left out and listed in `errors`; the caller fails the comparison.
 */
export function compareRuns(a: Variant, b: Variant, runsA: readonly { suite: string; results: readonly RunResult[] }[], runsB: readonly { suite: string; results: readonly RunResult[] }[]): Comparison {
  const rows: CompareRow[] = [];
  const errors: RunError[] = [];
  const group = (sets: typeof runsA, variant: 'A' | 'B') => {
    const map = new Map<string, RunResult[]>();
    for (const set of sets) for (const r of set.results) if (r.error !== null) errors.push({ variant, suite: set.suite, case: r.case, provider: r.provider, repeat: r.repeat, error: r.error }); else map.set(`${set.suite}\u0000${r.case}\u0000${r.provider}`, [...(map.get(`${set.suite}\u0000${r.case}\u0000${r.provider}`) ?? []), r]);
    return map;
  };
  const ga = group(runsA, 'A');
  const gb = group(runsB, 'B');
  for (const [key, ra] of ga) {
    const rb = gb.get(key);
    if (!rb) continue;
    const [suite, name, provider] = key.split('\u0000') as [string, string, string];
    const pa: number[] = ra.map((r) => (r.passed ? 1 : 0));
    const pb: number[] = rb.map((r) => (r.passed ? 1 : 0));
    const ta = ra.map(tokensOf);
    const tb = rb.map(tokensOf);
    const reA = present(ra.map(recallOf));
    const reB = present(rb.map(recallOf));
    rows.push({
      suite,
      case: name,
      provider,
      pass_rate: delta(pa, pb, newcombeDifference(pa.reduce((s, v) => s + v, 0), pa.length, pb.reduce((s, v) => s + v, 0), pb.length), true),
      tokens: delta(ta, tb, welch(ta, tb), false),
      recall: reA.length && reB.length ? delta(reA, reB, boundedWelch(reA, reB), true) : delta(reA, reB, null, true),
    });
  }
  const overall: CompareOverall[] = [];
  for (const provider of [...new Set(rows.map((r) => r.provider))]) {
    const mine = rows.filter((r) => r.provider === provider);
    // This provider's runs of the compared cases on one side, each case named with its suite.
    const sideRuns = (side: Map<string, RunResult[]>) => mine.flatMap((row) => (side.get(`${row.suite}\u0000${row.case}\u0000${provider}`) ?? []).map((r) => ({ ...r, case: `${row.suite}\u0000${row.case}` })));
    /**
     * `figures`: each side's own figure where a metric can be missing in a run (precision, recall):
     * the one its plain run reports (selection-metrics.ts), while the difference and its interval
     * come from the cases that have a value on both sides.
     */
    const paired = (pick: (r: RunResult) => number | null, higherIsBetter: boolean, proportion: boolean, figures?: (side: Map<string, RunResult[]>) => number | null): MetricDelta => {
      const pairs: [number, number][] = [];
      for (const row of mine) {
        const key = `${row.suite}\u0000${row.case}\u0000${provider}`;
        const va = present(ga.get(key)!.map(pick));
        const vb = present(gb.get(key)!.map(pick));
        if (va.length && vb.length) pairs.push([mean(va), mean(vb)]);
      }
      const own = figures ? { a: figures(ga), b: figures(gb) } : undefined;
      if (!pairs.length) return { a: own?.a ?? null, b: own?.b ?? null, delta: null, interval: null, verdict: null };
      const t = pairedT(pairs.map(([x, y]) => y - x));
      const base = { a: own ? own.a : mean(pairs.map((p) => p[0])), b: own ? own.b : mean(pairs.map((p) => p[1])), delta: t.mean };
      if (t.insufficient) return { ...base, interval: null, verdict: 'insufficient data' };
      const interval = proportion ? clamp({ low: t.low, high: t.high, method: t.method }) : { low: t.low, high: t.high, method: t.method };
      return { ...base, interval, verdict: verdict(interval, higherIsBetter) };
    };
    overall.push({
      provider,
      cases: mine.length,
      pass_rate: paired((r) => (r.passed ? 1 : 0), true, true),
      precision: paired(precisionOf, true, true, (side) => selectionScores(sideRuns(side)).precision),
      recall: paired(recallOf, true, true, (side) => selectionScores(sideRuns(side)).recall),
      tokens: paired(tokensOf, false, false),
    });
  }
  const count = (sets: typeof runsA) => sets.reduce((n, s) => n + s.results.length, 0);
  return { a, b, rows, overall, runs: { A: count(runsA), B: count(runsB) }, errors };
}
