import { describe, expect, it } from 'vitest';
import { CLEAR_FIXTURES, NEAR_BAR_FIXTURES, seeded, simulateSequential } from '../../src/testing/sequential-simulation.js';
import { decisionAt, fixedVerdict, logMixtureRatio, passesNeeded, sequentialDecision } from '../../src/testing/sequential-test.js';

/** The mixture ratio by numerical integration (Simpson, 20,000 panels): what the closed form must equal. */
function integrated(s: number, f: number, p0: number, side: 'above' | 'below'): number {
  const [from, to] = side === 'above' ? [p0, 1] : [0, p0];
  const panels = 20_000;
  const h = (to - from) / panels;
  const g = (p: number) => p ** s * (1 - p) ** f;
  let sum = g(from) + g(to);
  for (let i = 1; i < panels; i++) sum += (i % 2 ? 4 : 2) * g(from + i * h);
  const mixture = ((sum * h) / 3) / (to - from);
  return Math.log(mixture / (p0 ** s * (1 - p0) ** f));
}

describe('the mixture likelihood ratio (closed form)', () => {
  it.each([
    [5, 0, 0.8, 'above'],
    [3, 2, 0.5, 'above'],
    [1, 7, 0.66, 'below'],
    [12, 3, 0.5, 'above'],
    [0, 4, 0.9, 'below'],
    [18, 2, 0.8, 'below'],
  ] as const)('s=%i f=%i p0=%f %s equals numerical integration', (s, f, p0, side) => {
    expect(logMixtureRatio(s, f, p0, side)).toBeCloseTo(integrated(s, f, p0, side), 6);
  });
});

describe('curtailment is exact', () => {
  it('every outcome sequence of up to 10 repeats: a curtailed verdict is the fixed-N verdict', () => {
    for (const bar of [0, 0.3, 0.5, 0.66, 0.8, 1]) {
      for (let n = 1; n <= 10; n++) {
        for (let bits = 0; bits < 1 << n; bits++) {
          const outcomes = Array.from({ length: n }, (_, i) => ((bits >> i) & 1) === 1);
          for (let k = 1; k <= n; k++) {
            const decision = sequentialDecision(outcomes.slice(0, k), n, bar, 1e-12); // evidence never reaches 1/alpha
            if (decision) expect(decision.passed, `${outcomes} bar ${bar} at ${k}`).toBe(fixedVerdict(outcomes, bar));
          }
        }
      }
    }
  });

  it('evidence settles before curtailment can: 7 passes of 20 planned at a bar of 0.5 (curtailment needs 10)', () => {
    expect(sequentialDecision(Array(6).fill(true), 20, 0.5)).toBeNull();
    expect(sequentialDecision(Array(7).fill(true), 20, 0.5)).toEqual({ passed: true, runs: 7, rule: 'evidence' });
    // and the fail side: 0 of 5 at a bar of 0.66 (curtailment needs 7 failures)
    expect(sequentialDecision(Array(5).fill(false), 20, 0.66)?.rule).toBe('evidence');
  });

  it('needs ceil(bar x N) passes, the report\'s rounding', () => {
    expect(passesNeeded(3, 0.66)).toBe(2);
    expect(passesNeeded(10, 0.8)).toBe(8);
    expect(passesNeeded(5, 1)).toBe(5);
    expect(passesNeeded(5, 0)).toBe(0);
  });

  it('a bar of 1 stops at the first failure; a bar of 0 after one run', () => {
    expect(sequentialDecision([true, true, false], 10, 1)).toEqual({ passed: false, runs: 3, rule: 'curtailment' });
    expect(sequentialDecision([false], 10, 0)).toEqual({ passed: true, runs: 1, rule: 'curtailment' });
    expect(sequentialDecision([true, true], 2, 1)).toEqual({ passed: true, runs: 2, rule: 'all runs' });
  });
});

describe('always valid: the error of an early verdict stays under alpha however often it is looked at', () => {
  // No curtailment (N far away), a true rate exactly at the bar: any "passes by evidence" is the
  // error the test bounds by alpha (Ville's inequality), looked at after every run.
  it.each([0.5, 0.8])('at the bar %f, over 4,000 seeds of 100 looks each', (bar) => {
    let wrong = 0;
    const seeds = 4000;
    for (let seed = 1; seed <= seeds; seed++) {
      const random = seeded(seed);
      let passes = 0;
      for (let n = 1; n <= 100; n++) {
        if (random() < bar) passes++;
        const decision = decisionAt(passes, n, 1_000_000, bar, 0.05);
        if (decision) {
          if (decision.passed) wrong++;
          break;
        }
      }
    }
    expect(wrong / seeds).toBeLessThan(0.05);
  });
});

describe('fewer calls for the same verdict: simulated cases with known pass rates (issue 22: 3)', () => {
  // 2,000 seeded sequences of 20 repeats per fixture: the sequential verdict on the prefix it stops
  // at, against the fixed-N verdict of all 20. docs/testing.md states these figures (bench/sequential.mjs prints them).
  const clear = CLEAR_FIXTURES.map((f) => simulateSequential(f, 2000));
  const near = NEAR_BAR_FIXTURES.map((f) => simulateSequential(f, 2000));

  it('clear cases (the true rate far from the bar): the same verdict every time, about 40% of the calls on average', () => {
    for (const f of clear) expect(f.agreement, JSON.stringify(f)).toBe(1);
    const mean = clear.reduce((s, f) => s + f.calls_ratio, 0) / clear.length;
    expect(mean).toBeLessThan(0.45);
    expect(mean).toBeGreaterThan(0.35);
    // No clear fixture needs more than 80% (a bar of 0.8 and a perfect case: 16 passes settle it).
    for (const f of clear) expect(f.calls_ratio).toBeLessThanOrEqual(0.8 + 1e-9);
  });

  it('cases at the bar: verdicts agree at least 99.5% of the time; the calls saved are few (the verdict is close)', () => {
    for (const f of near) expect(f.agreement, JSON.stringify(f)).toBeGreaterThanOrEqual(0.995);
    for (const f of near) expect(f.calls_ratio).toBeGreaterThan(0.8);
  });
});
