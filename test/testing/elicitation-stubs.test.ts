import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayInteraction, type ElicitRequest } from '../../src/manager/mcp-client.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { caseQuestions } from '../../src/testing/elicitation-stubs.js';
import { loadSuite, loadSuiteText } from '../../src/testing/load-suite.js';
import { DEFAULT_PRICES } from '../../src/testing/prices.js';
import { runSuite } from '../../src/testing/run-suite.js';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

// A suite case answers what a live MCP tool's server asks during the case (`elicitation:`):
// matched on the server, the message, the mode, the form's fields or its schema; a question no
// entry matches is declined at once and fails the case, never waits.

const MODERN_SERVER = join(FIXTURES, 'mcp', 'servers', 'modern-server.mjs');
const form: ElicitRequest = { mode: 'form', server: 'm', message: 'Account details', schema: { properties: { name: { type: 'string' }, plan: { type: 'string', enum: ['free', 'pro'] } }, required: ['name'] } };

function stubsOf(yaml: string) {
  const suite = loadSuiteText(`cases:\n  - name: c\n    prompt: p\n    elicitation:\n${yaml}`, join(tmpdir(), 'inline.yaml'));
  return suite.cases[0]!.elicitation;
}

describe('caseQuestions', () => {
  it('answers with the first entry whose when matches: message, server, fields, schema, mode', async () => {
    const stubs = stubsOf(
      [
        '      - when: { message: { contains: Delete } }',
        '        action: decline',
        '      - when: { server: m, fields: [name, plan], schema: { required: [name] }, mode: form }',
        '        action: accept',
        '        content: { name: alice, plan: pro }',
        '      - action: cancel',
      ].join('\n') + '\n',
    );
    const { asker, unmatched } = caseQuestions(stubs);
    const signal = new AbortController().signal;
    expect(await asker(form, signal)).toEqual({ action: 'accept', content: { name: 'alice', plan: 'pro' } });
    expect(await asker({ ...form, message: 'Delete note n1?' }, signal)).toEqual({ action: 'decline' });
    expect(await asker({ ...form, server: 'other' }, signal)).toEqual({ action: 'cancel' });
    expect(await asker({ mode: 'url', server: 'm', message: 'Sign in', url: 'https://a.example/x', host: 'a.example' }, signal)).toEqual({ action: 'cancel' });
    expect(unmatched).toEqual([]);
  });

  it('declines a question no entry matches, and keeps a reason that says how to answer it', async () => {
    const { asker, unmatched } = caseQuestions(stubsOf('      - when: { fields: [email] }\n        action: accept\n        content: { email: a@b.c }\n'));
    expect(await asker(form, new AbortController().signal)).toEqual({ action: 'decline' });
    expect(unmatched).toEqual(['MCP server "m" asked "Account details" (a form asking name, plan), and no elicitation: entry of the case matches it (declined)']);
  });

  it('the suite schema refuses content without accept, an unknown action or key, and a bad matcher, each located', () => {
    const bad = (yaml: string) => () => loadSuiteText(`cases:\n  - name: c\n    prompt: p\n    elicitation:\n${yaml}`, join(tmpdir(), 'bad.yaml'));
    expect(bad('      - action: decline\n        content: { a: 1 }\n')).toThrow('bad.yaml:5:17 "action" must be "accept"');
    expect(bad('      - action: maybe\n')).toThrow('bad.yaml:5:17 "action" must be one of "accept", "decline", "cancel"');
    expect(bad('      - action: accept\n        when: { field: [a] }\n')).toThrow('bad.yaml:6:17 unknown key "field"; did you mean "fields"?');
    expect(bad('      - action: accept\n        when: { message: { regex: "(?<=x)" } }\n')).toThrow(/bad\.yaml:6:35 the regex does not compile: it uses a lookbehind/);
  });
});

let server: ModelServer;
let dir: string;
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-suite-elicit-'));
  const entry = (protocol: string, prefix: string) => `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(MODERN_SERVER)}, stdio]\n    protocol: ${protocol}\n    prefix: ${prefix}\n`;
  writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1\nname: asks\nmcp_servers:\n  m:\n${entry('"2026-07-28"', 'm_')}  l:\n${entry('legacy', 'l_')}`);
  writeFileSync(
    join(dir, 'suite.yaml'),
    [
      'tools: live',
      'providers: [openai:test-model]',
      'cases:',
      '  - name: answered',
      '    prompt: make my account',
      '    expect: { calls: [{ tool: m_make_account }, { tool: l_make_account }] }',
      '    elicitation:',
      '      - when: { message: { contains: Account }, fields: [name] }',
      '        action: accept',
      '        content: { name: alice, plan: pro }',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'unanswered.yaml'), ['tools: live', 'providers: [openai:test-model]', 'cases:', '  - name: unanswered', '    prompt: make my account', '    expect: { calls: [{ tool: m_make_account }] }', ''].join('\n'));
}, 30_000);
afterAll(async () => server.close());

const env = () => ({ OPENAI_API_KEY: 'sk-test-elicit-0001', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });

describe('a suite run answers its live MCP tools\' questions', () => {
  it('in process, from a 2026-07-28 server and a 2025-11-25 one', async () => {
    server.script([{ toolCalls: [{ name: 'm_make_account', arguments: {} }, { name: 'l_make_account', arguments: {} }] }, { text: 'done' }]);
    const suite = loadSuite(join(dir, 'suite.yaml'));
    const notes: string[] = [];
    const manager = await ToolManager.open({ catalogs: [join(dir, 'toolman.yaml')], cwd: dir, requireValid: 'all', env: env(), mcpInteraction: relayInteraction((line) => notes.push(line)) });
    try {
      const [result] = await runSuite({ manager, suite, targets: [{ provider: 'openai', model: 'test-model', label: 'openai:test-model' }], concurrency: 1, prices: DEFAULT_PRICES });
      expect(result!.failures).toEqual([]);
      expect(result!.calls.map((c) => [c.name, c.ok])).toEqual([['m_make_account', true], ['l_make_account', true]]);
      const sent = JSON.stringify(server.requests.at(-1)!.body);
      expect(sent).toContain('account alice on pro');
      expect(notes).toEqual([]);
    } finally {
      await manager.close();
    }
  });

  it('toolman test (the built binary): an answered question passes; an unanswered one fails the case with why, at once', async () => {
    server.script([{ toolCalls: [{ name: 'm_make_account', arguments: {} }, { name: 'l_make_account', arguments: {} }] }, { text: 'done' }]);
    const passed = await runBin(['test', 'suite.yaml', '--live-tools', '--json'], { cwd: dir, env: env() });
    expect(passed.code, passed.stderr).toBe(0);
    server.script([{ toolCalls: [{ name: 'm_make_account', arguments: {} }] }, { text: 'done' }]);
    const started = Date.now();
    const failed = await runBin(['test', 'unanswered.yaml', '--live-tools', '--json'], { cwd: dir, env: env() });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(failed.code, failed.stderr).toBe(1);
    const run = JSON.parse(failed.stdout).suites[0].runs[0];
    expect(run.failures).toContainEqual({ expectation: 'elicitation', message: 'MCP server "m" asked "Account details" (a form asking name, plan), and no elicitation: entry of the case matches it (declined)' });
  }, 60_000);
});
