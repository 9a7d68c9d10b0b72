import { mkdirSync, mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DiagnosticCode } from '../../src/catalog/diagnostic-codes.js';
import type { ApprovalRequest, CallEvent, ToolCall, ToolResponse } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

// Handler plugins: a runner kind a package registers (handler: {plugin: "pkg#kind", config}),
// resolved from the catalog's folder, loaded in its own worker thread, its config checked
// against the schema it exports, and run through the executor like any handler.

const CATALOG = 'test/fixtures/plugins/plugins.yaml';
const TOKEN = 'plg-secret-token-4242';
const call = (name: string, args: unknown = {}, id = name): ToolCall => ({ id, name, arguments: args });

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function open(catalog = CATALOG, options: { namedBy?: string; cwd?: string; onEvent?: (e: CallEvent) => void; approve?: (r: ApprovalRequest) => Promise<'approve' | 'decline'> } = {}) {
  const manager = await ToolManager.open({ catalogs: [catalog], cwd: options.cwd ?? ROOT, env: { PLUGIN_TOKEN: TOKEN }, ...(options.namedBy ? { namedBy: options.namedBy } : {}) });
  managers.push(manager);
  const session = await manager.session({ ...(options.onEvent ? { onEvent: options.onEvent } : {}), ...(options.approve ? { approve: options.approve } : {}) });
  return { manager, session };
}

async function runOne(session: ToolSession, name: string, args: unknown = {}): Promise<ToolResponse> {
  return (await session.runTurn([call(name, args)])).responses[0]!;
}

async function validate(catalog: string, cwd = ROOT) {
  const manager = await ToolManager.open({ catalogs: [catalog], cwd, requireValid: false });
  managers.push(manager);
  await manager.checkPlugins();
  return manager.validate();
}

