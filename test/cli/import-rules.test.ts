import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';

const annotations = join(FIXTURES, 'import', 'mcp-annotations.json');
const fresh = () => mkdtempSync(join(tmpdir(), 'toolman-import-rules-'));

describe('import follows MCP\'s annotation defaults and says what it decided', () => {
  it('makes unannotated tools destructive, keeps explicit hints, counts tools by effect', async () => {
    const run = await runMain(['import', annotations, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    const changes = Object.fromEntries(report.tools.map((t: { name: string; changes: string[] }) => [t.name, t.changes]));
    expect(changes.delete_uptime_monitor).toContain("no annotations: by MCP's defaults (readOnlyHint false, destructiveHint true) it may be destructive, so effect: destructive");
    expect(changes.pause_monitor).toContain("no readOnlyHint or destructiveHint: by MCP's defaults it may be destructive, so effect: destructive");
    expect(changes.list_monitors).toEqual(expect.arrayContaining(['readOnlyHint: true became effect: read', 'idempotentHint and openWorldHint became tags', 'dropped field "requiredScopes" (the catalog has no place for it)', 'dropped field "_meta" (the catalog has no place for it)']));
    expect(changes.rename_monitor).toEqual(expect.arrayContaining(['destructiveHint: false became effect: write', 'openWorldHint: false noted (nothing to set)']));
    expect(report.effects).toEqual({ read: 1, write: 1, destructive: 2, unset: 0, native: 0 });
    const catalog = load(report.yaml) as { tools: { name: string; effect: string; tags?: string[] }[] };
    expect(catalog.tools.map((t) => [t.name, t.effect])).toEqual([['delete_uptime_monitor', 'destructive'], ['pause_monitor', 'destructive'], ['list_monitors', 'read'], ['rename_monitor', 'write']]);
    expect(catalog.tools[2]!.tags).toEqual(['idempotent', 'open-world']);
    const text = await runBin(['import', annotations]);
    expect(text.stderr).toMatch(/effects: 1 read, 1 write, 2 destructive \(destructive tools ask for confirmation\)/);
  });

  it('turns a draft-07 tuple into one strict ajv accepts: the written catalog validates', async () => {
    const dir = fresh();
    const run = await runBin(['import', annotations, '-o', join(dir, 'out.yaml')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/✔ imported 4 tools/);
    expect(run.stderr).toMatch(/validate: 0 errors/);
    const catalog = load(readFileSync(join(dir, 'out.yaml'), 'utf8')) as { tools: { parameters: { properties: Record<string, unknown> } }[] };
    expect(catalog.tools[3]!.parameters.properties.position).toEqual({ type: 'array', prefixItems: [{ type: 'number', description: 'Latitude' }, { type: 'number', description: 'Longitude' }], minItems: 2, items: false, description: 'Where on the map' });
    expect((await runBin(['validate', join(dir, 'out.yaml')])).code).toBe(0);
  });

  it('validates what it wrote (to a file or to standard output) and exits 1 when it does not validate', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'broken.json'), JSON.stringify([{ name: 'find', description: 'Find things by a pattern in the index.', parameters: { type: 'object', properties: { q: { type: 'string', pattern: '(unclosed', description: 'Query' } } } }]));
    for (const args of [[], ['-o', join(dir, 'out.yaml')]]) {
      const run = await runBin(['import', join(dir, 'broken.json'), ...args]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/✖ imported 1 tool/);
      expect(run.stderr).toMatch(/validate: [1-9]\d* errors?/);
      expect(run.stderr).toMatch(/error TM0301 .*Invalid regular expression/);
      expect(run.stderr).toMatch(/the imported catalog does not validate/);
    }
  });
});

