import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { clip } from '../../src/cli/output/clip.js';

const authoring = 'test/fixtures/catalogs/authoring';
interface JsonDiagnostic {
  code: string;
  severity: string;
  message: string;
  hint?: string;
  line: number;
  pointer: string;
}
const diagnosticsOf = (stdout: string) => (JSON.parse(stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics;

describe('validate explains authoring mistakes once, in the author\'s words', () => {
  it('reports every schema mistake in one pass, each with its suggestion and nothing else', async () => {
    const run = await runMain(['validate', `${authoring}/mistakes.yaml`, '--json']);
    expect(run.code).toBe(1);
    const found = diagnosticsOf(run.stdout).map((d) => `${d.line} ${d.code} ${d.message.replace(/^tools\[\d+\] "[a-z_]+": /, '')}`);
    expect(found).toEqual([
      '1 TM0101 unknown key "version"; did you mean "toolman"?',
      '10 TM0301 parameters.properties.url: type "str" is not a JSON Schema type; did you mean "string"?',
      '11 TM0301 parameters.properties.url: unknown keyword "descripton"; did you mean "description"?',
      '12 TM0301 parameters.properties.url: `required: true` on a property does nothing in JSON Schema',
      '15 TM0301 parameters.properties.limit: unknown keyword "maxlength"; did you mean "maxLength"?',
      '17 TM0301 parameters: unknown keyword "requried"; did you mean "required"?',
      '20 TM0101 unknown key "descripton"; did you mean "description"?',
      '21 TM0101 unknown key "input_schema"; did you mean "parameters"?',
      '29 TM0302 parameters has no `type`; the root must be `type: object`',
    ]);
    const required = diagnosticsOf(run.stdout).find((d) => d.line === 12)!;
    expect(required.hint).toBe('remove it and list "url" in the parent\'s `required` instead');
    const noType = diagnosticsOf(run.stdout).find((d) => d.code === 'TM0302')!;
    expect(noType.hint).toBe('add `type: object` beside `properties`');
  });

  it.each([
    ['inputSchema', 'parameters'],
    ['params', 'parameters'],
  ])('suggests "%s" → "%s" at tool level instead of listing every key', async (key, suggestion) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-alias-'));
    writeFileSync(
      join(dir, 'c.yaml'),
      `toolman: 1\ntools:\n  - name: t\n    description: A tool that exists to test the key aliases.\n    ${key}: { type: object, properties: {} }\n    handler: { mock: [ { result: ok } ] }\n`,
    );
    const run = await runMain(['validate', 'c.yaml', '--json'], { cwd: dir });
    const [only, ...rest] = diagnosticsOf(run.stdout);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ code: 'TM0101', hint: `rename it to "${suggestion}"` });
  });

  it('recognises text cut off at a comma inside { } and says to quote it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-comma-'));
    writeFileSync(
      join(dir, 'c.yaml'),
      'toolman: 1\ntools:\n  - name: t\n    description: A tool that exists to test flow mappings.\n    parameters:\n      type: object\n      properties:\n        zone: { type: string, description: Time zone, e.g. Europe/Paris }\n    handler: { mock: [ { result: ok } ] }\n',
    );
    const run = await runMain(['validate', 'c.yaml', '--json'], { cwd: dir });
    expect(diagnosticsOf(run.stdout)).toEqual([expect.objectContaining({ code: 'TM0301', line: 8, hint: expect.stringContaining('quote the value that contains the comma') })]);
  });

  it('says a handler written as `kind: mock` once, with the shape to write', async () => {
    const run = await runMain(['validate', `${authoring}/tagged-handler.yaml`, '--json']);
    expect(diagnosticsOf(run.stdout)).toEqual([expect.objectContaining({ code: 'TM0701', line: 10, hint: 'write handler: { mock: [ { result: ... } ] }' })]);
  });
});

