import type { RunResult } from './run-suite.js';
import { inputTokens, whyNoCost } from './run-usage.js';
import { selectionScores } from './selection-metrics.js';
import { sequentialDecision, type SequentialRule } from './sequential-test.js';
import { mean, passHatK, percentile, wilson, type Interval } from './statistics.js';

/** What a report needs of a suite: its names and each case's bar and repeats (a loaded suite, or a results file's plan). */
export interface SuiteShape {
  name: string;
  file: string;
  cases: readonly { name: string; minPassRate: number; repeat?: number }[];
}

/** One case with one provider, over its repeats. */
export interface CaseRow {
  case: string;
  provider: string;
  runs: number;
  passes: number;
  pass_rate: number;
  min_pass_rate: number;
  /** pass^k with k = runs: 1 only when every repeat passed. */
  pass_hat_k: number;
  ok: boolean;
  /** Each distinct failure reason, with how many runs had it. */
  failures: { expectation: string; message: string; runs: number }[];
  /** With --sequential: the runs the case planned, what settled its verdict (null: nothing yet) and the runs it did not need. */
  sequential?: { planned: number; rule: SequentialRule | null; runs_saved: number };
}

/** What --sequential saved over a suite: runs exactly, model calls estimated from each case's mean rounds per run. */
export interface SequentialSavings {
  alpha: number;
  runs_planned: number;
  runs_made: number;
  runs_saved: number;
  /** Model requests made (each run's rounds). */
  calls_made: number;
  /** Model requests not made: each case's saved runs x its mean rounds per run (an estimate: the runs not made were never seen). */
  calls_saved_estimate: number;
  /** Cases per rule that settled them. */
  settled_by: Record<SequentialRule, number>;
}

export interface ProviderSummary {
  provider: string;
  cases: number;
  runs: number;
  passes: number;
  /** Mean pass rate over runs (pass@1), with a Wilson 95% interval that treats runs as independent. */
  pass_rate: number;
  pass_rate_interval: Interval;
  /** Mean over cases of pass^k, k = each case's repeats. */
  pass_hat_k: number;
  /** Tool selection over runs whose case names its tools (selection-metrics.ts: the same figures `--compare` pairs). */
  precision: number | null;
  recall: number | null;
  rounds_mean: number;
  tokens_in: number;
  tokens_out: number;
  /** Whether every run's token counts came from the API (else toolman's estimate fills in the input). */
  tokens_reported: boolean;
  latency_ms: { mean: number; p50: number; p95: number };
  /** Dollars over the runs that have a cost; null when none has. */
  cost_usd: number | null;
  /** Runs left out of cost_usd, by reason ("no usage reported", "no price for MODEL"). */
  cost_missing: { runs: number; reasons: Record<string, number> };
  /** expected tool → the tool called instead ("(none)" when nothing was), with counts. */
  confusion: Record<string, Record<string, number>>;
}

export interface SuiteReport {
  suite: string;
  file: string;
  cases: CaseRow[];
  providers: ProviderSummary[];
  /** Runs that ran, over all providers, that passed (runs that could not run are not failures: they are `not_run`). */
  pass_rate: number;
  failed_cases: number;
  /** Runs that could not run (no recording, a replay mismatch, the API failed): no verdict, each reason with its runs. */
  not_run: { runs: number; reasons: { reason: string; runs: string[] }[] };
  ok: boolean;
  sequential?: SequentialSavings;
}

