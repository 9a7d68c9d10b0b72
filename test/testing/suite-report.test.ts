import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/testing/run-suite.js';
import { summarizeRuns } from '../../src/testing/suite-report.js';
import type { Suite } from '../../src/testing/suite-types.js';

const suite = { name: 's', file: 's.yaml', cases: [{ name: 'x', minPassRate: 0 }] } as unknown as Suite;
const base = (over: Partial<RunResult>): RunResult => ({
  case: 'x', provider: 'openai:m', model: 'm', repeat: 1, passed: true, failures: [], error: null, calls: [], answer: '', rounds: 1, stop: 'done',
  usage: { input: 100, output: 10, cached: 0, estimated_input: 100, reported: true }, latency_ms: 1, cost_usd: 0.01, expected_tools: null, notices: [], recording: null,
  ...over,
});
const neverRan = (repeat: number) => base({ repeat, passed: false, error: 'no usable recording', rounds: 0, usage: { input: 0, output: 0, cached: 0, estimated_input: 0, reported: false }, cost_usd: null });

describe('cost per provider (issue 12: 6)', () => {
  it('sums the priced runs and counts the others with their reason', () => {
    const p = summarizeRuns(suite, [base({ repeat: 1 }), base({ repeat: 2, usage: { input: 0, output: 5, cached: 0, estimated_input: 80, reported: false }, cost_usd: null }), neverRan(3)]).providers[0]!;
    expect(p.cost_usd).toBeCloseTo(0.01, 10);
    expect(p.cost_missing).toEqual({ runs: 2, reasons: { 'no usage reported': 1, 'did not run': 1 } });
  });

  it('all runs failed to run: no cost (not $0.00), and no "estimate" footnote on tokens', () => {
    const p = summarizeRuns(suite, [neverRan(1), neverRan(2)]).providers[0]!;
    expect(p.cost_usd).toBeNull();
    expect(p.cost_missing).toEqual({ runs: 2, reasons: { 'did not run': 2 } });
    expect(p.tokens_reported).toBe(true);
  });
});
