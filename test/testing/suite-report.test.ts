import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/testing/run-suite.js';
import { summarizeRuns } from '../../src/testing/suite-report.js';
import type { Suite } from '../../src/testing/suite-types.js';

const suite = { name: 's', file: 's.yaml', cases: [{ name: 'x', minPassRate: 0 }] } as unknown as Suite;
const base = (over: Partial<RunResult>): RunResult => ({
  case: 'x', provider: 'openai:m', model: 'm', repeat: 1, passed: true, failures: [], error: null, calls: [], answer: '', rounds: 1, stop: 'done',
  usage: { input: 100, output: 10, cached: 0, estimated_input: 100, reported: true, side: [] }, latency_ms: 1, cost_usd: 0.01, expected_tools: null, notices: [], recording: null,
  ...over,
});
const neverRan = (repeat: number) => base({ repeat, passed: false, error: 'no usable recording', rounds: 0, usage: { input: 0, output: 0, cached: 0, estimated_input: 0, reported: false, side: [] }, cost_usd: null });

describe('cost per provider (issue 12: 6)', () => {
  it('sums the priced runs and counts the others with their reason', () => {
    const p = summarizeRuns(suite, [base({ repeat: 1 }), base({ repeat: 2, usage: { input: 0, output: 5, cached: 0, estimated_input: 80, reported: false, side: [] }, cost_usd: null }), neverRan(3)]).providers[0]!;
    expect(p.cost_usd).toBeCloseTo(0.01, 10);
    // A run that never ran is no result at all: not in the runs, the costs or the pass rate.
    expect(p.cost_missing).toEqual({ runs: 1, reasons: { 'no usage reported': 1 } });
    expect(p.runs).toBe(2);
  });

  it('runs that could not run are no verdict: not failed, not counted, listed with their reason', () => {
    const report = summarizeRuns(suite, [base({ repeat: 1 }), neverRan(2), neverRan(3)]);
    expect(report.pass_rate).toBe(1);
    expect(report.providers[0]).toMatchObject({ runs: 1, passes: 1, pass_rate: 1 });
    expect(report.not_run.runs).toBe(2);
    expect(report.not_run.reasons).toEqual([{ reason: expect.any(String), runs: [expect.stringContaining('#2'), expect.stringContaining('#3')] }]);
    expect(report.ok).toBe(false);
    const none = summarizeRuns(suite, [neverRan(1), neverRan(2)]);
    expect(none.providers).toEqual([]);
    expect(none.cases).toEqual([]);
    expect(none.not_run.runs).toBe(2);
  });
});
