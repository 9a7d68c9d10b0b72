import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { estimateCost } from '../../src/testing/estimate-cost.js';
import { loadSuite } from '../../src/testing/load-suite.js';
import { DEFAULT_PRICES } from '../../src/testing/prices.js';
import { runBin } from '../helpers/cli.js';
import { replayEnterprisePolicy } from '../helpers/enterprise-replay.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The calls toolman makes beside the conversation's own (a long result's summary, a rubric's
 * grade) are paid for like any other: their tokens are in the turn's usage (and listed apart per
 * provider and model), in a run's tokens and cost (each at its own model's price), in `tokens:`
 * expectations, and in the cost estimate before a live run.
 *
 * The shipped enterprise recordings hold both: the conversation's own requests (gpt-4o: 1,290 +
 * 1,420 + 1,560 in, 29 + 31 + 48 out), the page's summary (gpt-4o-mini: 330 in, 66 out) and the
 * rubric's grade (gpt-4o: 520 in, 6 out).
 */
const ENTERPRISE = ['-c', 'catalogs/enterprise.yaml'];
const SUMMARY = { provider: 'openai', model: 'gpt-4o-mini', calls: 1, input: 330, output: 66, cached: 0, unreported: 0 };
const GRADE = { provider: 'openai', model: 'gpt-4o', calls: 1, input: 520, output: 6, cached: 0, unreported: 0 };

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

