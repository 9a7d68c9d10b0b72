import { mkdtempSync, writeFileSync } from 'node:fs';
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
    const run = await runBin(['test', file, flag, value], { env: env() });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(flag);
    expect(server.requests.length).toBe(before);
  });

  it('--replay with no such folder', async () => {
    const file = suite('noreplay', 'cases:\n  - { name: a, prompt: weather in Oslo }\n');
    const run = await runBin(['test', file, '--replay', join(dir, 'nonexistent')], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--replay .*nonexistent: no such folder/);
  });
});

describe('names on stderr are printed without terminal control sequences', () => {
  it('suite name in the estimate and progress lines', async () => {
    server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { text: 'ok' }));
    const file = suite('hostile', 'cases:\n  - { name: "a\\u001b]0;title\\u0007", prompt: weather in Oslo }\n', { title: '"x\\u001b[2J"' });
    const run = await runBin(['test', file], { env: env() });
    expect(run.stderr).toContain('estimated cost of x');
    expect(run.stderr).not.toContain('\u001b');
  });
});