/** Aggregates runs into the report `toolman test` prints: per case and provider, per provider. */
export function summarizeRuns(suite: SuiteShape, all: readonly RunResult[], minPassRate = 0, sequential?: { alpha: number }): SuiteReport {
  const results = all.filter((r) => r.error === null);
  const notRun = new Map<string, string[]>();
  for (const r of all) if (r.error !== null) notRun.set(r.error, [...(notRun.get(r.error) ?? []), `${r.case} #${r.repeat} [${r.provider}]`]);
  const rows: CaseRow[] = [];
  const byKey = new Map<string, RunResult[]>();
  for (const r of results) {
    const key = `${r.case}\u0000${r.provider}`;
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  for (const testCase of suite.cases) {
    for (const provider of [...new Set(results.map((r) => r.provider))]) {
      const runs = byKey.get(`${testCase.name}\u0000${provider}`);
      if (!runs) continue;
      const passes = runs.filter((r) => r.passed).length;
      const reasons = new Map<string, { expectation: string; message: string; runs: number }>();
      for (const run of runs) {
        for (const f of run.failures) {
          const key = `${f.expectation}\u0000${f.message}`;
          const seen = reasons.get(key) ?? { ...f, runs: 0 };
          seen.runs++;
          reasons.set(key, seen);
        }
      }
      const rate = passes / runs.length;
      const row: CaseRow = {
        case: testCase.name, provider, runs: runs.length, passes, pass_rate: rate, min_pass_rate: testCase.minPassRate,
        pass_hat_k: passHatK(passes, runs.length, runs.length), ok: rate >= testCase.minPassRate - 1e-9, failures: [...reasons.values()],
      };
      if (sequential) {
        // The verdict the runner stopped on, decided again from the outcomes in repeat order (the same live, replayed or merged).
        const planned = testCase.repeat ?? runs.length;
        const decision = sequentialDecision([...runs].sort((a, b) => a.repeat - b.repeat).map((r) => r.passed), planned, testCase.minPassRate, sequential.alpha);
        if (decision) row.ok = decision.passed;
        row.sequential = { planned, rule: decision?.rule ?? null, runs_saved: Math.max(0, planned - runs.length) };
      }
      rows.push(row);
    }
  }
  const providers = [...new Set(results.map((r) => r.provider))].map((provider) => providerSummary(provider, results.filter((r) => r.provider === provider), rows.filter((r) => r.provider === provider)));
  const passRate = results.length ? results.filter((r) => r.passed).length / results.length : 0;
  const failed = rows.filter((r) => !r.ok).length;
  const unfinished = all.length - results.length;
  return {
    suite: suite.name, file: suite.file, cases: rows, providers, pass_rate: passRate, failed_cases: failed,
    not_run: { runs: unfinished, reasons: [...notRun].map(([reason, runs]) => ({ reason, runs })) },
    ok: failed === 0 && unfinished === 0 && passRate >= minPassRate - 1e-9,
    ...(sequential ? { sequential: savings(rows, byKey, sequential.alpha) } : {}),
  };
}

function savings(rows: readonly CaseRow[], byKey: ReadonlyMap<string, RunResult[]>, alpha: number): SequentialSavings {
  const out: SequentialSavings = { alpha, runs_planned: 0, runs_made: 0, runs_saved: 0, calls_made: 0, calls_saved_estimate: 0, settled_by: { curtailment: 0, evidence: 0, 'all runs': 0 } };
  for (const row of rows) {
    const runs = byKey.get(`${row.case}\u0000${row.provider}`) ?? [];
    const calls = runs.reduce((n, r) => n + r.rounds, 0);
    out.runs_planned += row.sequential!.planned;
    out.runs_made += runs.length;
    out.runs_saved += row.sequential!.runs_saved;
    out.calls_made += calls;
    out.calls_saved_estimate += runs.length ? Math.round((row.sequential!.runs_saved * calls) / runs.length) : 0;
    if (row.sequential!.rule) out.settled_by[row.sequential!.rule]++;
  }
  return out;
}

function providerSummary(provider: string, runs: readonly RunResult[], rows: readonly CaseRow[]): ProviderSummary {
  const confusion: Record<string, Record<string, number>> = {};
  for (const run of runs) {
    if (run.expected_tools === null) continue;
    const gold = new Set(run.expected_tools);
    const made = new Set(run.calls.filter((c) => !c.meta).map((c) => c.name));
    // Confusion: each expected tool not called, paired in call order with a called tool that was not expected.
    const missed = [...gold].filter((g) => !made.has(g));
    const instead = [...made].filter((m) => !gold.has(m));
    missed.forEach((tool, i) => {
      const other = instead[i] ?? '(none)';
      confusion[tool] ??= {};
      confusion[tool][other] = (confusion[tool][other] ?? 0) + 1;
    });
    if (gold.size === 0) {
      for (const other of instead) {
        confusion['(none)'] ??= {};
        confusion['(none)'][other] = (confusion['(none)'][other] ?? 0) + 1;
      }
    }
  }
  const { precision, recall } = selectionScores(runs);
  const passes = runs.filter((r) => r.passed).length;
  const latencies = runs.map((r) => r.latency_ms).sort((a, b) => a - b);
  const priced = runs.filter((r) => r.cost_usd !== null);
  const reasons: Record<string, number> = {};
  for (const r of runs) {
    if (r.cost_usd !== null) continue;
    const why = whyNoCost(r);
    reasons[why] = (reasons[why] ?? 0) + 1;
  }
  // The "*" on tokens in: some run's input is toolman's estimate (a run that never ran has none).
  const reported = !runs.some((r) => !r.usage.reported && r.usage.estimated_input > 0);
  return {
    provider,
    cases: rows.length,
    runs: runs.length,
    passes,
    pass_rate: runs.length ? passes / runs.length : 0,
    pass_rate_interval: wilson(passes, runs.length),
    pass_hat_k: mean(rows.map((r) => r.pass_hat_k)),
    precision,
    recall,
    rounds_mean: mean(runs.map((r) => r.rounds)),
    tokens_in: runs.reduce((s, r) => s + inputTokens(r.usage), 0),
    tokens_out: runs.reduce((s, r) => s + r.usage.output, 0),
    tokens_reported: reported,
    latency_ms: { mean: Math.round(mean(latencies)), p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    cost_usd: priced.length ? priced.reduce((s, r) => s + r.cost_usd!, 0) : null,
    cost_missing: { runs: runs.length - priced.length, reasons },
    confusion,
  };
}
