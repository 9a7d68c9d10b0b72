import { describe, expect, it } from 'vitest';
import { compareRuns, parseVariant } from '../../src/testing/compare-runs.js';
import type { RunResult } from '../../src/testing/run-suite.js';
import { pairedT, verdict, welch } from '../../src/testing/statistics.js';

export function run(over: Partial<RunResult> & { case: string }): RunResult {
  return {
    provider: 'openai:m', model: 'm', repeat: 1, passed: true, failures: [], error: null, calls: [], answer: '', rounds: 1, stop: 'done',
    usage: { input: 100, output: 10, cached: 0, estimated_input: 100, reported: true, side: [] }, latency_ms: 1, cost_usd: 0.001, expected_tools: null, notices: [], recording: null,
    ...over,
  };
}
const call = (name: string) => ({ name, meta: false }) as unknown as RunResult['calls'][number];
const A = parseVariant('a.yaml', 'A');
const B = parseVariant('b.yaml', 'B');

describe('compare statistics with too little data (issue 12: 2)', () => {
  it('fewer than 2 values: "insufficient data", not a zero-width interval', () => {
    expect(verdict(pairedT([-1]), true)).toBe('insufficient data');
    expect(verdict(pairedT([]), true)).toBe('insufficient data');
    expect(verdict(welch([100], [200]), false)).toBe('insufficient data');
  });

  it('zero variance with n >= 2: a verdict, and the method says the interval is a point', () => {
    const t = pairedT([1, 1, 1]);
    expect(verdict(t, true)).toBe('better');
    expect(t.method).toContain('zero variance');
    expect(welch([5, 5], [7, 7]).method).toContain('zero variance');
  });

  it('one case, one repeat each: every verdict is insufficient data, none worse', () => {
    const c = compareRuns(A, B, [{ suite: 's', results: [run({ case: 'x', passed: true, usage: { input: 100, output: 0, cached: 0, estimated_input: 100, reported: true, side: [] } })] }], [{ suite: 's', results: [run({ case: 'x', passed: false, usage: { input: 900, output: 0, cached: 0, estimated_input: 900, reported: true, side: [] } })] }]);
    expect(c.overall[0]!.pass_rate).toMatchObject({ delta: -1, interval: null, verdict: 'insufficient data' });
    expect(c.overall[0]!.tokens.verdict).toBe('insufficient data');
    expect(c.rows[0]!.tokens.verdict).toBe('insufficient data');
  });

  it('proportion intervals stay within [-1, 1]', () => {
    // Precision per case: A 1, 1; B 0, 0.5 → differences -1, -0.5: the raw paired t interval is about [-3.9, 2.4].
    const gold = { expected_tools: ['t'] };
    const ra = [run({ case: 'x', ...gold, calls: [call('t')] }), run({ case: 'y', ...gold, calls: [call('t')] })];
    const rb = [run({ case: 'x', ...gold, calls: [call('u')] }), run({ case: 'y', ...gold, calls: [call('t'), call('u')] })];
    const c = compareRuns(A, B, [{ suite: 's', results: ra }], [{ suite: 's', results: rb }]);
    for (const metric of [c.overall[0]!.precision, c.overall[0]!.recall, c.overall[0]!.pass_rate]) {
      if (!metric.interval) continue;
      expect(metric.interval.low).toBeGreaterThanOrEqual(-1);
      expect(metric.interval.high).toBeLessThanOrEqual(1);
    }
    expect(c.overall[0]!.precision.interval!.low).toBe(-1);
  });
});

describe('precision and recall are the same figures as a plain run reports (issue 17)', () => {
  it("a side's figure covers all its runs, even where the other side has no value for a case", async () => {
    const { summarizeRuns } = await import('../../src/testing/suite-report.js');
    const suite = { name: 's', file: 's.yaml', cases: [{ name: 'c1', minPassRate: 0 }, { name: 'c2', minPassRate: 0 }] } as never;
    // A: c1 called the wrong tool (precision 0), c2 the right one (1). B: c1 called nothing (no precision), c2 right.
    const a = [run({ case: 'c1', expected_tools: ['x'], calls: [call('y')] }), run({ case: 'c2', expected_tools: ['z'], calls: [call('z')] })];
    const b = [run({ case: 'c1', expected_tools: ['x'], calls: [] }), run({ case: 'c2', expected_tools: ['z'], calls: [call('z')] })];
    const comparison = compareRuns(A, B, [{ suite: 's', results: a }], [{ suite: 's', results: b }]);
    const plainA = summarizeRuns(suite, a).providers[0]!;
    const plainB = summarizeRuns(suite, b).providers[0]!;
    expect(comparison.overall[0]!.precision.a).toBe(plainA.precision);
    expect(comparison.overall[0]!.precision.b).toBe(plainB.precision);
    expect(comparison.overall[0]!.recall.a).toBe(plainA.recall);
    expect(plainA.precision).toBe(0.5);
  });
});