describe('chat: side calls are in the usage', () => {
  it('--json: usage counts every request (the summary and the grade too), and lists the side calls per model', async () => {
    const run = await runBin([...ENTERPRISE, 'chat', '--replay', 'catalogs/recordings/enterprise.jsonl', '--no-transcript', '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    const { usage } = JSON.parse(run.stdout);
    expect(usage).toMatchObject({ input: 1290 + 1420 + 1560 + 330 + 520, output: 29 + 31 + 48 + 66 + 6, side: [SUMMARY, GRADE] });
  });

  it('--events: the done event carries the turn usage with its side calls (usage events are the conversation\'s own requests)', async () => {
    const run = await runBin([...ENTERPRISE, 'chat', '--replay', 'catalogs/recordings/enterprise.jsonl', '--no-transcript', '--events'], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(events.filter((e) => e.type === 'usage').map((e) => e.usage.input)).toEqual([1290, 1420, 1560]);
    expect(events.at(-1)).toMatchObject({ type: 'done', usage: { input: 5120, side: [SUMMARY, GRADE] } });
  });
});

describe('toolman test: side calls in tokens, cost and expectations', () => {
  it('a run\'s usage and cost include the side calls, each at its own model\'s price; the report\'s tokens too', async () => {
    const run = await runBin([...ENTERPRISE, 'test', 'suites/enterprise.yaml', '--replay', 'suites/recordings', '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    const policy = doc.suites[0].runs.find((r: { case: string }) => r.case === 'policy questions go to the intranet');
    const mini = (330 * 0.15 + 66 * 0.6) / 1e6;
    const grade = (520 * 2.5 + 6 * 10) / 1e6;
    expect(policy.usage).toMatchObject({ input: 5120, reported: true, side: [{ ...SUMMARY, cost_usd: mini }, { ...GRADE, cost_usd: grade }] });
    const own = ((5120 - 850) * 2.5 + (policy.usage.output - 72) * 10) / 1e6;
    expect(policy.cost_usd).toBeCloseTo(own + mini + grade, 12);
    const provider = doc.suites[0].providers[0];
    expect(provider.tokens_in).toBe(doc.suites[0].runs.reduce((n: number, r: { usage: { input: number } }) => n + r.usage.input, 0));
    expect(provider.cost_usd).toBeCloseTo(doc.suites[0].runs.reduce((n: number, r: { cost_usd: number }) => n + r.cost_usd, 0), 12);
  });

  it('tokens: bounds the whole run, side calls included, and the failure says how much of it they were', async () => {
    // 4,270 of the conversation's own input tokens: under 5,000; with the side calls' 850, over it.
    const run = await replayEnterprisePolicy('tokens: { input: 5000 }');
    expect(run.code, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout).suites[0].runs[0].failures).toEqual([{ expectation: 'tokens.input', message: '5120 input tokens (API-reported, 850 of them from 2 side calls), over the bound of 5000' }]);
  });

  it('the estimate before a live run counts the side calls the cases are expected to make, at their models\' prices', async () => {
    const manager = await ToolManager.open({ catalogs: ['catalogs/enterprise.yaml'], cwd: ROOT, env: { TOOLMAN_CACHE_DIR: 'off', OPENAI_API_KEY: 'sk-estimate-only' } });
    try {
      const suite = loadSuite(join(ROOT, 'suites', 'enterprise.yaml'), { catalog: manager.catalog });
      const policy = { ...suite, cases: suite.cases.filter((c) => c.name === 'policy questions go to the intranet') };
      // The policy case expects search_intranet, which lists the rubric grounded: one grade (by the conversation's gpt-4o)...
      const grade = await estimateCost(manager, policy, suite.providers, DEFAULT_PRICES);
      expect(grade.side).toMatchObject({ calls: 1, output_tokens: 30 });
      expect(grade.method).toContain('with 1 side call (summaries, rubric grades)');
      // ...and with the page read too: its summary (gpt-4o-mini) besides, the rubric still graded once in the turn.
      const reading = { ...policy, cases: policy.cases.map((c) => ({ ...c, expect: { ...c.expect!, calls: [...c.expect!.calls!, { tool: 'read_intranet_page', source: {} }] } })) };
      const withSide = await estimateCost(manager, reading, suite.providers, DEFAULT_PRICES);
      expect(withSide.side.calls).toBe(2);
      expect(withSide.input_tokens).toBeGreaterThan(withSide.side.input_tokens);
      expect(withSide.usd!).toBeGreaterThan(grade.usd!);
    } finally {
      await manager.close();
    }
  });

  it('a side model without a price makes the estimate unknown, naming it (a --max-cost run is then refused)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolman-side-estimate-'));
    const file = join(folder, 'suite.yaml');
    writeFileSync(file, 'name: s\nproviders: [openai:big-model]\nprices: { big-model: { input: 1, output: 1 } }\ncases:\n  - name: reads\n    prompt: leave?\n    expect: { calls: [{ tool: read_page }] }\n');
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/result-powers.yaml'], cwd: ROOT, env: { TOOLMAN_CACHE_DIR: 'off', OPENAI_API_KEY: 'sk-estimate-only' } });
    try {
      const suite = loadSuite(file, { catalog: manager.catalog });
      expect(await estimateCost(manager, suite, suite.providers, suite.prices)).toMatchObject({ usd: null, unpriced: ['small-model'], side: { calls: 2 } });
      expect((await estimateCost(manager, suite, suite.providers, { ...suite.prices, 'small-model': { input: 1, output: 1 } })).usd).toBeGreaterThan(0);
    } finally {
      await manager.close();
    }
    const refused = await runBin(['-c', join(ROOT, 'test', 'fixtures', 'catalogs', 'result-powers.yaml'), 'test', file, '--max-cost', '5'], { env: { OPENAI_API_KEY: 'sk-side-cap', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-cost 5 needs a price for every model, and there is none for small-model');
  });

  it('--max-cost: a live run whose side calls exhaust the cap stops starting runs (the spend counts them)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolman-side-cap-'));
    const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
    server.script((r) => {
      const system = JSON.stringify((r.body.messages as { role: string; content: unknown }[])[0]);
      if (system.includes('You shorten a tool result')) return { text: 'Leave: 20 weeks.', usage: { input: 400_000, output: 1000 } };
      if (system.includes("You grade an assistant's answer")) return { text: '{"verdict": "pass"}', usage: { input: 300, output: 5 } };
      return assistantTurns(r) === 0 ? { toolCalls: [{ name: 'read_page', arguments: { url: 'https://example.org/a' } }], usage: { input: 100, output: 10 } } : { text: 'Leave is 20 weeks.', usage: { input: 150, output: 10 } };
    });
    writeFileSync(
      join(folder, 'suite.yaml'),
      `name: capped
providers: [openai:big-model]
prices: { big-model: { input: 1, output: 1 }, small-model: { input: 1, output: 1 } }
repeat: 3
cases:
  - name: reads the page
    prompt: What is the leave policy?
    expect: { calls: [{ tool: read_page }] }
`,
    );
    const run = await runBin(['-c', join(ROOT, 'test', 'fixtures', 'catalogs', 'result-powers.yaml'), 'test', join(folder, 'suite.yaml'), '--concurrency', '1', '--max-cost', '0.3', '--json'], {
      env: { OPENAI_API_KEY: 'sk-side-cap', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' },
    });
    const doc = JSON.parse(run.stdout);
    const runs = doc.suites[0].runs;
    // The first run's summary alone cost $0.401: past the cap, so the other two never started.
    expect(runs[0].cost_usd).toBeCloseTo((100 + 10 + 150 + 10 + 300 + 5 + 401_000) / 1e6, 9);
    expect(runs.slice(1).map((r: { error: string }) => r.error)).toEqual([expect.stringContaining('at --max-cost 0.3'), expect.stringContaining('at --max-cost 0.3')]);
    expect(run.stderr).toContain('side calls');
  });
});
