import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';
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
    // The docs on the project's repository (package.json), never a file:// path: the headings are
    // this checkout's. Without a repository or homepage in package.json, no helpUri is made up.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository?: unknown; homepage?: unknown };
    if (pkg.repository === undefined && pkg.homepage === undefined) {
      expect(rules[0]!.helpUri).toBeUndefined();
      return;
    }
    expect(rules[0]!.helpUri).toMatch(/^https:\/\/.*\/docs\/diagnostics\.md#/);
    const headings = new Set(
      readFileSync(join(ROOT, 'docs', 'diagnostics.md'), 'utf8')
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

describe('what the review of these items found', () => {
  const write = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-review-'));
    writeFileSync(join(dir, 'c.yaml'), text);
    return { dir, file: join(dir, 'c.yaml') };
  };
  const broken = `toolman: 1\nformat: { strict: true }\ntools:\n  - name: find\n    description: Find documents that match a query in the index.\n    parameters:\n      type: object\n      properties:\n        q: { type: str, description: The query. }\n        limit: { type: integer, description: How many. }\n    handler: { mock: [ { result: ok } ] }\n`;

  it.each([['format', '--provider', 'openai'], ['budget'], ['call', 'find', '--args', '{"q": "x"}']])('%s refuses a catalog validate finds errors in; list still shows it', async (...args) => {
    const { dir } = write(broken);
    const run = await runMain(['-c', 'c.yaml', ...args], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the catalog has 1 error; first:');
    expect((await runMain(['-c', 'c.yaml', 'list'], { cwd: dir })).code).toBe(0);
  });

  it('errors cannot be turned down: not by --rule, not by lint, not by a disable comment', async () => {
    const { dir } = write(broken.replace('format: { strict: true }', 'lint: { TM0301: off }').replace('        q: {', '        # toolman-disable-next-line TM0301\n        q: {'));
    expect((await runMain(['validate', 'c.yaml', '--rule', 'TM0301=off'], { cwd: dir })).code).toBe(2);
    const run = await runMain(['validate', 'c.yaml', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const found = diagnosticsOf(run.stdout).map((d) => `${d.code} ${d.severity} ${d.line}`);
    expect(found).toEqual(['TM0103 error 2', 'TM0103 warning 9', 'TM0301 error 10']);
  });

  it('call --provider decodes with the catalog\'s format settings (strict: null means absent)', async () => {
    const { dir } = write(broken.replace('type: str,', 'type: string,'));
    const run = await runMain(['-c', 'c.yaml', 'call', 'find', '--provider', 'openai', '--args', '{"q": "x", "limit": null}'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
  });

  it('reports schema problems that used to wait for a second run, each in words', async () => {
    const run = await runMain(['validate', `${authoring}/waves.yaml`, '--json']);
    const found = diagnosticsOf(run.stdout).map((d) => `${d.line} ${d.code}`);
    expect(found).toEqual(['8 TM0305', '9 TM0301', '10 TM0301', '11 TM0301', '12 TM0301', '13 TM0301']);
    expect(run.stdout).not.toContain('ajv (strict mode)');
  });

  it('a mock case on an open object (additionalProperties: true) is not "never matches"', async () => {
    const { dir } = write('toolman: 1\ntools:\n  - name: t\n    description: A tool that takes any keys at all, by design.\n    parameters: { type: object, additionalProperties: true }\n    handler: { mock: [ { when: { anything: 1 }, result: one }, { result: other } ] }\n');
    expect(diagnosticsOf((await runMain(['validate', 'c.yaml', '--json'], { cwd: dir })).stdout).map((d) => d.code)).toEqual(['TM0402']);
  });

  it('a catalog file given to a command that takes none gets a hint', async () => {
    const run = await runMain(['show', 'catalogs/assistant.yaml', 'add_calendar_event']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('catalog files go after --catalog');
  });

  it('a call\'s JSON written after the tool name gets a hint naming --args; a catalog after -c is no extra word', async () => {
    const run = await runMain(['-c', 'catalogs/assistant.yaml', 'call', 'list_calendar_events', '{"start": "2026-11-24"}']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("a call's arguments go in --args");
    expect(run.stderr).not.toContain('catalog files go after --catalog');
    const other = await runMain(['-c', 'catalogs/assistant.yaml', 'show', 'add_calendar_event', 'extra']);
    expect(other.code).toBe(2);
    expect(other.stderr).not.toContain('hint:');
  });

  it('SARIF gives a file outside the working folder its own file URL', async () => {
    const { file } = write(broken);
    const log = JSON.parse((await runMain(['validate', file, '--format', 'sarif'])).stdout) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }[] }[] };
    const location = log.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation;
    expect(location).toEqual({ uri: `file://${file}` });
  });

  it('call --batch reads JSONL that starts with a byte-order mark; a JSON error does not quote the file', async () => {
    const { dir } = write('');
    writeFileSync(join(dir, 'calls.jsonl'), '\uFEFF{"id": "a", "name": "lookup", "arguments": {"key": "x"}}\r\n');
    const run = await runMain(['-c', join(process.cwd(), 'test/fixtures/catalogs/executor.yaml'), 'call', '--batch', 'calls.jsonl'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    writeFileSync(join(dir, 'args.json'), 'sk-live-secret-value');
    const bad = await runMain(['-c', join(process.cwd(), 'test/fixtures/catalogs/executor.yaml'), 'call', 'lookup', '--args-file', 'args.json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('args.json is not valid JSON');
    expect(bad.stderr).not.toContain('secret-value');
  });

  it('the same file named twice is one catalog, not two', async () => {
    const run = await runMain(['-c', 'test/fixtures/catalogs/selection.yaml', '-c', './test/fixtures/catalogs/selection.yaml', 'list', '--json']);
    const once = await runMain(['-c', 'test/fixtures/catalogs/selection.yaml', 'list', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).tools).toHaveLength(JSON.parse(once.stdout).tools.length);
  });

  it('TM0503 points at the override that made a destructive tool never ask', async () => {
    const { dir } = write('toolman: 1\ninclude: [./tools.yaml]\noverrides:\n  - tools: [drop_table]\n    set: { confirm: never }\n');
    writeFileSync(join(dir, 'tools.yaml'), 'toolman: 1\ntools:\n  - name: drop_table\n    description: Drop a database table and every row in it, for good.\n    effect: destructive\n    handler: { mock: [ { result: dropped } ] }\n');
    const found = diagnosticsOf((await runMain(['validate', 'c.yaml', '--json'], { cwd: dir })).stdout);
    expect(found).toEqual([expect.objectContaining({ code: 'TM0503', file: 'c.yaml', line: 5 })]);
  });
});

describe('the cache of validated catalogs', () => {
  it('remembers a clean catalog by content, never one with errors, and forgets it when the file changes', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-cache-'));
    const dir = mkdtempSync(join(tmpdir(), 'toolman-cached-'));
    const file = join(dir, 'c.yaml');
    const good = 'toolman: 1\ntools:\n  - name: ping\n    description: Answer pong, to check that the tool loop works.\n    handler: { mock: [ { result: pong } ] }\n';
    writeFileSync(file, good);
    const env = { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: join(cache, '..', 'state') };
    expect((await runMain(['-c', file, 'call', 'ping'], { env })).code).toBe(0);
    const entries = () => readdirSync(join(cache, 'validated'));
    expect(entries()).toHaveLength(1);
    expect((await runMain(['-c', file, 'call', 'ping'], { env })).code).toBe(0);
    expect(entries()).toHaveLength(1);
    writeFileSync(file, good.replace('handler:', 'parameters: { type: object, properties: { x: { type: str } } }\n    handler:'));
    const broken = await runMain(['-c', file, 'call', 'ping'], { env });
    expect(broken.code).toBe(1);
    expect(entries()).toHaveLength(1);
  });
});
