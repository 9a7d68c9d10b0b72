import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter } from '../../src/testing/adaptive-limiter.js';
import { newcombeDifference, pairedT, passHatK, verdict, welch, wilson } from '../../src/testing/statistics.js';

describe('statistics', () => {
  it('Wilson interval matches published values', () => {
    // Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662.
    const w = wilson(81, 263);
    expect(w.low).toBeCloseTo(0.2553, 3);
    expect(w.high).toBeCloseTo(0.3662, 3);
    expect(wilson(0, 10).low).toBe(0);
  });

  it('Newcombe hybrid interval matches the paper', () => {
    // Newcombe (1998), table II example (56/70 vs 48/80): difference 0.2, method 10 interval 0.0524 to 0.3339.
    const d = newcombeDifference(48, 80, 56, 70);
    expect(d.low).toBeCloseTo(0.0524, 3);
    expect(d.high).toBeCloseTo(0.3339, 3);
  });

  it('pass^k is C(c,k)/C(n,k)', () => {
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(3, 4, 4)).toBe(0);
    expect(passHatK(3, 4, 2)).toBeCloseTo(3 / 6);
    expect(passHatK(2, 4, 1)).toBe(0.5);
  });

  it('paired t and Welch intervals, and verdicts', () => {
    const t = pairedT([1, 2, 3, 4, 5]);
    expect(t.mean).toBe(3);
    expect(t.low).toBeCloseTo(3 - 2.776 * Math.sqrt(2.5 / 5), 6);
    expect(verdict(t, true)).toBe('better');
    expect(verdict(pairedT([0, 0, 0]), true)).toBe('within noise');
    expect(verdict(pairedT([-1, 1, 0.5, -0.5]), true)).toBe('within noise');
    expect(verdict(welch([100, 110, 105], [200, 210, 190]), false)).toBe('worse');
  });
});

describe('the adaptive limiter', () => {
  it('never runs more than the limit, halves on 429 and waits as asked', async () => {
    const limiter = new AdaptiveLimiter(8);
    let active = 0;
    let peak = 0;
    const task = async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
    };
    await Promise.all(Array.from({ length: 40 }, () => limiter.run(task)));
    expect(peak).toBe(8);
    limiter.backoff(60);
    expect(limiter.current).toBe(4);
    peak = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, () => limiter.run(task)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(peak).toBe(4);
    for (let i = 0; i < 8; i++) limiter.succeeded();
    expect(limiter.current).toBe(5);
  });
});
