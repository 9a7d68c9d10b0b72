import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineOf, compareWithBaseline, readBaseline } from '../../src/testing/baseline.js';
import { reportOf, runPlan, type SuitePlan, type TestResults } from '../../src/testing/results-document.js';
import { flakyCases, historyPlace, historyRecords, readHistory, type HistoryRecord } from '../../src/testing/run-history.js';
import type { RunResult } from '../../src/testing/run-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'toolman-baseline-'));
const suite: SuitePlan = { name: 's', file: 's.yaml', providers: ['openai:m'], cases: ['a', 'b', 'c'].map((name) => ({ name, min_pass_rate: 0.5, repeat: 6 })) };

function run(c: string, repeat: number, passed: boolean, tokens = 110): RunResult {
  return {
    case: c, provider: 'openai:m', model: 'm', repeat, passed, failures: passed ? [] : [{ expectation: 'calls[0]', message: 'not called' }], error: null, calls: [], answer: '', rounds: 1, stop: 'done',
    usage: { input: tokens - 10, output: 10, cached: 0, estimated_input: tokens - 10, reported: true, side: [] }, latency_ms: 1, cost_usd: tokens / 1e6, expected_tools: null, notices: [], recording: null,
  };
}

/** Results where case X passes `passes[X]` of its 6 repeats. */
function results(passes: Record<string, number>, tokens = 110): TestResults {
  const plan = runPlan([suite], { minPassRate: 0 });
  const runs = suite.cases.flatMap((c) => Array.from({ length: 6 }, (_, i) => run(c.name, i + 1, i < (passes[c.name] ?? 6), tokens)));
  return { plan, suites: [{ plan: suite, report: reportOf(plan, suite, runs), runs }] };
}

