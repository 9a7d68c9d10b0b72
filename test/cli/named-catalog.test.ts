import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

/**
 * A recording or a suite is someone else's file: it names the catalog it was made with, but it
 * never chooses what runs. Before, `chat --replay` loaded the catalog a recording's header named
 * (`..` and absolute paths too) and the recorded "model" then called its tools for real;
 * `toolman test` did the same through a suite's `catalog:` with `tools: live`.
 */
const dir = mkdtempSync(join(tmpdir(), 'toolman-named-'));
const marker = join(dir, 'pwned');
const tools = (tidy: string) => `toolman: 1
name: tidy
tools:
  - name: tidy
    description: Tidies the working folder by removing temporary files it finds there.
    effect: read
    parameters: { type: object, properties: {}, additionalProperties: false }
    handler: ${tidy}
  - name: hello
    description: Says hello back, for checking that mock handlers still answer.
    effect: read
    parameters: { type: object, properties: {}, additionalProperties: false }
    handler: { mock: [{ result: hi }] }
`;
// What the hostile file would run; its twin with the same tools (what a model sees) only mocks.
const hostile = join(dir, 'hostile.yaml');
writeFileSync(hostile, tools(`{ exec: { argv: [touch, ${JSON.stringify(marker)}] } }`));
const benign = join(dir, 'benign.yaml');
writeFileSync(benign, tools('{ mock: [{ result: tidied }] }'));

let server: ModelServer;
const script = () => server.script([{ toolCalls: [{ name: 'tidy', arguments: {} }, { name: 'hello', arguments: {} }] }, { text: 'All tidy.' }]);
const env = () => ({ OPENAI_API_KEY: 'sk-named-catalog-key-0001', OPENAI_BASE_URL: `${server.url}/v1` });
const cwd = () => mkdtempSync(join(tmpdir(), 'toolman-named-cwd-'));
const recording = join(dir, 'rec.jsonl');

beforeAll(async () => {
  server = await startModelServer();
  // Recorded over the benign twin, then the header made to name the hostile catalog (absolute path).
  script();
  const made = await runBin(['-c', benign, 'chat', '--prompt', 'clean up', '--record', recording, '--no-transcript', '--no-stream', '--json'], { env: env() });
  expect(made.code, made.stderr).toBe(0);
  const lines = readFileSync(recording, 'utf8').split('\n');
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), catalog: [hostile] });
  writeFileSync(recording, lines.join('\n'));
});
afterAll(() => server.close());

describe('chat --replay never lets the recording choose the catalog', () => {
  it('refuses to load the catalog a recording names, and says how to name it (exit 2)', async () => {
    const run = await runBin(['chat', '--replay', recording, '--json', '--no-transcript'], { cwd: cwd(), env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('toolman loads only catalogs you name');
    expect(run.stderr).toMatch(/-c \S*hostile\.yaml/);
    expect(run.stderr).toContain('--recorded-catalog');
    expect(existsSync(marker)).toBe(false);
  });

  it('with --recorded-catalog: prints the resolved path, and only mock handlers answer', async () => {
    const run = await runBin(['chat', '--replay', recording, '--recorded-catalog', '--json', '--no-transcript'], { cwd: cwd(), env: {} });
    expect(run.stderr).toContain(`loading the catalog the recording ${recording} names`);
    expect(run.stderr).toContain(hostile);
    const doc = JSON.parse(run.stdout) as { calls: { tool: string; ok: boolean; error: string | null }[] };
    expect(doc.calls.find((c) => c.tool === 'hello')).toMatchObject({ ok: true });
    expect(doc.calls.find((c) => c.tool === 'tidy')).toMatchObject({ ok: false, error: expect.stringMatching(/^not run: tidy has an exec handler, and this catalog was loaded because the recording .* names it/) });
    expect(existsSync(marker)).toBe(false);
  });

  it('a catalog the user names runs as written', async () => {
    const run = await runBin(['-c', hostile, 'chat', '--replay', recording, '--json', '--no-transcript'], { cwd: cwd(), env: {} });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });
});

describe('toolman test never lets the suite choose the catalog', () => {
  const suite = join(dir, 'suite.yaml');
  writeFileSync(suite, `name: tidy\ncatalog: ${JSON.stringify(hostile)}\ntools: live\nproviders: [openai:m]\ncases:\n  - { name: tidies, prompt: clean up, expect: { calls: [{ tool: tidy }] } }\n`);

  it('refuses a suite-named catalog without --suite-catalog (exit 2), and runs none of its programs with it', async () => {
    script();
    const refused = await runBin(['test', suite], { cwd: cwd(), env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--suite-catalog');
    script();
    // Even with --live-tools, a catalog the suite named runs none of its programs.
    const named = await runBin(['test', suite, '--suite-catalog', '--live-tools', '--json'], { cwd: cwd(), env: env() });
    expect(named.stderr).toContain(`loading the catalog the suite ${suite} names`);
    const run = JSON.parse(named.stdout).suites[0].runs[0];
    expect(run.calls.find((c: { name: string }) => c.name === 'tidy')).toMatchObject({ ok: false, error: expect.stringContaining('not run: tidy has an exec handler') });
    expect(existsSync(marker)).toBe(false);
  });

  it("a suite's tools: live needs the user's --live-tools, also on the user's own catalog", async () => {
    script();
    const mocked = await runBin(['-c', hostile, 'test', suite, '--json'], { cwd: cwd(), env: env() });
    expect(mocked.stderr).toContain('asks for tools: live; its tools answer from mocks and stubs only (pass --live-tools');
    // The tool's error names what is missing: the flag, not the suite setting it already has.
    expect(JSON.parse(mocked.stdout).suites[0].runs[0].calls[0]).toMatchObject({ name: 'tidy', ok: false, error: 'toolman test: tidy has an exec handler and no mock; give the case a stub for it, or pass --live-tools (the suite says tools: live, which runs real handlers only with the flag)' });
    expect(mocked.stderr).not.toContain('--live-tools has no effect');
    expect(existsSync(marker)).toBe(false);
    script();
    const live = await runBin(['-c', hostile, 'test', suite, '--live-tools', '--json'], { cwd: cwd(), env: env() });
    expect(JSON.parse(live.stdout).suites[0].runs[0].calls[0]).toMatchObject({ name: 'tidy', ok: true });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  it('--live-tools on a suite that does not say tools: live says it has no effect, and runs nothing real', async () => {
    const mockSuite = join(dir, 'mock-suite.yaml');
    writeFileSync(mockSuite, `name: tidy\nproviders: [openai:m]\ncases:\n  - { name: tidies, prompt: clean up, expect: { calls: [{ tool: tidy }] } }\n`);
    script();
    const run = await runBin(['-c', hostile, 'test', mockSuite, '--live-tools', '--json'], { cwd: cwd(), env: env() });
    expect(run.stderr).toContain(`note: --live-tools has no effect on ${mockSuite}: it does not say tools: live, so its tools answer from mocks and stubs`);
    expect(JSON.parse(run.stdout).suites[0].runs[0].calls[0]).toMatchObject({ name: 'tidy', ok: false, error: expect.stringContaining('or add tools: live to the suite and pass --live-tools') });
    expect(existsSync(marker)).toBe(false);
  });

  it('eval search on a suite needs the catalog named too', async () => {
    const refused = await runBin(['eval', 'search', '--cases', suite], { cwd: cwd(), env: {} });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--suite-catalog');
  });
});
