import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, spawnBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';
import { seeded } from '../../src/testing/sequential-simulation.js';

// `toolman test` for teams (issue 22), through the built binary against the scripted model server.
let server: ModelServer;
let dir: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-teams-'));
});
afterAll(async () => server.close());

const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: server.url, TOOLMAN_CACHE_DIR: 'off' });
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
const userText = (r: RecordedRequest) => JSON.stringify((r.body.messages as { role: string }[]).filter((m) => m.role === 'user'));

function suite(name: string, body: string, providers = '[openai:gpt-4o-mini]'): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\ncatalog: ${JSON.stringify(catalog)}\nproviders: ${providers}\n${body}`);
  return file;
}

/** The model calls get_weather for prompts in `good`, get_forecast otherwise; then answers. */
function scriptModel(good: (prompt: string) => boolean, usage = { input: 1000, output: 20 }) {
  server.script((r) => (assistantTurns(r) > 0 ? { text: 'Done.', usage } : { toolCalls: [{ name: good(userText(r)) ? 'get_weather' : 'get_forecast', arguments: { city: 'Oslo' } }], usage }));
}

const casesBody = `repeat: 6
min_pass_rate: 0.5
cases:
  - { name: oslo, prompt: weather in Oslo, expect: { calls: [{ tool: get_weather }] } }
  - { name: bergen, prompt: weather in Bergen, expect: { calls: [{ tool: get_weather }] } }
  - { name: flip, prompt: weather in Tromso, expect: { calls: [{ tool: get_weather }] } }
