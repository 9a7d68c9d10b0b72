import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

// Defects from issue 12's review of `toolman test`, `--compare` and `diff --suite`.
let server: ModelServer;
let dir: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-test-review-'));
});
afterAll(async () => server.close());

const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

function suite(name: string, body: string, options: { title?: string; providers?: string } = {}): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${options.title ?? name}\ncatalog: ${JSON.stringify(catalog)}\nproviders: ${options.providers ?? '[openai:gpt-4o-mini]'}\n${body}`);
  return file;
}

describe('loose numbers and a missing --replay folder are usage errors (exit 2)', () => {
  it.each([
    ['--repeat', '1.5'],
    ['--concurrency', '2.5'],
    ['--concurrency', '0x10'],
    ['--concurrency', '1e1'],
    ['--min-pass-rate', ''],
    ['--min-pass-rate', '1.5'],
  ])('%s %j', async (flag, value) => {
    const before = server.requests.length;
    const file = suite('numbers', 'cases:\n  - { name: a, prompt: weather in Oslo }\n');
    const run = await runBin(['test', '--suite-catalog', file, flag, value], { env: env() });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(flag);
    expect(server.requests.length).toBe(before);
  });

  it('--replay with no such folder', async () => {
    const file = suite('noreplay', 'cases:\n  - { name: a, prompt: weather in Oslo }\n');
    const run = await runBin(['test', '--suite-catalog', file, '--replay', join(dir, 'nonexistent')], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--replay .*nonexistent: no such folder/);
  });
});

describe('names on stderr are printed without terminal control sequences', () => {
  it('suite name in the estimate and progress lines', async () => {
    server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { text: 'ok' }));
    const file = suite('hostile', 'cases:\n  - { name: "a\\u001b]0;title\\u0007", prompt: weather in Oslo }\n', { title: '"x\\u001b[2J"' });
    const run = await runBin(['test', '--suite-catalog', file], { env: env() });
    expect(run.stderr).toContain('estimated cost of x');
    expect(run.stderr).not.toContain('\u001b');
  });
});

describe('runs that could not run fail a comparison (issue 12: 1)', () => {
  const file = () => suite('cmp-errors', 'repeat: 2\ncases:\n  - { name: a, prompt: weather in Oslo, expect: { calls: [{ tool: get_weather }] } }\n  - { name: b, prompt: forecast in Oslo, expect: { calls: [{ tool: get_forecast }] } }\n');

  it('--compare with a missing --replay folder: exit 2, said why', async () => {
    const run = await runBin(['test', '--suite-catalog', '--compare', 'eager', 'deferred', file(), '--replay', join(dir, 'nonexistent')], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no such folder');
    expect(run.stderr).toContain('hint: record every variant with: toolman test SUITE --compare A B ... --record DIR');
  });

  it('--compare with no recordings: exit 2 (could not run, as in a plain run), not "within noise" at 0%', async () => {
    const empty = join(dir, 'empty-rec');
    mkdirSync(join(empty, 'A'), { recursive: true });
    mkdirSync(join(empty, 'B'), { recursive: true });
    const run = await runBin(['test', '--suite-catalog', '--compare', 'eager', 'deferred', file(), '--replay', empty, '--json'], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/4 of 4 runs of A \(eager\) could not run/);
    expect(run.stderr).toContain('no usable recording');
    expect(JSON.parse(run.stdout).comparisons[0].overall).toEqual([]);
  });

  it('diff --suite with no recordings: exit 2 (could not run, as test and --compare), said on stderr', async () => {
    const empty = join(dir, 'empty-rec-diff');
    mkdirSync(join(empty, 'A'), { recursive: true });
    mkdirSync(join(empty, 'B'), { recursive: true });
    const run = await runBin(['diff', catalog, catalog, '--suite', file(), '--replay', empty], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('could not run');
    const missing = await runBin(['diff', catalog, catalog, '--suite', file(), '--replay', join(dir, 'nonexistent')], { env: {} });
    expect(missing.code).toBe(2);
  });
});

describe('--compare refuses what it cannot honour, and checks both variants first (issue 12: 3, 5)', () => {
  const file = () => suite('cmp-flags', 'cases:\n  - { name: a, prompt: weather in Oslo }\n');

  it.each([['--junit', 'x.xml'], ['--min-pass-rate', '0.5']])('%s: exit 2', async (flag, value) => {
    const before = server.requests.length;
    const run = await runBin(['test', '--suite-catalog', file(), '--compare', 'eager', 'deferred', flag, value], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${flag} does not go with --compare`);
    expect(server.requests.length).toBe(before);
  });

  it.each([['deffered', 'deffered'], ['profile:nosuch', 'no profile "nosuch"']])('B = %s: exit 2 before A runs', async (b, message) => {
    server.script(() => ({ text: 'ok' }));
    const before = server.requests.length;
    const run = await runBin(['test', '--suite-catalog', file(), '--compare', 'eager', b], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(server.requests.length).toBe(before);
  });
});

describe('--max-cost covers the whole invocation (issue 12: 4)', () => {
  it('two suites each under the cap, together over it: nothing runs', async () => {
    const body = 'repeat: 10\ncases:\n  - { name: a, prompt: weather in Oslo }\n';
    const one = suite('cap-one', body);
    const two = suite('cap-two', body);
    const probe = await runBin(['test', '--suite-catalog', one, '--max-cost', '0'], { env: env() });
    const each = Number(/estimated cost of cap-one: \$([\d.]+)/.exec(probe.stderr)![1]);
    expect(each).toBeGreaterThan(0);
    const before = server.requests.length;
    const run = await runBin(['test', '--suite-catalog', one, two, '--max-cost', String(each * 1.5)], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing was run');
    expect(server.requests.length).toBe(before);
  });

  it('a model with no price and a cap: refused, naming the model and --prices', async () => {
    const file = suite('cap-unpriced', 'cases:\n  - { name: a, prompt: weather in Oslo }\n', { providers: '[openai:house-model-9]' });
    const before = server.requests.length;
    const run = await runBin(['test', '--suite-catalog', file, '--max-cost', '10'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('house-model-9');
    expect(run.stderr).toContain('--prices');
    expect(server.requests.length).toBe(before);
  });
});