describe('rule settings: lint section, --rule and disable comments', () => {
  const lint = `${authoring}/lint.yaml`;

  it('applies the catalog\'s lint levels and the disable comment', async () => {
    const run = await runMain(['validate', lint, '--json']);
    expect(run.code).toBe(1);
    expect(diagnosticsOf(run.stdout).map((d) => `${d.code} ${d.severity}`)).toEqual(['TM0205 error']);
  });

  it('--rule overrides the lint section; the disable comment still holds for its line', async () => {
    const run = await runMain(['validate', lint, '--json', '--rule', 'TM0304=warning', '--rule', 'short-description=off']);
    expect(run.code).toBe(0);
    const found = diagnosticsOf(run.stdout);
    expect(found.map((d) => `${d.code} ${d.severity} ${d.line}`)).toEqual(['TM0304 warning 12']);
  });

  it('refuses an unknown rule on the command line with exit 2, and in the lint section as TM0101', async () => {
    const bad = await runMain(['validate', lint, '--rule', 'TM9999=off']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('TM9999');
    const level = await runMain(['validate', lint, '--rule', 'TM0304=loud']);
    expect(level.code).toBe(2);
    const dir = mkdtempSync(join(tmpdir(), 'toolman-lint-'));
    writeFileSync(join(dir, 'c.yaml'), readFileSync(lint, 'utf8').replace('short-description: error', 'short-descripton: error'));
    const run = await runMain(['validate', 'c.yaml', '--json'], { cwd: dir });
    expect(diagnosticsOf(run.stdout)).toContainEqual(expect.objectContaining({ code: 'TM0101', message: 'unknown rule "short-descripton" in lint; did you mean "short-description"?' }));
  });

  it('SARIF rules carry help text and a helpUri whose anchor is a heading of docs/diagnostics.md', async () => {
    const run = await runMain(['validate', lint, '--format', 'sarif']);
    const log = JSON.parse(run.stdout) as { runs: { tool: { driver: { rules: { id: string; name: string; help?: { text: string }; helpUri: string }[] } }; results: { ruleId: string; level: string }[] }[] };
    const rules = log.runs[0]!.tool.driver.rules;
    const docs = fileURLToPath(rules[0]!.helpUri.split('#')[0]!);
    const headings = new Set(
      readFileSync(docs, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('### '))
        .map((l) => l.slice(4).toLowerCase().replace(/\s+/g, '-')),
    );
    for (const rule of rules) {
      expect(rule.help?.text.length, rule.id).toBeGreaterThan(40);
      expect(headings.has(rule.helpUri.split('#')[1]!), rule.helpUri).toBe(true);
    }
    expect(log.runs[0]!.results).toEqual([expect.objectContaining({ ruleId: 'TM0205', level: 'error' })]);
  });
});

describe('every command keeps the CLI promises', () => {
  const selection = ['--catalog', 'test/fixtures/catalogs/selection.yaml'];

  it('schema --json prints the catalog schema as JSON', async () => {
    const run = await runMain(['schema', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ title: 'toolman catalog' });
  });

  it.each([
    [['show', 'nope'], 'UNKNOWN_TOOL', 2],
    [['call', 'nope'], 'UNKNOWN_TOOL', 2],
    [['list', '--catalog', 'missing.yaml'], 'FILE_UNREADABLE', 2],
  ])('%j with --json prints a JSON error document and the documented exit', async (args, code, exit) => {
    const run = await runMain([...selection, ...args, '--json']);
    expect(run.code).toBe(exit);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { code, exit } });
  });

  it('a command refusing a broken catalog counts its errors as validate does', async () => {
    const validate = await runMain(['validate', `${authoring}/mistakes.yaml`, '--json']);
    const errors = diagnosticsOf(validate.stdout).filter((d) => d.severity === 'error').length;
    const list = await runMain(['list', `${authoring}/mistakes.yaml`]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`the catalog has ${errors} errors`);
  });

  it('list and profiles take catalog files as arguments, like validate', async () => {
    const list = await runMain(['list', 'test/fixtures/catalogs/selection.yaml', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ catalog: 'selection', tools: expect.any(Array) });
    const profiles = await runMain(['profiles', 'test/fixtures/catalogs/selection.yaml']);
    expect(profiles.code).toBe(0);
  });

  it('subcommand help shows the global --catalog option', async () => {
    const run = await runBin(['list', '--help']);
    expect(run.stdout).toMatch(/-c, --catalog <file>/);
  });

  it('cuts long cells at a word with an ellipsis', () => {
    expect(clip('Search the mailbox for messages matching a query and return their ids', 30)).toBe('Search the mailbox for…');
    expect(clip('short text', 30)).toBe('short text');
    expect(clip('x'.repeat(40), 10)).toBe('xxxxxxxxx…');
  });

  it('call --batch takes JSONL, one call per line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-jsonl-'));
    const file = join(dir, 'calls.jsonl');
    writeFileSync(file, '{"id": "a", "name": "lookup", "arguments": {"key": "x"}}\n\n{"id": "b", "name": "lookup", "arguments": {"key": "y"}}\n');
    const run = await runMain(['--catalog', 'test/fixtures/catalogs/executor.yaml', 'call', '--batch', file, '--json']);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { responses: { id: string; ok: boolean }[] }).responses.map((r) => [r.id, r.ok])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    writeFileSync(file, '{"id": "a", "name": "lookup"}\n{oops\n');
    const broken = await runMain(['--catalog', 'test/fixtures/catalogs/executor.yaml', 'call', '--batch', file]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('calls.jsonl:2');
  });

  it('eval search lists the queries that missed, with what ranked first instead', async () => {
    const cases = 'test/fixtures/eval/large-cases.jsonl';
    const run = await runMain([...selection, 'eval', 'search', '--cases', cases]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\d+ quer(y|ies) missed a gold tool in the top 10/);
    expect(run.stdout).toMatch(/missing: no_such_tool; top: /);
    const none = await runMain([...selection, 'eval', 'search', '--cases', cases, '--misses', '0']);
    expect(none.stdout).not.toContain('missing:');
    expect(none.stdout).toContain('list them with --misses N');
    const bad = await runMain([...selection, 'eval', 'search', '--cases', cases, '--misses', 'some']);
    expect(bad.code).toBe(2);
  });
});
