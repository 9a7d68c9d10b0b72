import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeResults, readResultsFile, reportOf, runPlan, type RunPlan, type SuitePlan } from '../../src/testing/results-document.js';
import type { RunResult } from '../../src/testing/run-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'toolman-results-'));

const suitePlan: SuitePlan = {
  name: 's',
  file: '/x/s.yaml',
  providers: ['openai:m', 'anthropic:h'],
  cases: [
    { name: 'a', min_pass_rate: 1, repeat: 3 },
    { name: 'b', min_pass_rate: 0.5, repeat: 2 },
  ],
};

function run(c: string, provider: string, repeat: number, passed: boolean): RunResult {
  return {
    case: c, provider, model: provider.split(':')[1]!, repeat, passed, failures: passed ? [] : [{ expectation: 'calls[0]', message: 'x was not called' }], error: null, calls: [], answer: 'ok', rounds: 1, stop: 'done',
    usage: { input: 100, output: 10, cached: 0, estimated_input: 100, reported: true, side: [] }, latency_ms: 5, cost_usd: 0.001, expected_tools: null, notices: [], recording: null,
  };
}

/** Every run of the plan, in plan order (case, provider, repeat), as one unsharded invocation returns them. */
function allRuns(): RunResult[] {
  const out: RunResult[] = [];
  for (const c of suitePlan.cases) for (const p of suitePlan.providers) for (let r = 1; r <= c.repeat; r++) out.push(run(c.name, p, r, (r + c.name.length) % 3 !== 0));
  return out;
}

/** What `--shard I/N --json` prints: the plan with its shard and the shard's runs (every N-th in plan order). */
function shardFile(plan: RunPlan, runs: RunResult[], index: number, count: number, name = `shard-${index}.json`): string {
  const mine = runs.filter((_, i) => i % count === index - 1);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ toolman_results: 1, ok: null, runs_not_run: 0, plan: { ...plan, shard: { index, count } }, suites: [{ suite: 's', runs: mine.reverse() }] }));
  return file;
}

describe('toolman test merge: shards joined into the unsharded run (issue 22: 6)', () => {
  const plan = runPlan([suitePlan], { minPassRate: 0 });

  it('3 shards merge into the same runs, in the same order, and the same report as one run', async () => {
    const runs = allRuns();
    const merged = await mergeResults([shardFile(plan, runs, 2, 3), shardFile(plan, runs, 3, 3), shardFile(plan, runs, 1, 3)], dir);
    expect(merged.plan).toEqual({ ...plan, shard: null });
    expect(merged.suites[0]!.runs).toEqual(runs);
    expect(JSON.stringify(merged.suites[0]!.report)).toBe(JSON.stringify(reportOf(plan, suitePlan, runs)));
  });

  it('results written before side calls were counted (no usage.side) still merge, as runs without side calls; a side entry is checked like the rest', async () => {
    const runs = allRuns();
    const old = runs.map((r) => ({ ...r, usage: { input: r.usage.input, output: r.usage.output, cached: r.usage.cached, estimated_input: r.usage.estimated_input, reported: r.usage.reported } }));
    const merged = await mergeResults([shardFile(plan, old as RunResult[], 1, 2, 'old-1.json'), shardFile(plan, old as RunResult[], 2, 2, 'old-2.json')], dir);
    expect(merged.suites[0]!.runs).toEqual(runs);
    const side = { provider: 'openai', model: 'small', calls: 1, input: 10, output: 2, cached: 0, unreported: 0, cost_usd: null };
    const bad = runs.map((r, i) => (i === 0 ? { ...r, usage: { ...r.usage, side: [{ ...side, calls: -1 }] } } : r));
    await expect(readResultsFile(shardFile(plan, bad, 1, 1, 'bad-side.json'), dir)).rejects.toThrow(/usage\/side\/0\/calls/);
  });

  it('with --sequential, whole cases are dealt (their repeats decide together)', async () => {
    const seq = runPlan([suitePlan], { minPassRate: 0, sequential: { alpha: 0.05 } });
    const runs = allRuns();
    // Units are case x provider: 4 of them; shard 1 of 2 has units 0 and 2 (a with openai, b with openai).
    const units = ['a\u0000openai:m', 'a\u0000anthropic:h', 'b\u0000openai:m', 'b\u0000anthropic:h'];
    const files = [1, 2].map((index) => {
      const mine = runs.filter((r) => units.indexOf(`${r.case}\u0000${r.provider}`) % 2 === index - 1);
      const file = join(dir, `seq-${index}.json`);
      writeFileSync(file, JSON.stringify({ toolman_results: 1, plan: { ...seq, shard: { index, count: 2 } }, suites: [{ suite: 's', runs: mine }] }));
      return file;
    });
    const merged = await mergeResults(files, dir);
    expect(merged.suites[0]!.runs).toEqual(runs);
    expect(merged.suites[0]!.report.sequential).toBeDefined();
    // A run in the wrong shard is refused with where it is.
    const wrong = join(dir, 'seq-wrong.json');
    writeFileSync(wrong, JSON.stringify({ toolman_results: 1, plan: { ...seq, shard: { index: 1, count: 2 } }, suites: [{ suite: 's', runs: [runs[3]] }] }));
    await expect(readResultsFile(wrong, dir)).rejects.toThrow(/\/suites\/0\/runs\/0: a run of "a" #1 \[anthropic:h\] belongs to shard 2, not 1/);
  });

  it('refuses a missing shard, a shard given twice, shards of another run, and other counts', async () => {
    const runs = allRuns();
    const one = shardFile(plan, runs, 1, 3);
    const two = shardFile(plan, runs, 2, 3);
    await expect(mergeResults([one, two], dir)).rejects.toThrow(/shard 3 of 3 missing/);
    await expect(mergeResults([one, one, two], dir)).rejects.toThrow(/shard 1\/3 is given twice/);
    const other = runPlan([{ ...suitePlan, cases: [{ name: 'a', min_pass_rate: 1, repeat: 4 }] }], { minPassRate: 0 });
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, JSON.stringify({ toolman_results: 1, plan: { ...other, shard: { index: 3, count: 3 } }, suites: [{ suite: 's', runs: [] }] }));
    await expect(mergeResults([one, two, foreign], dir)).rejects.toThrow(/not a shard of the same run/);
    await expect(mergeResults([one, shardFile(plan, runs, 2, 4, 'four.json')], dir)).rejects.toThrow(/is shard 2\/4, but .* is one of 3/);
  });

  it('a suite moved to another folder (another CI checkout) is still the same run: paths are not in the fingerprint', async () => {
    const moved = runPlan([{ ...suitePlan, file: '/elsewhere/s.yaml' }], { minPassRate: 0 });
    expect(moved.fingerprint).toBe(plan.fingerprint);
    expect(runPlan([suitePlan], { minPassRate: 0.5 }).fingerprint).not.toBe(plan.fingerprint);
  });
});

