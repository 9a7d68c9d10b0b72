import { decisionAt, fixedVerdict } from './sequential-test.js';

/**
 * The check behind the figures docs/testing.md gives for --sequential: cases whose true pass rate
 * is known, each simulated over many seeded sequences of repeats; the sequential verdict (on the
 * prefix it stops at) against the fixed-N verdict of the whole sequence, and the runs it made.
 * Used by test/testing/sequential-test.test.ts and bench/sequential.mjs; not by toolman itself.
 */
export interface SequentialFixture {
  /** The case's true pass rate. */
  p: number;
  minPassRate: number;
  repeat: number;
}

export interface SimulationFigures extends SequentialFixture {
  seeds: number;
  /** Share of seeds where the sequential verdict equals the fixed-N one. */
  agreement: number;
  /** Mean runs made over the fixed N. */
  calls_ratio: number;
}

/** mulberry32: a small seeded generator, so every figure can be reproduced exactly. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function simulateSequential(fixture: SequentialFixture, seeds: number, alpha?: number): SimulationFigures {
  let agree = 0;
  let runs = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const random = seeded(seed * 7919 + fixture.repeat * 31 + Math.round(fixture.p * 1000));
    const outcomes = Array.from({ length: fixture.repeat }, () => random() < fixture.p);
    let decision = null;
    let passes = 0;
    for (let n = 1; n <= outcomes.length && !decision; n++) decision = decisionAt((passes += outcomes[n - 1] ? 1 : 0), n, fixture.repeat, fixture.minPassRate, alpha);
    const used = decision?.runs ?? fixture.repeat;
    const verdict = decision?.passed ?? fixedVerdict(outcomes, fixture.minPassRate);
    if (verdict === fixedVerdict(outcomes, fixture.minPassRate)) agree++;
    runs += used;
  }
  return { ...fixture, seeds, agreement: agree / seeds, calls_ratio: runs / (seeds * fixture.repeat) };
}

/** The fixtures the docs' figures are over: clear cases (the rate far from the bar) and cases at the bar. */
export const CLEAR_FIXTURES: SequentialFixture[] = [
  { minPassRate: 1, p: 0.5, repeat: 20 },
  { minPassRate: 1, p: 0.8, repeat: 20 },
  { minPassRate: 0.8, p: 0.2, repeat: 20 },
  { minPassRate: 0.8, p: 0.5, repeat: 20 },
  { minPassRate: 0.8, p: 1, repeat: 20 },
  { minPassRate: 0.66, p: 0.2, repeat: 20 },
  { minPassRate: 0.66, p: 0.95, repeat: 20 },
  { minPassRate: 0.5, p: 0.1, repeat: 20 },
  { minPassRate: 0.5, p: 0.9, repeat: 20 },
  { minPassRate: 0.5, p: 1, repeat: 20 },
];

export const NEAR_BAR_FIXTURES: SequentialFixture[] = [
  { minPassRate: 1, p: 1, repeat: 20 },
  { minPassRate: 0.8, p: 0.8, repeat: 20 },
  { minPassRate: 0.8, p: 0.9, repeat: 20 },
  { minPassRate: 0.5, p: 0.5, repeat: 20 },
  { minPassRate: 0.66, p: 0.66, repeat: 20 },
];