`;

describe('--baseline, --update-baseline, the history and flaky cases (issue 22: 1, 2)', () => {
  it('writes a baseline only when asked, 0600; the same behaviour is within noise (exit 0); a regression exits 1 with its interval', async () => {
    const file = suite('baseline', casesBody);
    const baseline = join(dir, 'ci', 'baseline.json');
    scriptModel(() => true);
    const first = await runBin(['test', '--suite-catalog', file, '--baseline', baseline], { env: env() });
    expect(first.code).toBe(2);
    expect(first.stderr).toContain('cannot read baseline');
    expect(existsSync(baseline)).toBe(false);
    const update = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--update-baseline'], { env: env() });
    expect(update.code, update.stderr).toBe(0);
    expect(update.stderr).toContain('baseline ');
    expect(statSync(baseline).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'ci')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(baseline, 'utf8')).suites[0].cases).toHaveLength(3);

    const same = await runBin(['test', '--suite-catalog', file, '--baseline', baseline], { env: env() });
    expect(same.code, same.stdout).toBe(0);
    expect(same.stdout).toContain('within noise: no regression beyond the 95% intervals');

    // Bergen stops working: 6/6 → 0/6 is beyond noise (Newcombe), and the case is under its bar too.
    scriptModel((p) => !p.includes('Bergen'));
    const worse = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--json'], { env: env() });
    expect(worse.code).toBe(1);
    const doc = JSON.parse(worse.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.baseline.regressions.map((r: { case: string | null; metric: string }) => [r.case, r.metric])).toContainEqual(['bergen', 'pass_rate']);
    const text = await runBin(['test', '--suite-catalog', file, '--baseline', baseline], { env: env() });
    expect(text.stdout).toMatch(/regression: bergen \[openai:gpt-4o-mini\] pass rate 100% → 0%, 95% CI of the change \[-\d+ pts, -\d+ pts\] \(newcombe-hybrid-score\)/);
    expect(text.stdout).toContain('regression');
  });

  it('tokens per run beyond noise are a regression too (a heavier catalog costs more)', async () => {
    const file = suite('tokens', casesBody);
    const baseline = join(dir, 'tokens.json');
    scriptModel(() => true);
    expect((await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--update-baseline'], { env: env() })).code).toBe(0);
    scriptModel(() => true, { input: 3000, output: 20 });
    const heavier = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--json'], { env: env() });
    expect(heavier.code).toBe(1);
    expect(new Set(JSON.parse(heavier.stdout).baseline.regressions.map((r: { metric: string }) => r.metric))).toEqual(new Set(['tokens', 'cost']));
  });

  it('the history next to the baseline marks a case whose verdict flips and flips back; --quarantine-flaky forgives its noise, never a step', async () => {
    const file = suite('flaky', casesBody);
    const baseline = join(dir, 'flaky', 'baseline.json');
    const history = join(dir, 'flaky', 'baseline.history.jsonl');
    // Tromso passes `k` of its 6 runs (its bar is 0.5: 3 pass, 2 fail), the others always pass.
    const tromso = (k: number) => {
      let n = 0;
      scriptModel((p) => !p.includes('Tromso') || n++ < k);
    };
    tromso(3);
    expect((await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--update-baseline'], { env: env() })).code).toBe(0);
    expect(readFileSync(history, 'utf8').trim().split('\n')).toHaveLength(3);
    // Under its bar once: one change is a step, not flakiness (exit 1, nothing flaky).
    tromso(2);
    const once = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--json'], { env: env() });
    expect(once.code).toBe(1);
    expect(JSON.parse(once.stdout).flaky).toEqual([]);
    expect(readFileSync(history, 'utf8').trim().split('\n')).toHaveLength(6);
    // Back over it: the verdict changed and changed back, so the case is flaky.
    tromso(3);
    const back = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--json'], { env: env() });
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout).flaky).toEqual([{ suite: 'flaky', case: 'flip', provider: 'openai:gpt-4o-mini', verdicts: [true, false, true], flips: 2 }]);
    // Under its bar again, within noise of the baseline (3/6 → 2/6): quarantine forgives it.
    tromso(2);
    const quarantined = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--quarantine-flaky'], { env: env() });
    expect(quarantined.code, quarantined.stdout).toBe(0);
    expect(quarantined.stdout).toContain('flaky cases (the verdict flipped within the latest runs, oldest first): quarantined, left out of the verdict');
    expect(quarantined.stdout).toMatch(/flip \[openai:gpt-4o-mini\] \(flaky\): pass fail pass fail/);
    expect(quarantined.stdout).toContain('1 flaky case quarantined');
    // A change beyond noise is a regression even for a quarantined case (it was hidden before).
    tromso(0);
    const broken = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--quarantine-flaky', '--json'], { env: env() });
    expect(broken.code, broken.stdout).toBe(1);
    expect(JSON.parse(broken.stdout).baseline.regressions.map((r: { case: string | null; metric: string }) => [r.case, r.metric])).toContainEqual(['flip', 'pass_rate']);
    expect(statSync(history).mode & 0o777).toBe(0o600);
  });

  it('a case that always passed and now always fails is a regression under --quarantine-flaky (a step is not flakiness)', async () => {
    const file = suite('step', casesBody);
    const baseline = join(dir, 'step', 'baseline.json');
    scriptModel(() => true);
    expect((await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--update-baseline'], { env: env() })).code).toBe(0);
    scriptModel(() => false);
    const run = await runBin(['test', '--suite-catalog', file, '--baseline', baseline, '--quarantine-flaky', '--json'], { env: env() });
    expect(run.code, run.stdout).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.flaky).toEqual([]);
    expect(doc.ok).toBe(false);
  });

  it('a history folder gets one new file per run; usage errors before anything runs', async () => {
    const file = suite('folder', casesBody);
    const folder = join(dir, 'history-folder') + '/';
    scriptModel(() => true);
    expect((await runBin(['test', '--suite-catalog', file, '--history', folder], { env: env() })).code).toBe(0);
    expect((await runBin(['test', '--suite-catalog', file, '--history', folder], { env: env() })).code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(folder).filter((f) => f.endsWith('.jsonl'))).toHaveLength(2);
    const before = server.requests.length;
    for (const args of [['--update-baseline'], ['--quarantine-flaky'], ['--history', folder, '--flaky-window', '1']]) {
      const bad = await runBin(['test', '--suite-catalog', file, ...args], { env: env() });
      expect(bad.code, args.join(' ')).toBe(2);
    }
    expect(server.requests.length).toBe(before);
  });

  it('a hostile baseline: located errors, exit 2; a baseline or report path through a symbolic link is refused', async () => {
    const file = suite('hostile-baseline', casesBody);
    const bad = join(dir, 'bad-baseline.json');
    writeFileSync(bad, JSON.stringify({ toolman_baseline: 1, suites: [{ suite: 'x', cases: [{ case: 'a', provider: 'p', runs: [{ passed: 1 }] }] }] }));
    scriptModel(() => true);
    const run = await runBin(['test', '--suite-catalog', file, '--baseline', bad], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('/suites/0/cases/0/runs/0: must be {"passed"');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const target = join(dir, 'target.txt');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'link.html');
    symlinkSync(target, link);
    // Refused before any run is paid for (after the runs, before).
    for (const args of [['--html', link], ['--junit', link], ['--baseline', link, '--update-baseline'], ['--history', link], ['--junit', dir]]) {
      const before = server.requests.length;
      const refused = await runBin(['test', '--suite-catalog', file, ...args], { env: env() });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/is a symbolic link; toolman does not write through symbolic links|it is a folder/);
      expect(server.requests.length, args.join(' ')).toBe(before);
      expect(refused.stdout).toBe('');
      expect(readFileSync(target, 'utf8')).toBe('keep me');
    }
  });
});

describe('--sequential: the same verdicts with fewer model calls, on cases with known pass rates (issue 22: 3)', () => {
  // Each case passes with a known probability: its runs draw from a seeded sequence in order.
  const rates: Record<string, number> = { Oslo: 1, Bergen: 0, Tromso: 0.9, Bodo: 0.2, Alta: 1 };
  const script = () => {
    const draws = new Map(Object.keys(rates).map((city, i) => [city, seeded(1000 + i)]));
    server.script((r) => {
      if (assistantTurns(r) > 0) return { text: 'Done.', usage: { input: 500, output: 10 } };
      const city = Object.keys(rates).find((c) => userText(r).includes(c))!;
      return { toolCalls: [{ name: draws.get(city)!() < rates[city]! ? 'get_weather' : 'get_forecast', arguments: { city } }], usage: { input: 500, output: 10 } };
    });
  };
  const body = `repeat: 20