describe('a results file is untrusted input: bounded, checked, located', () => {
  const plan = runPlan([suitePlan], { minPassRate: 0 });
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('a wrong type is reported at its line and column with its JSON pointer', async () => {
    const runs = allRuns().slice(0, 1) as unknown as Record<string, unknown>[];
    runs[0]!.passed = 'yes';
    const doc = JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs }] }, null, 2);
    const file = write('bad-type.json', doc);
    const line = doc.split('\n').findIndex((l) => l.includes('"passed"')) + 1;
    await expect(readResultsFile(file, dir)).rejects.toThrow(new RegExp(`bad-type\\.json:${line}:\\d+ /suites/0/runs/0/passed: must be boolean`));
  });

  it('unknown keys in a run, an edited fingerprint, a run the plan does not have, a duplicate', async () => {
    const runs = allRuns();
    const extra = { ...runs[0], exec: 'rm -rf /' };
    await expect(readResultsFile(write('extra.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [extra] }] })), dir)).rejects.toThrow(/unknown key "exec"/);
    await expect(readResultsFile(write('edited.json', JSON.stringify({ toolman_results: 1, plan: { ...plan, min_pass_rate: 1 }, suites: [{ suite: 's', runs: [] }] })), dir)).rejects.toThrow(/fingerprint: does not match the plan/);
    await expect(readResultsFile(write('stranger.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [run('zz', 'openai:m', 1, true)] }] })), dir)).rejects.toThrow(/a run of "zz" #1 with openai:m, which the plan does not have/);
    await expect(readResultsFile(write('repeat.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [runs[0], runs[0]] }] })), dir)).rejects.toThrow(/"a" #1 \[openai:m\] twice/);
    // A verdict is its failures: flipped by hand, or a not-run run without its reason, it is refused.
    const flipped = { ...run('a', 'openai:m', 1, true), passed: false };
    await expect(readResultsFile(write('flipped.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [flipped] }] })), dir)).rejects.toThrow(/runs\/0\/passed: false, but the run lists no failure/);
    const whitewashed = { ...run('a', 'openai:m', 1, false), passed: true };
    await expect(readResultsFile(write('whitewashed.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [whitewashed] }] })), dir)).rejects.toThrow(/passed: true, but the run lists 1 failure/);
    const reasonless = { ...run('a', 'openai:m', 1, false), error: 'no recording' };
    await expect(readResultsFile(write('reasonless.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [reasonless] }] })), dir)).rejects.toThrow(/runs\/0\/error: a run that could not run/);
    await expect(readResultsFile(write('past.json', JSON.stringify({ toolman_results: 1, plan, suites: [{ suite: 's', runs: [run('a', 'openai:m', 4, true)] }] })), dir)).rejects.toThrow(/which the plan does not have/);
  });

  it('not JSON, too deep, interrupted, not results at all: clear errors, no stack', async () => {
    await expect(readResultsFile(write('text.json', 'hello'), dir)).rejects.toThrow(/text\.json is not valid JSON/);
    const deep = `{"toolman_results":1,"plan":${JSON.stringify(plan)},"suites":[{"suite":"s","runs":[{"arguments":${'['.repeat(5000)}${']'.repeat(5000)}}]}]}`;
    await expect(readResultsFile(write('deep.json', deep), dir)).rejects.toThrow(/nests deeper than 200 levels/);
    await expect(readResultsFile(write('stopped.json', JSON.stringify({ toolman_results: 1, interrupted: true, plan, suites: [{ suite: 's', runs: [] }] })), dir)).rejects.toThrow(/interrupted run/);
    await expect(readResultsFile(write('other.json', JSON.stringify({ tools: [] })), dir)).rejects.toThrow(/not a toolman test results file/);
  });
});