describe('validate loads each plugin and reports at the YAML', () => {
  const cases: { fixture: string; code: DiagnosticCode; line: number; column: number; message: RegExp }[] = [
    { fixture: 'TM0740-plugin-not-found.yaml', code: 'TM0740', line: 6, column: 15, message: /cannot find the package "toolman-plugin-nowhere" from / },
    { fixture: 'TM0741-plugin-unusable.yaml', code: 'TM0741', line: 6, column: 15, message: /exports no toolmanPlugin \(its exports: helper, kinds\)/ },
    { fixture: 'TM0742-plugin-unknown-kind.yaml', code: 'TM0742', line: 6, column: 15, message: /has no kind "ecko"; did you mean "echo"\?/ },
    { fixture: 'TM0743-plugin-config-invalid.yaml', code: 'TM0743', line: 9, column: 17, message: /config\.repeat must be <= 10 \(got 40\)/ },
    { fixture: 'TM0744-plugin-config-schema-invalid.yaml', code: 'TM0744', line: 6, column: 15, message: /exports for "kv" does not compile/ },
  ];
  it.each(cases)('$fixture: $code at $line:$column', async ({ fixture, code, line, column, message }) => {
    const file = `test/fixtures/plugins/${fixture}`;
    const diagnostics = await validate(file);
    const found = diagnostics.filter((d) => d.code === code);
    expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'error', file, line, column, message: expect.stringMatching(message) });
    expect(diagnostics.filter((d) => d.code !== code && d.severity === 'error')).toEqual([]);
  });

  it('an unknown config key points at the key, with "did you mean"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    mkdirSync(join(dir, 'plugins'));
    writeFileSync(join(dir, 'plugins', 'kinds.mjs'), `export { toolmanPlugin } from ${JSON.stringify(join(ROOT, 'test/fixtures/plugins/plugins/kinds.mjs'))};\n`);
    writeFileSync(join(dir, 'c.yaml'), 'toolman: 1\ntools:\n  - name: t\n    description: A tool with a misspelt plugin config key.\n    handler:\n      plugin: ./plugins/kinds.mjs#echo\n      config: { greeting: hi, repaet: 2 }\n');
    const diagnostics = await validate(join(dir, 'c.yaml'), dir);
    expect(diagnostics.find((d) => d.code === 'TM0743')).toMatchObject({ line: 7, column: 31, message: expect.stringContaining('config has an unknown key "repaet"; did you mean "repeat"?') });
  });

  it('a handler an override sets on several tools is reported once, at the override', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    writeFileSync(join(dir, 'kinds.mjs'), `export { toolmanPlugin } from ${JSON.stringify(join(ROOT, 'test/fixtures/plugins/plugins/kinds.mjs'))};\n`);
    writeFileSync(
      join(dir, 'c.yaml'),
      'toolman: 1\ntools:\n  - name: a\n    description: The first tool the override gives a plugin.\n    handler: { mock: [{ result: 1 }] }\n  - name: b\n    description: The second tool the override gives a plugin.\n    handler: { mock: [{ result: 2 }] }\noverrides:\n  - tools: [a, b]\n    set:\n      handler: { plugin: ./kinds.mjs#echo, config: { greeting: 7 } }\n',
    );
    const found = (await validate(join(dir, 'c.yaml'), dir)).filter((d) => d.code === 'TM0743');
    expect(found).toEqual([expect.objectContaining({ line: 12, column: 64, message: expect.stringContaining('config.greeting must be string (got 7)') })]);
  });

  it('says when a plugin is written for another apiVersion, or throws while loading', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    for (const name of ['future', 'throws']) writeFileSync(join(dir, `${name}.mjs`), `export * from ${JSON.stringify(join(ROOT, `test/fixtures/plugins/plugins/${name}.mjs`))};\n`);
    writeFileSync(
      join(dir, 'c.yaml'),
      'toolman: 1\ntools:\n  - name: a\n    description: A plugin made for a later toolman.\n    handler: { plugin: ./future.mjs#kv }\n  - name: b\n    description: A plugin that cannot start at all.\n    handler: { plugin: ./throws.mjs#kv }\n',
    );
    const found = (await validate(join(dir, 'c.yaml'), dir)).filter((d) => d.code === 'TM0741').map((d) => d.message);
    expect(found).toEqual([expect.stringContaining('is written for plugin apiVersion 2; this toolman speaks 1'), expect.stringContaining('cannot be loaded: cannot load plugin ./throws.mjs: cannot start: no database')]);
  });

  it('a catalog without plugin problems has no plugin findings, and the shipped example validates clean', async () => {
    expect((await validate('catalogs/coding.yaml')).filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('a plugin tool runs through the executor', () => {
  it('gets its config (${env:} filled, a secret from then on) and the checked arguments', async () => {
    const events: CallEvent[] = [];
    const { session } = await open(CATALOG, { onEvent: (e) => events.push(e) });
    const response = await runOne(session, 'echo', { word: 'hi' });
    expect(response.ok, response.error ?? '').toBe(true);
    expect(JSON.parse(response.content)).toEqual({ greeting: 'hello', token: '[redacted]', args: { word: 'hi' } });
    expect(events.some((e) => e.type === 'tool_progress' && e.message === 'echoing for echo')).toBe(true);
  });

  it('validates arguments against the tool\'s parameters before the plugin sees them', async () => {
    const { session } = await open();
    expect(await runOne(session, 'echo', { wrod: 'hi' })).toMatchObject({ ok: false, error_kind: 'invalid_arguments' });
  });

  it('asks for confirmation of a destructive plugin tool, and a declined call never runs', async () => {
    const asked: string[] = [];
    const { session } = await open(CATALOG, { approve: async (r) => (asked.push(r.tool.name), 'decline') });
    expect(await runOne(session, 'shout')).toMatchObject({ ok: false, error_kind: 'declined' });
    expect(asked).toEqual(['shout']);
    expect(JSON.parse((await runOne(session, 'state')).content).created).not.toContain('HEY');
  });

  it('creates one runner per kind and config, shared by the tools that give the same one', async () => {
    const { session } = await open();
    await runOne(session, 'echo', { word: 'a' });
    await runOne(session, 'echo_again', { word: 'b' });
    const state = JSON.parse((await runOne(session, 'state')).content);
    expect(state.created).toEqual(['hello', 'state']);
    expect(state.catalogDir).toBe('fixtures/plugins');
  });

  it('times out a plugin call, cuts a long result, and keeps a crash to its call', async () => {
    const { session } = await open();
    expect(await runOne(session, 'slow')).toMatchObject({ ok: false, error_kind: 'timeout' });
    expect(await runOne(session, 'big')).toMatchObject({ ok: true, truncated: true });
    expect(await runOne(session, 'crash')).toMatchObject({ ok: false, error: 'crash failed: plugin ./plugins/kinds.mjs threw outside the call: plugin boom' });
    expect((await runOne(session, 'echo', { word: 'still here' })).ok).toBe(true);
  });

  it('a stateful plugin tool yields through job_next', async () => {
    const { session } = await open();
    const first = await runOne(session, 'stream', { topic: 'tides' });
    const started = JSON.parse(first.content);
    expect(started).toMatchObject({ job_id: first.job_id, yields: [{ n: 1, value: { part: 1, of: 'tides' } }] });
    const rest = JSON.parse((await runOne(session, 'job_next', { job_id: started.job_id, until: 'end', wait_ms: 5000 })).content);
    expect(rest).toMatchObject({ status: 'done', yields: [{ n: 2 }, { n: 3 }], result: { parts: 3 } });
  });

  it('runs its other kind, and says why a broken handler cannot run', async () => {
    const { session } = await open();
    expect(await runOne(session, 'queue')).toMatchObject({ ok: true, content: 'queued' });
    expect(await runOne(session, 'broken_config')).toMatchObject({ ok: false, error: expect.stringMatching(/^broken_config cannot run: its plugin config does not match what \.\/plugins\/kinds\.mjs#echo accepts: config\.greeting must be string \(got 42\) \(test\/fixtures\/plugins\/plugins\.yaml, run toolman validate\)$/) });
    expect(await runOne(session, 'missing')).toMatchObject({ ok: false, error: expect.stringMatching(/^missing cannot run: the plugin \.\/plugins\/nowhere\.mjs does not exist/) });
  });

  it('lets the runners close what they opened when toolman closes', async () => {
    const { manager, session } = await open();
    await runOne(session, 'echo', { word: 'a' });
    await manager.close();
    // A new manager has a new worker: the old one's close() ran before it stopped (seen through its output).
    const logged: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    writeFileSync(join(dir, 'p.mjs'), 'export const toolmanPlugin = { apiVersion: 1, kinds: { k: { configSchema: { type: "object" }, create: () => ({ run: async () => "ran", close: () => console.log("closed cleanly") }) } } };\n');
    writeFileSync(join(dir, 'c.yaml'), 'toolman: 1\ntools:\n  - name: t\n    description: A plugin whose runner says when it closes.\n    handler: { plugin: ./p.mjs }\n');
    const other = await ToolManager.open({ catalogs: [join(dir, 'c.yaml')], cwd: dir, log: (text) => logged.push(text) });
    const otherSession = await other.session();
    expect(await runOne(otherSession, 't')).toMatchObject({ ok: true, content: 'ran' });
    await other.close();
    expect(logged.join('')).toContain('closed cleanly');
  });
});

describe('plugins are found the way Node imports from the catalog\'s folder', () => {
  function project(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }
  const plugin = (answer: string) => `export const toolmanPlugin = { apiVersion: 1, kinds: { say: { configSchema: { type: 'object' }, create: () => ({ run: async () => ${JSON.stringify(answer)} }) } } };\n`;
  const catalog = (spec: string) => `toolman: 1\ntools:\n  - name: say\n    description: Says what its plugin says, to test resolution.\n    handler: { plugin: ${JSON.stringify(spec)} }\n`;

  it('a package in node_modules above the catalog, through its exports (import condition only)', async () => {
    const dir = project({
      'node_modules/@acme/toolman-say/package.json': JSON.stringify({ name: '@acme/toolman-say', type: 'module', exports: { '.': { import: './esm.mjs' } } }),
      'node_modules/@acme/toolman-say/esm.mjs': plugin('from node_modules'),
      'catalogs/deep/c.yaml': catalog('@acme/toolman-say#say'),
    });
    const { session } = await open(join(dir, 'catalogs/deep/c.yaml'), { cwd: dir });
    expect(await runOne(session, 'say')).toMatchObject({ ok: true, content: 'from node_modules' });
  });

  it('a folder with a package.json main, and a plugin with one kind named without #kind', async () => {
    const dir = project({ 'vendor/say/package.json': JSON.stringify({ name: 'say', main: 'lib/main.mjs' }), 'vendor/say/lib/main.mjs': plugin('from main'), 'c.yaml': catalog('./vendor/say') });
    const { session } = await open(join(dir, 'c.yaml'), { cwd: dir });
    expect(await runOne(session, 'say')).toMatchObject({ ok: true, content: 'from main' });
  });

  it('never a built-in module', async () => {
    const dir = project({ 'c.yaml': catalog('node:fs#say') });
    expect((await validate(join(dir, 'c.yaml'), dir)).find((d) => d.code === 'TM0740')?.message).toContain('is one of Node\'s built-in modules, not a plugin');
  });
});

describe('a catalog named by a recording or a suite never loads a plugin', () => {
  it('its plugin tools are refused and the plugin\'s code never runs, not even for validate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-'));
    temps.push(dir);
    const marker = join(dir, 'loaded');
    writeFileSync(join(dir, 'p.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport const toolmanPlugin = { apiVersion: 1, kinds: { k: { configSchema: { type: 'object' }, create: () => ({ run: async () => 'ran' }) } } };\n`);
    writeFileSync(join(dir, 'c.yaml'), 'toolman: 1\ntools:\n  - name: t\n    description: A plugin that leaves a mark when it loads.\n    mode: stateful\n    handler: { plugin: ./p.mjs#k }\n  - name: u\n    description: The same plugin, run directly.\n    handler: { plugin: ./p.mjs#k }\n');
    const { manager, session } = await open(join(dir, 'c.yaml'), { cwd: dir, namedBy: 'the recording r.jsonl' });
    await manager.checkPlugins();
    expect(await runOne(session, 'u')).toMatchObject({ ok: false, error: expect.stringContaining('not run: u has a plugin handler, and this catalog was loaded because the recording r.jsonl names it') });
    expect(await runOne(session, 't')).toMatchObject({ ok: false, error: expect.stringContaining('not run: t has a plugin handler') });
    expect(existsSync(marker)).toBe(false);
  });
});
