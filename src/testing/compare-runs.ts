import { precisionOf, recallOf } from './selection-metrics.js';
import type { RunResult } from './run-suite.js';
import { inputTokens } from './run-usage.js';
import { mean, newcombeDifference, pairedT, verdict, welch, type Interval, type Verdict } from './statistics.js';

/** One side of a comparison: what differs from the suite as written. */
export interface Variant {
  label: string;
  spec: string;
  catalog?: string[];
  profile?: string;
  loading?: 'eager' | 'deferred';
  /** How deferred tools are found: toolman's tool_search (`deferred`, `client`) or the provider's own (`native`). */
  search?: 'client' | 'native';
}

/** The loading strategies a variant can name: every tool up front, or found through toolman's tool search, or the provider's own. */
export const LOADING_WORDS = ['eager', 'deferred', 'client', 'native'] as const;

/** `new.yaml`, `profile:coding`, `eager`, `deferred` (or `client`), `native`, or several joined with commas. */
export function parseVariant(spec: string, label: string): Variant {
  const variant: Variant = { label, spec };
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    if (part === 'eager') variant.loading = 'eager';
    else if (part === 'deferred' || part === 'client') Object.assign(variant, { loading: 'deferred', search: 'client' });
    else if (part === 'native') Object.assign(variant, { loading: 'deferred', search: 'native' });
    else if (part.startsWith('profile:')) variant.profile = part.slice('profile:'.length);
    else variant.catalog = [...(variant.catalog ?? []), part];
  }
  return variant;
}

/** Variant labels: A, B, C... (the first is what the others are compared against). */
export const variantLabel = (index: number): string => (index < 26 ? String.fromCharCode(65 + index) : `V${index + 1}`);

/**
 * What a comparison reads of a run: its outcome and figures. Runs of `toolman test` give them
 * (`figuresOf`); a baseline stores them, so it compares by exactly the rules `--compare` uses.
 */
export interface RunFigures {
  case: string;
  provider: string;
  repeat: number;
  /** The run could not run: left out of the statistics. */
  error: string | null;
  passed: boolean;
  /** Input (API-reported, else toolman's estimate) plus output tokens. */
  tokens: number;
  cost_usd: number | null;
  precision: number | null;
  recall: number | null;
}

export function figuresOf(run: RunResult): RunFigures {
  return { case: run.case, provider: run.provider, repeat: run.repeat, error: run.error, passed: run.passed, tokens: tokensOf(run), cost_usd: run.cost_usd, precision: precisionOf(run), recall: recallOf(run) };
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
  /** Dollars per run, over the runs that have a cost on each side. */
  cost: MetricDelta;
}

export interface CompareOverall {
  provider: string;
  cases: number;
  pass_rate: MetricDelta;
  precision: MetricDelta;
  recall: MetricDelta;
  tokens: MetricDelta;
  cost: MetricDelta;
}

/** A run that could not run (no recording, a replay mismatch, the API failed): left out of the statistics. */
export interface RunError {
  /** The variant's label (A, B, C...; `baseline` / `run` against a baseline). */
  variant: string;
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
  /** Runs per variant (by label), errors included. */
  runs: Record<string, number>;
  errors: RunError[];
}

/** A run's tokens in all, side calls included (run-usage.ts): what a baseline and --compare weigh. */
const tokensOf = (r: RunResult) => inputTokens(r.usage) + r.usage.output;

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
 * Newcombe's hybrid score interval (repeats of A and B are independent samples), tokens, cost and
 * recall with Welch's t interval. Overall, per provider: each case is a pair (its mean on A and
 * on B), and the mean of the differences gets a paired t interval, so case difficulty cancels
 * out. A verdict is better or worse only when the 95% interval excludes 0. Runs that errored
 * (could not run) are left out and listed in `errors`; the caller fails the comparison.
 */
export function compareRuns(a: Variant, b: Variant, runsA: readonly { suite: string; results: readonly RunResult[] }[], runsB: readonly { suite: string; results: readonly RunResult[] }[]): Comparison {
  const figures = (sets: typeof runsA) => sets.map((set) => ({ suite: set.suite, results: set.results.map(figuresOf) }));
  return compareFigures(a, b, figures(runsA), figures(runsB));
}