describe('import reads back what toolman itself writes for Gemini, and hints written as text', () => {
  it('round trip: what format -P gemini prints imports into a catalog that validates', async () => {
    const dir = fresh();
    const formatted = await runBin(['--catalog', 'test/fixtures/catalogs/provider-rules.yaml', 'format', '-P', 'gemini', '--tool', 'add_contact']);
    writeFileSync(join(dir, 'gemini.json'), formatted.stdout);
    const run = await runBin(['import', join(dir, 'gemini.json'), '-o', join(dir, 'out.yaml')]);
    expect(run.stderr).toMatch(/validate: 0 errors/);
    expect(run.code).toBe(0);
    const catalog = load(readFileSync(join(dir, 'out.yaml'), 'utf8')) as { tools: { parameters: { properties: Record<string, unknown> } }[] };
    // int64 fields written as text are numbers again; `example` is `examples`.
    expect(catalog.tools[0]!.parameters.properties._1st_contact).toEqual({ type: 'string', minLength: 2, description: 'Name of the first contact' });
    expect(catalog.tools[0]!.parameters.properties.when).toEqual({ type: 'string', examples: ['2026-11-23'], description: 'The day (format: date)' });
  });

  it('imports Gemini enums and draft-04 bounds into a catalog that validates, and string hints as booleans', async () => {
    const dir = fresh();
    const run = await runBin(['import', join(FIXTURES, 'import', 'gemini-enums.json'), '-o', join(dir, 'enums.yaml')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/1 × enum values written as text on an integer became numbers/);
    expect(load(readFileSync(join(dir, 'enums.yaml'), 'utf8'))).toMatchObject({ tools: [{ parameters: { properties: { priority: { type: 'integer', enum: [1, 2, 3], default: 2 }, threshold: { exclusiveMinimum: 0, maximum: 100 } } } }] });
    // The enum can be satisfied: a call with priority 2 passes argument validation (it did not with "2").
    writeFileSync(join(dir, 'catalog.yaml'), ['toolman: 1', 'include: [enums.yaml]', 'overrides:', '  - tools: [set_priority]', '    set: { handler: { mock: [{ result: ok }] } }', ''].join('\n'));
    const call = await runBin(['--catalog', join(dir, 'catalog.yaml'), 'call', 'set_priority', '--args', '{"priority":2,"threshold":1}']);
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    const hints = await runBin(['import', join(FIXTURES, 'import', 'mcp-string-hints.json')]);
    expect(hints.code).toBe(0);
    expect(hints.stderr).toMatch(/effects: 1 read, 1 write, 1 destructive/);
    expect(hints.stdout).toMatch(/# import: readOnlyHint was the string "true"; read as true/);
  });
});

describe('import never lets input become catalog structure', () => {
  it('escapes names and values that would break out of a comment (an injected exec tool stays text)', async () => {
    const dir = fresh();
    const evil = 'x\n  - name: pwned\n    description: Runs whatever it is given, very handy.\n    handler: { exec: { argv: [touch, /tmp/toolman-pwned] } }\n#';
    writeFileSync(join(dir, 'evil.json'), JSON.stringify({ tools: [{ name: evil, description: 'A tool with a hostile name.', inputSchema: { $schema: `http://x\n  - name: pwned2\n    handler: { exec: { argv: [id] } }`, type: 'object', properties: {} } }] }));
    const out = join(dir, 'out.yaml');
    const run = await runBin(['import', join(dir, 'evil.json'), '-o', out]);
    expect(run.code).toBe(0);
    const catalog = load(readFileSync(out, 'utf8')) as { tools: { name: string; handler?: unknown }[] };
    expect(catalog.tools).toHaveLength(1);
    expect(catalog.tools[0]!.handler).toBeUndefined();
    const validate = JSON.parse((await runBin(['validate', out, '--json'])).stdout);
    expect(validate.summary.errors).toBe(0);
    const listed = JSON.parse((await runMain(['--catalog', out, 'list', '--json'])).stdout);
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual([catalog.tools[0]!.name]);
  });

  it('refuses a YAML alias bomb at once, with the location', async () => {
    const dir = fresh();
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]', 'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]', 'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]', 'tools: [*g]', ''].join('\n');
    writeFileSync(join(dir, 'bomb.yaml'), bomb);
    const started = performance.now();
    const run = await runBin(['import', join(dir, 'bomb.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bomb.yaml:\d+:\d+ is not valid YAML: aliases expand this document to more than 1,000,000 nodes/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('overrides adjust an imported tool set without editing it', () => {
  const setup = async () => {
    const dir = fresh();
    copyFileSync(join(FIXTURES, 'catalogs', 'overrides', 'catalog.yaml'), join(dir, 'catalog.yaml'));
    expect((await runBin(['import', annotations, '-o', join(dir, 'imported.yaml')])).code).toBe(0);
    return dir;
  };

  it('sets fields by name or pattern; list --explain and show say which override set what', async () => {
    const dir = await setup();
    const catalog = ['--catalog', join(dir, 'catalog.yaml')];
    const explain = JSON.parse((await runMain([...catalog, 'list', '--explain', '--json'], { cwd: dir })).stdout);
    const byName = Object.fromEntries(explain.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.list_monitors).toMatchObject({ state: 'deferred', rule: 'defer_loading', overrides: [{ fields: ['defer_loading', 'keywords', 'prompts'], line: 9 }] });
    expect(byName.delete_uptime_monitor.overrides).toEqual([expect.objectContaining({ fields: ['confirm', 'category'], line: 7 })]);
    const shown = JSON.parse((await runMain([...catalog, 'show', 'pause_monitor', '--json'], { cwd: dir })).stdout);
    expect(shown).toMatchObject({ confirm: 'always', category: 'danger', effect: 'destructive' });
    const text = await runMain([...catalog, 'show', 'list_monitors'], { cwd: dir });
    expect(text.stdout).toMatch(/overridden\s+defer_loading, keywords, prompts \(.*catalog.yaml:9:5\)/);
  });

  it('flags an override that matches no tool (TM0605)', async () => {
    const dir = await setup();
    const run = JSON.parse((await runMain(['validate', join(dir, 'catalog.yaml'), '--json'], { cwd: dir })).stdout);
    const found = run.diagnostics.filter((d: { code: string }) => d.code === 'TM0605' || d.code === 'TM0603');
    expect(found).toEqual([expect.objectContaining({ code: 'TM0605', severity: 'warning', line: 14, message: expect.stringMatching(/overrides\[2\]: this override matches no tool \(nothing_here\)/) })]);
  });

  it('keeps the overrides when the tools are imported again', async () => {
    const dir = await setup();
    expect((await runBin(['import', annotations, '-o', join(dir, 'imported.yaml'), '--force'])).code).toBe(0);
    const shown = JSON.parse((await runMain(['--catalog', join(dir, 'catalog.yaml'), 'show', 'delete_uptime_monitor', '--json'], { cwd: dir })).stdout);
    expect(shown).toMatchObject({ confirm: 'always', category: 'danger' });
  });
});
