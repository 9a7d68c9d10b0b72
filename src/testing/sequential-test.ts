/**
 * Sequential testing of one case's repeats against its `min_pass_rate` (docs/testing.md, "Fewer
 * calls for the same verdict"). The fixed-N rule passes a case of N repeats when at least
 * ceil(min_pass_rate x N) of them pass. Run by run, two rules may settle that verdict early:
 *
 * 1. Curtailment (exact): the fixed-N verdict can no longer change, whatever the remaining runs
 *    do (enough passes already, or too many failures). It always agrees with the fixed-N verdict.
 * 2. A mixture sequential probability ratio test (mSPRT; Robbins 1970, Johari et al. 2017/2022):
 *    for each side a likelihood ratio of the runs so far, mixed over a uniform prior on the
 *    alternative (pass rates above the bar for "passes", below it for "fails"), against the bar
 *    itself. Under any true rate on the other side each ratio is a nonnegative supermartingale,
 *    so by Ville's inequality it ever reaches 1/alpha with probability at most alpha: the test is
 *    valid however often it is looked at ("always valid"). A case that reaches N runs without
 *    either rule stopping it gets the fixed-N verdict.
 *
 * Everything here is a pure function of the runs' outcomes in repeat order, so a verdict is the
 * same live, replayed, sharded or merged.
 */

export type SequentialRule = 'curtailment' | 'evidence' | 'all runs';

export interface SequentialDecision {
  /** The verdict, once settled: true = the case reaches min_pass_rate. */
  passed: boolean;
  /** Runs looked at when it settled. */
  runs: number;
  /** What settled it. */
  rule: SequentialRule;
}

/** The default error bound of each side of the mSPRT. */
export const DEFAULT_ALPHA = 0.05;

/** Passes the fixed-N rule asks of `planned` runs (the same rounding as the report's `rate >= min_pass_rate`). */
export function passesNeeded(planned: number, minPassRate: number): number {
  return Math.max(0, Math.ceil(minPassRate * planned - 1e-9));
}

/**
 * The verdict of a case after `outcomes` (pass/fail in repeat order; runs that could not run left
 * out), or null while it is not settled. `planned` is the case's repeat count (N).
 */
export function sequentialDecision(outcomes: readonly boolean[], planned: number, minPassRate: number, alpha = DEFAULT_ALPHA): SequentialDecision | null {
  let passes = 0;
  for (let n = 1; n <= outcomes.length; n++) {
    if (outcomes[n - 1]) passes++;
    const decision = decisionAt(passes, n, planned, minPassRate, alpha);
    if (decision) return decision;
  }
  return null;
}

/** The rules at one look: `passes` of the first `runs` runs (for a runner that looks after every run). */
export function decisionAt(passes: number, runs: number, planned: number, minPassRate: number, alpha = DEFAULT_ALPHA): SequentialDecision | null {
  const need = passesNeeded(planned, minPassRate);
  // At least one run, so even a case whose bar is 0 is seen once.
  if (runs < 1) return null;
  if (passes >= need) return { passed: true, runs, rule: runs >= planned ? 'all runs' : 'curtailment' };
  if (passes + (planned - runs) < need) return { passed: false, runs, rule: runs >= planned ? 'all runs' : 'curtailment' };
  if (minPassRate > 0 && minPassRate < 1) {
    const threshold = Math.log(1 / alpha);
    const failures = runs - passes;
    if (logMixtureRatio(passes, failures, minPassRate, 'above') >= threshold) return { passed: true, runs, rule: 'evidence' };
    if (logMixtureRatio(passes, failures, minPassRate, 'below') >= threshold) return { passed: false, runs, rule: 'evidence' };
  }
  return null;
}

/**
 * log of the mixture likelihood ratio for `s` passes and `f` failures: the likelihood averaged
 * over a uniform prior on (p0, 1] ('above') or [0, p0) ('below'), over the likelihood at p0.
 * With integer counts the integral of p^s (1-p)^f is a beta function times a binomial tail:
 *   ∫_0^x p^s (1-p)^f dp = B(s+1, f+1) · P(Binomial(s+f+1, x) ≥ s+1),
 * so everything is exact sums of log-factorials (repeats are at most 100, so no approximation is needed).
 */
export function logMixtureRatio(s: number, f: number, p0: number, side: 'above' | 'below'): number {
  const n = s + f;
  const logNull = s * Math.log(p0) + f * Math.log1p(-p0);
  const logBeta = logFactorial(s) + logFactorial(f) - logFactorial(n + 1);
  const atMost = binomialAtMost(s, n + 1, p0); // P(Bin(n+1, p0) <= s) = the prior's mass share above p0, weighted
  const tail = side === 'above' ? atMost : 1 - atMost;
  const width = side === 'above' ? 1 - p0 : p0;
  if (tail <= 0) return -Infinity;
  return logBeta + Math.log(tail) - Math.log(width) - logNull;
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i);
  return logFactorials[n]!;
}

/** P(Binomial(n, p) <= k), summed in log space term by term. */
function binomialAtMost(k: number, n: number, p: number): number {
  let sum = 0;
  for (let j = 0; j <= Math.min(k, n); j++) sum += Math.exp(logFactorial(n) - logFactorial(j) - logFactorial(n - j) + j * Math.log(p) + (n - j) * Math.log1p(-p));
  return Math.min(1, sum);
}

/** The fixed-N verdict over all `planned` runs (what `toolman test` without --sequential gives). */
export function fixedVerdict(outcomes: readonly boolean[], minPassRate: number): boolean {
  const passes = outcomes.filter(Boolean).length;
  return outcomes.length > 0 && passes / outcomes.length >= minPassRate - 1e-9;
}
