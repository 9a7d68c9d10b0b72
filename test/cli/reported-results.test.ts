import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

// What toolman reports is what decided, what answered, what was left out, what was counted (issue 19, items 5, 6, 8, 9).
function catalog(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-reported-'));
  writeFileSync(join(dir, 'toolman.yaml'), yaml);
  return dir;
}

const tool = (name: string, extra = '') =>
  `  - name: ${name}\n    description: The ${name.replace(/_/g, ' ')} tool of the test catalog, with a long enough description.\n    effect: read\n${extra}    handler: { mock: [{ result: ok }] }\n`;

describe('list --explain names the step and rule that decided', () => {
  it('an always_load tool under defer: ["*"] is active because of always_load, not the include', async () => {
    const dir = catalog(`toolman: 1\nprofiles:\n  lean: { defer: ["*"] }\ntools:\n${tool('get_status', '    always_load: true\n')}${tool('get_report')}`);
    const run = await runBin(['list', '--explain', '-p', 'lean', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const tools = JSON.parse(run.stdout).tools as { name: string; state: string; step: string; rule: string }[];
    // Before: {state: active, step: profile, rule: "include: (all tools)"}.
    expect(tools.find((t) => t.name === 'get_status')).toEqual({ name: 'get_status', state: 'active', step: 'defer', rule: 'always_load (overrides defer: *)' });
    expect(tools.find((t) => t.name === 'get_report')).toMatchObject({ state: 'deferred', step: 'defer', rule: 'defer: *' });
    const text = await runBin(['list', '--explain', '-p', 'lean'], { cwd: dir });
    expect(text.stdout).toMatch(/│ get_status\s+│ active\s+│ defer\s+│ always_load \(overrides defer: \*\)/);
  });
});

describe('a 404 from a model API says which URL answered', () => {
  let server: Server;
  let url = '';
  let models: ModelServer;
  beforeAll(async () => {
    // A compatible server without the Responses API (Ollama answers unknown paths like this).
    server = createServer((request, response) => {
      request.resume();
      response.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    models = await startModelServer();
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await models.close();
  });

  it('a missing endpoint is not reported as an unknown model', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'chat', '-P', 'openai-responses', '--base-url', `${url}/v1`, '-m', 'gpt-4o', '--prompt', 'hi', '--no-transcript'], { env: { OPENAI_API_KEY: 'test-key' } });
    expect(run.code).toBe(1);
    // Before: "OpenAI has no model "gpt-4o" at http://.../v1 (HTTP 404)".
    expect(run.stderr).not.toContain('has no model');
    expect(run.stderr).toContain(`POST ${url}/v1/responses answered HTTP 404 (404 page not found): the server has no such endpoint, so no model was asked`);
    expect(run.stderr).toContain('-P openai uses Chat Completions');
    const noV1 = await runBin(['-c', 'catalogs/assistant.yaml', 'chat', '-P', 'openai', '--base-url', url, '--prompt', 'hi', '--no-transcript'], { env: { OPENAI_API_KEY: 'test-key' } });
    expect(noV1.stderr).toContain(`POST ${url}/chat/completions answered HTTP 404`);
    expect(noV1.stderr).toContain(`try --base-url ${url}/v1`);
  });

  it('an unknown model, as the API says it, still is one, with the URL', async () => {
    models.script([{ status: 404 }]);
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'chat', '-P', 'openai', '-m', 'gpt-9', '--prompt', 'hi', '--no-transcript'], { env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${models.url}/v1` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`OpenAI has no model "gpt-9" (HTTP 404 from POST ${models.url}/v1/chat/completions: The model does not exist`);
  });
});

describe('format says what it left out, and exits as --all-providers does', () => {
  const recursive = `toolman: 1\ntools:\n  - name: walk_tree\n    description: Walk a tree of nodes and return the visited node ids in order.\n    effect: read\n    parameters:\n      type: object\n      properties:\n        root: { $ref: "#/$defs/node", description: The root node }\n      required: [root]\n      $defs:\n        node:\n          type: object\n          properties:\n            id: { type: string, description: Node id }\n            children: { type: array, items: { $ref: "#/$defs/node" }, description: Child nodes }\n    handler: { mock: [{ result: { ids: [] } }] }\n`;

  it('-P gemini with nothing it can send: exit 1, the --json document lists what was left out and why', async () => {
    const dir = catalog(recursive);
    const text = await runBin(['format', '-P', 'gemini'], { cwd: dir });
    // Before: {} and exit 0.
    expect(text.code).toBe(1);
    expect(JSON.parse(text.stdout)).toEqual({});
    expect(text.stderr).toContain('✖ nothing is sent to gemini: the fragment above has no tools (walk_tree: $ref "#/$defs/node" is recursive');
    const json = await runBin(['format', '-P', 'gemini', '--json'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).not_sent).toEqual([{ provider: 'gemini', tool: 'walk_tree', reason: expect.stringContaining('is recursive'), native_elsewhere: false }]);
    const all = await runBin(['format', '--all-providers', '--json'], { cwd: dir });
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout).not_sent).toEqual([expect.objectContaining({ provider: 'gemini', tool: 'walk_tree' })]);
    const fine = await runBin(['format', '-P', 'anthropic'], { cwd: dir });
    expect(fine.code).toBe(0);
  });

  it('a provider-native tool meant for another provider is listed, but is no failure, in either mode', async () => {
    const dir = catalog(`toolman: 1\ntools:\n  - name: web_search\n    description: Anthropic's web search server tool, run on Anthropic's side.\n    native: { anthropic: { type: web_search_20250305, name: web_search } }\n${tool('get_status')}`);
    const single = await runBin(['format', '-P', 'gemini', '--json'], { cwd: dir });
    expect(single.code).toBe(0);
    expect(JSON.parse(single.stdout).not_sent).toEqual([{ provider: 'gemini', tool: 'web_search', reason: 'a provider-native tool for anthropic only', native_elsewhere: true }]);
    const all = await runBin(['format', '--all-providers'], { cwd: dir });
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("NOT SENT (native: another provider's tool)");
  });
});

describe('budget --exact says which counts are exact, which estimates, and why', () => {
  it('with OpenAI Chat Completions, which has no count to ask, it says so instead of printing the estimate as if asked', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'budget', '-P', 'openai', '--exact']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('--exact: OpenAI has no token count for Chat Completions requests');
    expect(run.stdout).toContain("every count above is toolman's");
    expect(run.stdout).toMatch(/counts: exact for 3 of 16 tools \(complete_task, read_email, delete_task\); estimates for 13, because:/);
    expect(run.stdout).toMatch(/\n {4}the schema keyword "format": [a-z_, ]*list_calendar_events/);
    expect(run.stdout).toMatch(/│ read_email\s+│ \d+\s+│ [\d.]+%\s+│ active │ exact/);
    const json = await runBin(['-c', 'catalogs/assistant.yaml', 'budget', '-P', 'openai', '--exact', '--json']);
    const doc = JSON.parse(json.stdout) as { exact_unavailable: string; exact?: unknown; tools: { name: string; exact: boolean; estimate_reasons: string[] }[] };
    expect(doc.exact).toBeUndefined();
    expect(doc.exact_unavailable).toContain('POST /v1/responses/input_tokens');
    expect(doc.tools.find((t) => t.name === 'read_email')).toMatchObject({ exact: true, estimate_reasons: [] });
    expect(doc.tools.find((t) => t.name === 'list_calendar_events')).toMatchObject({ exact: false, estimate_reasons: ['the schema keyword "format"'] });
    expect(json.stderr).toContain('--exact: OpenAI has no token count');
  });

  it('a model the rules were not measured on makes every count an estimate, and says so once for all', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'budget', '-P', 'openai', '-m', 'gpt-4.1']);
    expect(run.stdout).toContain('counts: estimates for every tool (16), because:');
    expect(run.stdout).toContain('model gpt-4.1 is not one the counting rules were measured on: every one');
  });
});
