import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The drivers as users run them: whatever echoes a secret (the model, a tool, a proxy), no output
 * of `toolman test` (the table, --json, JUnit, run errors) or of one-shot `chat` (text, --json,
 * --events, the transcript, the recording) shows it. Both went through their own copies of the
 * conversation before; `test` redacted nothing, and the provider's key was no secret.
 */
const SECRET = 'shop-secret-7f3a9c1e55';
const KEY = 'sk-cli-redaction-key-4c1f7a';
const CATALOG = join(ROOT, 'test/fixtures/catalogs/secrets.yaml');

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const env = () => ({ SHOP_TOKEN: SECRET, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` });
const dir = mkdtempSync(join(tmpdir(), 'toolman-cli-redaction-'));

describe('toolman test', () => {
  it('redacts the table, --json, JUnit and the failure reasons', async () => {
    server.script(() => ({ text: `Your token is ${SECRET}.` }));
    const suite = join(dir, 'echo.yaml');
    writeFileSync(suite, `name: echo\nproviders: [openai:m]\ncases:\n  - name: echoes\n    prompt: what is my token?\n    expect: { answer: { contains: never-said } }\n`);
    const junit = join(dir, 'echo.xml');
    const text = await runBin(['-c', CATALOG, 'test', suite, '--junit', junit], { env: env() });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain('[redacted]');
    const json = await runBin(['-c', CATALOG, 'test', suite, '--json'], { env: env() });
    expect(JSON.parse(json.stdout).suites[0].runs[0].answer).toBe('Your token is [redacted].');
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr, readFileSync(junit, 'utf8')]) {
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(KEY);
    }
  });

  it('redacts the provider key from a run that could not run (a proxy echoing the Authorization header)', async () => {
    server.script(() => ({ status: 400, errorMessage: `rejected Authorization: Bearer ${KEY}` }));
    const suite = join(dir, 'proxy.yaml');
    writeFileSync(suite, `name: proxy\nproviders: [openai:m]\ncases:\n  - name: any\n    prompt: hi\n`);
    const run = await runBin(['-c', CATALOG, 'test', suite, '--json'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain('Bearer [redacted]');
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});

describe('toolman chat, one turn', () => {
  it('--events, the transcript and the recording hold neither the secret nor the key', async () => {
    const transcript = join(dir, 'chat.jsonl');
    const recording = join(dir, 'chat-rec.jsonl');
    server.script([{ toolCalls: [{ name: 'order_status', arguments: { order: SECRET } }] }, { status: 400, errorMessage: `you sent Bearer ${KEY} and ${SECRET}` }]);
    const run = await runBin(['-c', CATALOG, 'chat', '--prompt', 'where is my order?', '--events', '--transcript', transcript, '--record', recording], { env: env() });
    expect(run.code).toBe(1);
    for (const out of [run.stdout, run.stderr, readFileSync(transcript, 'utf8'), readFileSync(recording, 'utf8')]) {
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(KEY);
    }
    expect(run.stdout).toContain('Bearer [redacted]');
  });
});