type FigureSets = readonly { suite: string; results: readonly RunFigures[] }[];

/** `compareRuns` over runs' figures (a baseline's stored runs are figures only). */
export function compareFigures(a: Variant, b: Variant, runsA: FigureSets, runsB: FigureSets): Comparison {
  const rows: CompareRow[] = [];
  const errors: RunError[] = [];
  const group = (sets: FigureSets, variant: string) => {
    const map = new Map<string, RunFigures[]>();
    for (const set of sets) {
      for (const r of set.results) {
        if (r.error !== null) errors.push({ variant, suite: set.suite, case: r.case, provider: r.provider, repeat: r.repeat, error: r.error });
        else {
          const key = `${set.suite}\u0000${r.case}\u0000${r.provider}`;
          const list = map.get(key);
          if (list) list.push(r);
          else map.set(key, [r]);
        }
      }
    }
    return map;
  };
  const ga = group(runsA, a.label);
  const gb = group(runsB, b.label);
  for (const [key, ra] of ga) {
    const rb = gb.get(key);
    if (!rb) continue;
    const [suite, name, provider] = key.split('\u0000') as [string, string, string];
    const pa: number[] = ra.map((r) => (r.passed ? 1 : 0));
    const pb: number[] = rb.map((r) => (r.passed ? 1 : 0));
    const ta = ra.map((r) => r.tokens);
    const tb = rb.map((r) => r.tokens);
    const reA = present(ra.map((r) => r.recall));
    const reB = present(rb.map((r) => r.recall));
    const ca = present(ra.map((r) => r.cost_usd));
    const cb = present(rb.map((r) => r.cost_usd));
    rows.push({
      suite,
      case: name,
      provider,
      pass_rate: delta(pa, pb, newcombeDifference(pa.reduce((s, v) => s + v, 0), pa.length, pb.reduce((s, v) => s + v, 0), pb.length), true),
      tokens: delta(ta, tb, welch(ta, tb), false),
      recall: reA.length && reB.length ? delta(reA, reB, boundedWelch(reA, reB), true) : delta(reA, reB, null, true),
      cost: ca.length && cb.length ? delta(ca, cb, welch(ca, cb), false) : delta(ca, cb, null, false),
    });
  }
  const overall: CompareOverall[] = [];
  for (const provider of [...new Set(rows.map((r) => r.provider))]) {
    const mine = rows.filter((r) => r.provider === provider);
    /**
     * Each side's own figure where a metric can be missing in a run (precision, recall): the one
     * its plain run reports (selection-metrics.ts: each case's mean over its runs, then the mean
     * over cases), while the difference and its interval come from the cases with a value on both.
     */
    const sideFigure = (side: Map<string, RunFigures[]>, pick: (r: RunFigures) => number | null): number | null => {
      const perCase = mine.map((row) => present((side.get(`${row.suite}\u0000${row.case}\u0000${provider}`) ?? []).map(pick))).filter((values) => values.length > 0).map(mean);
      return perCase.length ? mean(perCase) : null;
    };
    const paired = (pick: (r: RunFigures) => number | null, higherIsBetter: boolean, proportion: boolean, ownFigures = false): MetricDelta => {
      const pairs: [number, number][] = [];
      for (const row of mine) {
        const key = `${row.suite}\u0000${row.case}\u0000${provider}`;
        const va = present(ga.get(key)!.map(pick));
        const vb = present(gb.get(key)!.map(pick));
        if (va.length && vb.length) pairs.push([mean(va), mean(vb)]);
      }
      const own = ownFigures ? { a: sideFigure(ga, pick), b: sideFigure(gb, pick) } : undefined;
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
      precision: paired((r) => r.precision, true, true, true),
      recall: paired((r) => r.recall, true, true, true),
      tokens: paired((r) => r.tokens, false, false),
      cost: paired((r) => r.cost_usd, false, false),
    });
  }
  const count = (sets: FigureSets) => sets.reduce((n, s) => n + s.results.length, 0);
  return { a, b, rows, overall, runs: { [a.label]: count(runsA), [b.label]: count(runsB) }, errors };
}