cases:
  - { name: always, prompt: weather in Oslo, min_pass_rate: 0.5, expect: { calls: [{ tool: get_weather }] } }
  - { name: never, prompt: weather in Bergen, min_pass_rate: 0.5, expect: { calls: [{ tool: get_weather }] } }
  - { name: mostly, prompt: weather in Tromso, min_pass_rate: 0.5, expect: { calls: [{ tool: get_weather }] } }
  - { name: rarely, prompt: weather in Bodo, min_pass_rate: 0.8, expect: { calls: [{ tool: get_weather }] } }
  - { name: strict, prompt: weather in Alta, min_pass_rate: 1, expect: { calls: [{ tool: get_weather }] } }
`;

  it('fixed N against sequential: every verdict equal, at most about half the requests, and the report says how many were saved', async () => {
    const file = suite('sequential', body);
    script();
    server.requests.length = 0;
    const fixed = await runBin(['test', '--suite-catalog', file, '--json', '--concurrency', '8'], { env: env() });
    const fixedRequests = server.requests.length;
    script();
    server.requests.length = 0;
    const sequential = await runBin(['test', '--suite-catalog', file, '--json', '--concurrency', '8', '--sequential'], { env: env() });
    const sequentialRequests = server.requests.length;
    expect(sequential.code).toBe(fixed.code);
    const verdicts = (text: string) => JSON.parse(text).suites[0].cases.map((c: { case: string; ok: boolean }) => [c.case, c.ok]);
    expect(verdicts(sequential.stdout)).toEqual(verdicts(fixed.stdout));
    expect(verdicts(fixed.stdout)).toEqual([['always', true], ['never', false], ['mostly', true], ['rarely', false], ['strict', true]]);
    expect(fixedRequests).toBe(200);
    // 100 planned runs: the strict case (a bar of 1, always passing) needs all 20; the others stop early.
    expect(sequentialRequests / fixedRequests).toBeLessThanOrEqual(0.55);
    const savings = JSON.parse(sequential.stdout).suites[0].sequential;
    expect(savings).toMatchObject({ alpha: 0.05, runs_planned: 100, runs_saved: 100 - sequentialRequests / 2, calls_made: sequentialRequests });
    expect(savings.calls_saved_estimate).toBe(2 * savings.runs_saved);
    expect(savings.settled_by.evidence).toBeGreaterThan(0);
    const text = await (async () => {
      script();
      return runBin(['test', '--suite-catalog', file, '--sequential'], { env: env() });
    })();
    expect(text.stdout).toMatch(new RegExp(`sequential test \\(alpha 0\\.05\\): ${100 - savings.runs_saved} of 100 runs made, ${savings.runs_saved} saved`));
  });

  it('Ctrl-C: the repeats a case had not started count as stopped; exit 130, no verdict', async () => {
    server.requests.length = 0;
    server.script(() => ({ text: 'slow', delayMs: 10_000 }));
    const file = suite('sequential-stop', 'repeat: 5\ncases:\n  - { name: slow, prompt: weather in Oslo, min_pass_rate: 0.5, expect: { answer: { contains: slow } } }\n');
    const run = spawnBin(['test', '--suite-catalog', file, '--sequential'], { env: env() });
    await new Promise<void>((resolve) => {
      const check = () => (server.requests.length ? resolve() : setTimeout(check, 20));
      check();
    });
    run.kill('SIGINT');
    const done = await run.done;
    expect(done.code).toBe(130);
    expect(done.stdout).toContain('interrupted: 0 runs finished (0 passed), 5 stopped or not started');
  });

  it('--sequential takes an alpha in (0, 0.5]', async () => {
    const file = suite('alpha', body);
    for (const bad of ['0', '0.9', 'x']) expect((await runBin(['test', '--suite-catalog', file, '--sequential', bad], { env: env() })).code).toBe(2);
  });
});

describe('--compare A B C: a matrix against the first, with the cache share and cost per run of each variant (issue 22: 4)', () => {
  it('eager, deferred and a catalog file: pairwise intervals against A; eager reads more from the prompt cache', async () => {
    const better = join(dir, 'travel-better.yaml');
    writeFileSync(better, readFileSync(catalog, 'utf8').replace('Weather forecast for a city for the next days', 'Weather for a city today and the next days (TODAY-TOO)'));
    server.script((r) => {
      const tools = JSON.stringify(r.body.tools);
      const deferred = tools.includes('tool_search');
      // The provider's cache holds the tools of an unchanged prefix: all of them when sent up front.
      const usage = { input: 1000, output: 20, cached: deferred ? 100 : 800 };
      const messages = r.body.messages as { role: string; content: string }[];
      if (assistantTurns(r) > 0 && messages.some((m) => m.role === 'tool' && !m.content.includes('"matches"'))) return { text: 'ok', usage };
      if (deferred && assistantTurns(r) === 0) return { toolCalls: [{ name: 'tool_search', arguments: { query: 'forecast weather' } }], usage };
      return { toolCalls: [{ name: tools.includes('TODAY-TOO') ? 'get_forecast' : 'get_weather', arguments: { city: 'Oslo' } }], usage };
    });
    const file = suite('matrix', `repeat: 3
