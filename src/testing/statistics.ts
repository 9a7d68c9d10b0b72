/**
 * The statistics `toolman test` reports, each named for what it is. 95% intervals throughout
 * (z = 1.96); every method is the textbook one, cited in docs/testing.md.
 */

export interface Interval {
  low: number;
  high: number;
  method: string;
}

const Z95 = 1.959963984540054;

/** Wilson score interval for a proportion of `successes` in `n` trials. */
export function wilson(successes: number, n: number): Interval {
  if (n === 0) return { low: 0, high: 1, method: 'wilson' };
  const p = successes / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half), method: 'wilson' };
}

/**
 * Newcombe's hybrid score interval (his method 10, 1998) for the difference p2 − p1 of two
 * independent proportions, built from each one's Wilson interval. Unlike the Wald interval it
 * stays inside [−1, 1] and does not collapse to a point at 0/n or n/n.
 */
export function newcombeDifference(s1: number, n1: number, s2: number, n2: number): Interval {
  const p1 = n1 ? s1 / n1 : 0;
  const p2 = n2 ? s2 / n2 : 0;
  const a = wilson(s1, n1);
  const b = wilson(s2, n2);
  const d = p2 - p1;
  const low = d - Math.sqrt((p2 - b.low) ** 2 + (a.high - p1) ** 2);
  const high = d + Math.sqrt((b.high - p2) ** 2 + (p1 - a.low) ** 2);
  return { low: Math.max(-1, low), high: Math.min(1, high), method: 'newcombe-hybrid-score' };
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : 0;
}

/** Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (table, then the normal limit). */
function tQuantile(df: number): number {
  const table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
  if (df < 1) return Infinity;
  if (df <= table.length) return table[df - 1]!;
  if (df <= 60) return 2.0;
  if (df <= 120) return 1.98;
  return Z95;
}

/**
 * Paired t interval for the mean of differences (B − A per pair). With fewer than two pairs there
 * is no spread to estimate: `insufficient`, and the verdict says so rather than reading one pair
 * as a difference. With no spread at all (every pair differs by the same amount, n ≥ 2) the
 * interval is the point itself and the method says so: a consistent difference, not a t interval.
 */
export function pairedT(differences: readonly number[]): Interval & { mean: number; insufficient?: true } {
  const n = differences.length;
  const m = mean(differences);
  if (n < 2) return { mean: m, low: n ? m : 0, high: n ? m : 0, method: 'paired-t', insufficient: true };
  const variance = differences.reduce((s, d) => s + (d - m) ** 2, 0) / (n - 1);
  if (variance === 0) return { mean: m, low: m, high: m, method: `paired-t, zero variance (all ${n} pairs differ by the same amount; the interval is that point)` };
  const half = tQuantile(n - 1) * Math.sqrt(variance / n);
  return { mean: m, low: m - half, high: m + half, method: 'paired-t' };
}

/**
 * Welch's t interval for the difference of means (b − a) of two independent samples: with
 * fewer than two values on a side, `insufficient`; with no spread on either side, the point
 * and a method that says so.
 */
export function welch(a: readonly number[], b: readonly number[]): Interval & { mean: number; insufficient?: true } {
  const ma = mean(a);
  const mb = mean(b);
  const d = mb - ma;
  if (a.length < 2 || b.length < 2) return { mean: d, low: d, high: d, method: 'welch-t', insufficient: true };
  const va = a.reduce((s, v) => s + (v - ma) ** 2, 0) / (a.length - 1);
  const vb = b.reduce((s, v) => s + (v - mb) ** 2, 0) / (b.length - 1);
  const se2 = va / a.length + vb / b.length;
  if (se2 === 0) return { mean: d, low: d, high: d, method: 'welch-t, zero variance (every value on each side the same; the interval is that point)' };
  const df = se2 ** 2 / ((va / a.length) ** 2 / (a.length - 1) + (vb / b.length) ** 2 / (b.length - 1));
  const half = tQuantile(Math.floor(df)) * Math.sqrt(se2);
  return { mean: d, low: d - half, high: d + half, method: 'welch-t' };
}

/**
 * pass^k (τ-bench): the chance that k independent tries all pass, estimated without bias from
 * c passes in n tries as C(c, k) / C(n, k). With k = n it is 1 only when every try passed.
 */
export function passHatK(c: number, n: number, k: number): number {
  if (k > n || n === 0) return 0;
  let value = 1;
  for (let i = 0; i < k; i++) value *= (c - i) / (n - i);
  return Math.max(0, value);
}

/** Percentile of sorted values (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export type Verdict = 'better' | 'worse' | 'within noise' | 'insufficient data';

/**
 * Better when the whole interval is on the good side of 0, worse when on the bad side;
 * insufficient data when the interval could not be estimated (fewer than two values).
 */
export function verdict(interval: { low: number; high: number; insufficient?: true }, higherIsBetter: boolean): Verdict {
  if (interval.insufficient) return 'insufficient data';
  if (interval.low > 0) return higherIsBetter ? 'better' : 'worse';
  if (interval.high < 0) return higherIsBetter ? 'worse' : 'better';
  return 'within noise';
}