describe('baselines: the rules of --compare against a stored run (issue 22: 1)', () => {
  const before = results({ a: 6, b: 6, c: 5 });
  const stored = join(dir, 'baseline.json');
  writeFileSync(stored, JSON.stringify(baselineOf(before)));

  it('the same figures: no regression (within noise)', () => {
    const c = compareWithBaseline(readBaseline(stored, dir), results({ a: 6, b: 6, c: 5 }));
    expect(c.regressions).toEqual([]);
    expect(c.suites[0]!.comparison.rows.map((r) => r.pass_rate.verdict)).toEqual(['within noise', 'within noise', 'within noise']);
  });

  it('one run fewer passing is noise; a case that stops passing is a regression, per case, with Newcombe\'s interval', () => {
    expect(compareWithBaseline(readBaseline(stored, dir), results({ a: 5, b: 6, c: 5 })).regressions).toEqual([]);
    const worse = compareWithBaseline(readBaseline(stored, dir), results({ a: 0, b: 6, c: 5 }));
    expect(worse.regressions.map((r) => [r.case, r.metric])).toEqual([['a', 'pass_rate']]);
    expect(worse.regressions[0]!.delta.interval!.method).toBe('newcombe-hybrid-score');
  });

  it('every case a little worse: the overall paired t catches what no single case shows', () => {
    const worse = compareWithBaseline(readBaseline(stored, dir), results({ a: 3, b: 3, c: 2 }));
    expect(worse.regressions.some((r) => r.case === null && r.metric === 'pass_rate')).toBe(true);
  });

  it('tokens and cost per run that grow beyond noise are regressions too', () => {
    const costly = compareWithBaseline(readBaseline(stored, dir), results({ a: 6, b: 6, c: 5 }, 400));
    expect(new Set(costly.regressions.map((r) => r.metric))).toEqual(new Set(['tokens', 'cost']));
  });

  it('quarantined cases are left out of the overall figures, but a change of their own beyond noise is still a regression', () => {
    // a falls from 6/6 to 0/6: beyond noise, so quarantine does not hide it (it did before).
    const worse = compareWithBaseline(readBaseline(stored, dir), results({ a: 0, b: 6, c: 5 }), (_, name) => name === 'a');
    expect(worse.regressions.map((r) => [r.case, r.metric])).toEqual([['a', 'pass_rate']]);
    expect(worse.suites[0]!.comparison.rows[0]!.pass_rate.verdict).toBe('worse');
    // Noise within the interval (6/6 → 4/6) is forgiven for a quarantined case.
    expect(compareWithBaseline(readBaseline(stored, dir), results({ a: 4, b: 6, c: 5 }), (_, name) => name === 'a').regressions).toEqual([]);
  });

  it('cases new since the baseline, or gone from the run, are listed, not compared', () => {
    const less = { ...results({}), suites: [] as TestResults['suites'] };
    const r = results({});
    less.suites = [{ ...r.suites[0]!, runs: r.suites[0]!.runs.filter((x) => x.case !== 'c') }];
    const c = compareWithBaseline({ toolman_baseline: 1, suites: [{ suite: 's', cases: [{ case: 'a', provider: 'openai:m', runs: [{ passed: true, tokens: 1, cost_usd: null, precision: null, recall: null }] }, { case: 'gone', provider: 'openai:m', runs: [{ passed: true, tokens: 1, cost_usd: null, precision: null, recall: null }] }] }] }, less);
    expect(c.missing).toEqual([{ suite: 's', case: 'gone', provider: 'openai:m' }]);
    expect(c.added).toEqual([{ suite: 's', case: 'b', provider: 'openai:m' }]);
  });

  it('a baseline is untrusted: every problem located by its pointer, never a crash', () => {
    const write = (text: string) => {
      const file = join(dir, `bad-${Math.random()}.json`);
      writeFileSync(file, text);
      return file;
    };
    expect(() => readBaseline(write('{'), dir)).toThrow(/is not valid JSON/);
    expect(() => readBaseline(write('[]'), dir)).toThrow(/\/: must be \{"toolman_baseline": 1/);
    const bad = { toolman_baseline: 1, suites: [{ suite: 's', cases: [{ case: 'a', provider: 'p', runs: [{ passed: 'yes' }] }, { case: 'b', provider: 'p', runs: [{ passed: true, tokens: -1, cost_usd: 'free', precision: 2, recall: null }] }] }] };
    const error = (() => {
      try {
        readBaseline(write(JSON.stringify(bad)), dir);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(error).toContain('/suites/0/cases/0/runs/0: must be {"passed"');
    expect(error).toContain('/suites/0/cases/1/runs/0/tokens: must be a number');
    expect(error).toContain('/suites/0/cases/1/runs/0/cost_usd: must be a number from 0 to 1000000000, or null');
    expect(error).toContain('/suites/0/cases/1/runs/0/precision: must be a number from 0 to 1');
    expect(() => readBaseline(write(JSON.stringify({ toolman_baseline: 1, suites: [{ suite: 's', cases: [{ case: 'a', provider: 'p', runs: Array(101).fill({ passed: true, tokens: 1 }) }] }] })), dir)).toThrow(/1 to 100 runs/);
  });
});

describe('run history and flaky cases (issue 22: 2)', () => {
  const record = (c: string, ok: boolean, at: string): HistoryRecord => ({ toolman_history: 1, at, run: at, suite: 's', case: c, provider: 'openai:m', runs: 3, passes: ok ? 3 : 1, ok });

  it('a case whose verdict flipped within the window is flaky; a steady one (passing or failing) is not', () => {
    const history = [record('a', true, '2026-01-01T00:00:00Z'), record('a', false, '2026-01-02T00:00:00Z'), record('b', false, '2026-01-01T00:00:00Z'), record('b', false, '2026-01-02T00:00:00Z'), record('c', true, '2026-01-01T00:00:00Z')];
    const now = [record('a', true, '2026-01-03T00:00:00Z'), record('b', false, '2026-01-03T00:00:00Z'), record('c', true, '2026-01-03T00:00:00Z')];
    const flaky = flakyCases(history, now);
    expect(flaky).toEqual([{ suite: 's', case: 'a', provider: 'openai:m', verdicts: [true, false, true], flips: 2 }]);
  });

  it('one change that stays is a step (a regression or a fix), not flakiness: it flipped once and never back', () => {
    const history = [1, 2, 3].map((d) => record('a', true, `2026-01-0${d}T00:00:00Z`));
    expect(flakyCases(history, [record('a', false, '2026-01-04T00:00:00Z')])).toEqual([]);
    expect(flakyCases([...history, record('a', false, '2026-01-04T00:00:00Z')], [record('a', true, '2026-01-05T00:00:00Z')])).toEqual([
      { suite: 's', case: 'a', provider: 'openai:m', verdicts: [true, true, true, false, true], flips: 2 },
    ]);
  });

  it('only the latest runs count: a flip older than the window is forgotten', () => {
    const history = [record('a', true, '2025-12-31T00:00:00Z'), record('a', false, '2026-01-01T00:00:00Z'), ...Array.from({ length: 5 }, (_, i) => record('a', true, `2026-01-0${i + 2}T00:00:00Z`))];
    expect(flakyCases(history, [record('a', true, '2026-02-01T00:00:00Z')], 5)).toEqual([]);
    expect(flakyCases(history, [record('a', true, '2026-02-01T00:00:00Z')], 10)).toHaveLength(1);
  });

  it('a history file or folder; records sorted by time; a bad line is an error at its file and line', () => {
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify(record('a', false, '2026-01-02T00:00:00Z'))}\n\n${JSON.stringify(record('a', true, '2026-01-01T00:00:00Z'))}\n`);
    expect(readHistory({ path: file, folder: false }).map((r) => r.ok)).toEqual([true, false]);
    writeFileSync(file, `${JSON.stringify(record('a', true, '2026-01-01T00:00:00Z'))}\n{"toolman_history":1,"at":"nope"}\n`);
    expect(() => readHistory({ path: file, folder: false })).toThrow(/h\.jsonl:2: "run" must be text|h\.jsonl:2: "at" must be a date/);
    writeFileSync(file, 'not json\n');
    expect(() => readHistory({ path: file, folder: false })).toThrow(/h\.jsonl:1: not a JSON line/);
    const folder = join(dir, 'history');
    mkdirSync(folder);
    writeFileSync(join(folder, 'one.jsonl'), `${JSON.stringify(record('a', true, '2026-01-01T00:00:00Z'))}\n`);
    writeFileSync(join(folder, 'two.jsonl'), `${JSON.stringify(record('a', false, '2026-01-02T00:00:00Z'))}\n`);
    writeFileSync(join(folder, 'notes.txt'), 'ignored');
    expect(readHistory({ path: folder, folder: true }).map((r) => r.ok)).toEqual([true, false]);
    expect(readHistory({ path: join(dir, 'none.jsonl'), folder: false })).toEqual([]);
  });

  it('where the history is: --history, a folder, or next to the baseline', () => {
    expect(historyPlace(undefined, 'ci/baseline.json', '/w')).toEqual({ path: '/w/ci/baseline.history.jsonl', folder: false });
    expect(historyPlace('hist/', undefined, '/w')).toEqual({ path: '/w/hist', folder: true });
    expect(historyPlace(dir, undefined, '/w')).toEqual({ path: dir, folder: true });
    expect(historyPlace(undefined, undefined, '/w')).toBeUndefined();
  });

  it('one record per case and provider of a run, with its verdict', () => {
    const r = results({ a: 6, b: 1, c: 6 });
    const records = historyRecords(r, new Date('2026-11-24T00:00:00Z'));
    expect(records.map((x) => [x.case, x.ok, x.passes, x.runs])).toEqual([['a', true, 6, 6], ['b', false, 1, 6], ['c', true, 6, 6]]);
    expect(new Set(records.map((x) => x.run)).size).toBe(1);
  });
});