cases:
  - { name: today and tomorrow, prompt: weather today and tomorrow in Oslo, expect: { calls: [{ tool: get_forecast }] } }
  - { name: this week, prompt: the week ahead in Oslo, expect: { calls: [{ tool: get_forecast }] } }
`);
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'gpt-4o-mini': { input: 1, output: 2, cached_input: 0.1 } }));
    const html = join(dir, 'compare.html');
    const run = await runBin(['test', '--suite-catalog', file, '--prices', prices, '--html', html, '--compare', `eager`, 'deferred', `${better},eager`, '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.variants.map((v: { label: string; spec: string }) => [v.label, v.spec])).toEqual([['A', 'eager'], ['B', 'deferred'], ['C', `${better},eager`]]);
    expect(doc.comparisons.map((c: { a: { label: string }; b: { label: string } }) => `${c.a.label}-${c.b.label}`)).toEqual(['A-B', 'A-C']);
    // C (the better description) passes where A fails: better, with Newcombe's interval per case and a paired t overall.
    expect(doc.comparisons[1].rows[0].pass_rate).toMatchObject({ a: 0, b: 1, verdict: 'better' });
    expect(doc.comparisons[1].overall[0].pass_rate.delta).toBe(1);
    const a = doc.variants[0].providers[0];
    const b = doc.variants[1].providers[0];
    expect(a.cached_share).toBeCloseTo(0.8, 6);
    expect(b.cached_share).toBeCloseTo(0.1, 6);
    // Cost per run: (input − cached) x $1 + cached x $0.10 + output x $2 per million, over each run's requests.
    expect(a.cost_per_run).toBeCloseTo((2 * (200 * 1 + 800 * 0.1 + 20 * 2)) / 1e6, 12);
    expect(b.cost_per_run).toBeGreaterThan(a.cost_per_run);
    const text = await runBin(['test', '--suite-catalog', file, '--prices', prices, '--compare', 'eager', 'deferred', `${better},eager`], { env: env() });
    expect(text.stdout).toMatch(/A = eager\nB = deferred/);
    expect(text.stdout).toMatch(/A = eager\nC = .*travel-better\.yaml,eager/);
    expect(text.stdout).toMatch(/cached share/);
    expect(text.stdout).toMatch(/80%/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('C (');
    expect(page).toContain('cached share of input');
  });

  it('native: the provider\'s own tool search reaches the request (Anthropic), against eager', async () => {
    server.requests.length = 0;
    server.script(() => ({ text: 'ok', usage: { input: 100, output: 5 } }));
    const file = suite('native', 'cases:\n  - { name: hello, prompt: hello, expect: { no_tool: true } }\n', '[anthropic:claude-haiku-4-5]');
    const run = await runBin(['test', '--suite-catalog', file, '--compare', 'eager', 'native', '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const bodies = server.requests.map((r) => JSON.stringify(r.body.tools));
    expect(bodies.some((b) => b.includes('tool_search_tool'))).toBe(true);
    expect(bodies.some((b) => !b.includes('tool_search'))).toBe(true);
    expect(JSON.parse(run.stdout).variants[1]).toMatchObject({ label: 'B', loading: 'deferred', search: 'native' });
  });

  it('native with a provider that has no tool search of its own is refused before any variant runs (C failed after A and B ran)', async () => {
    server.requests.length = 0;
    server.script(() => ({ text: 'ok', usage: { input: 100, output: 5 } }));
    const file = suite('native-openai', 'cases:\n  - { name: hello, prompt: hello, expect: { no_tool: true } }\n');
    const run = await runBin(['test', '--suite-catalog', file, '--compare', 'eager', 'deferred', 'native'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("variant C (native) uses the provider's own tool search, which openai:gpt-4o-mini does not have");
    expect(server.requests).toHaveLength(0);
  });
});
