import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

// Stateful tools and handler plugins from the command line, on the shipped coding catalog:
// one-shot chat against the local model server, `toolman test` with live tools, `call`,
// `validate` (which alone loads plugins to check them) and the commands that never load one.

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
const openai = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('chat --prompt', () => {
  it('a model starts the real test run, reads it with job_next and notes the failure through the plugin', async () => {
    server.script([
      { toolCalls: [{ name: 'run_tests', arguments: {} }] },
      { toolCalls: [{ name: 'job_next', arguments: { job_id: 'job_1', until: 'end', wait_ms: 30000 } }] },
      { toolCalls: [{ name: 'save_note', arguments: { key: 'failing', value: 'loads includes: expected 2 files, got 1' } }] },
      { text: 'One test fails: loads includes.' },
    ]);
    const run = await runBin(['-c', 'catalogs/coding.yaml', 'chat', '--profile', 'coding', '--prompt', 'Run the tests', '--json', '--no-transcript'], { env: openai() });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { stop: string; calls: { tool: string; ok: boolean; content: string }[] };
    expect(doc.stop).toBe('done');
    expect(doc.calls.map((c) => [c.tool, c.ok])).toEqual([['run_tests', true], ['job_next', true], ['save_note', true]]);
    expect(JSON.parse(doc.calls[0]!.content)).toMatchObject({ job_id: 'job_1', yields: [{ n: 1, value: { file: 'test/catalog.test.mjs', failed: 1 } }] });
    expect(JSON.parse(doc.calls[1]!.content)).toMatchObject({ status: 'done', result: { files: 3, passed: 5, failed: 1 } });
    expect(JSON.parse(doc.calls[2]!.content)).toEqual({ saved: 'failing', keys: 1 });
    // What the model was sent: the job tools among the tools, and each answer as the tool's result.
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain('"name":"job_next"');
  });
});

describe('toolman test', () => {
  it('tools: live runs the real stateful module and plugin, and expectations read job_next', async () => {
    server.script([
      { toolCalls: [{ name: 'run_tests', arguments: {} }] },
      { toolCalls: [{ name: 'job_next', arguments: { job_id: 'job_1', until: 'end', wait_ms: 30000 } }] },
      { toolCalls: [{ name: 'save_note', arguments: { key: 'failing', value: 'loads includes fails' } }, { name: 'read_notes', arguments: {} }] },
      { text: 'loads includes fails; noted.' },
    ]);
    const run = await runBin(['-c', 'catalogs/coding.yaml', 'test', 'test/fixtures/testing/coding-live.yaml', '--json'], { env: openai() });
    const doc = JSON.parse(run.stdout);
    expect(run.code, `${run.stderr}\n${JSON.stringify(doc.suites?.[0]?.runs, null, 2)}`).toBe(0);
    expect(doc.suites[0].runs[0].passed).toBe(true);
  });
});

describe('call', () => {
  it('a stateful tool answers with its first yield and job id; the job stops when toolman exits', async () => {
    const run = await runBin(['-c', 'catalogs/coding.yaml', 'call', 'run_tests', '--args', '{"filter":"search"}', '--json'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    const response = JSON.parse(run.stdout).responses[0];
    expect(response).toMatchObject({ ok: true, job_id: 'job_1' });
    expect(JSON.parse(response.content).yields).toEqual([{ n: 1, value: { file: 'test/search.test.mjs', done: 1, of: 1, passed: 2, failed: 0 } }]);
  });

  it('a plugin tool runs, and its arguments are checked first', async () => {
    const ok = await runBin(['-c', 'catalogs/coding.yaml', 'call', 'save_note', '--args', '{"key":"k","value":"v"}'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ saved: 'k', keys: 1 });
    const bad = await runBin(['-c', 'catalogs/coding.yaml', 'call', 'save_note', '--args', '{"key":"k"}'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('missing required argument "value"');
  });
});

describe('plugins load only where they are needed', () => {
  function catalogWithMarker(): { dir: string; marker: string } {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-cli-'));
    temps.push(dir);
    const marker = join(dir, 'loaded');
    writeFileSync(join(dir, 'p.mjs'), `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(marker)}, 'x');\nexport const toolmanPlugin = { apiVersion: 1, kinds: { k: { configSchema: { type: 'object', properties: { size: { type: 'integer' } }, additionalProperties: false }, create: () => ({ run: async () => 'ran' }) } } };\n`);
    writeFileSync(join(dir, 'c.yaml'), 'toolman: 1\nname: marked\ntools:\n  - name: t\n    description: A plugin tool that leaves a mark when its plugin loads.\n    effect: read\n    handler:\n      plugin: ./p.mjs#k\n      config: { size: many }\n');
    return { dir, marker };
  }

  it('validate loads the plugin and reports its config error at its place; list, show, format and budget never load it', async () => {
    const { dir, marker } = catalogWithMarker();
    for (const args of [['list'], ['show', 't'], ['format', '--provider', 'anthropic'], ['budget']]) {
      await runBin(['-c', join(dir, 'c.yaml'), ...args], { env: { TOOLMAN_CACHE_DIR: 'off' } });
      expect(existsSync(marker), args.join(' ')).toBe(false);
    }
    const run = await runBin(['validate', join(dir, 'c.yaml'), '--json'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.diagnostics).toEqual([expect.objectContaining({ code: 'TM0743', line: 9, column: 23, message: 'tools[0] "t": config.size must be integer (got "many")' })]);
    expect(existsSync(marker)).toBe(true);
  });

  it('validate prints a plugin that cannot be found as a located error, with a code frame', async () => {
    const run = await runBin(['validate', 'test/fixtures/plugins/TM0740-plugin-not-found.yaml'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('test/fixtures/plugins/TM0740-plugin-not-found.yaml:6:15 error TM0740 tools[0] "remember": cannot find the package "toolman-plugin-nowhere"');
    expect(run.stdout).toContain('  > 6 |       plugin: "toolman-plugin-nowhere#kv"');
    expect(run.stdout).not.toMatch(/^\s+at .+[:(]/m);
  });
});
