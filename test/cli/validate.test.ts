import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';

const broken = 'test/fixtures/diagnostics/TM0303-required-not-property.yaml';

describe('toolman validate (built binary)', () => {
  it('passes every shipped catalog with exit 0 and a summary; the only warnings are two confusable pairs (TM1001) of large.yaml', async () => {
    const run = await runBin(['validate', 'catalogs/assistant.yaml', 'catalogs/coding.yaml', 'catalogs/enterprise.yaml', 'catalogs/large.yaml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/0 errors, 2 warnings, \d+ infos? \(\d+ tools in 14 files\)/);
    // search_contacts (the address book) / search_people (the employee directory), db_query_readonly / db_explain.
    expect(run.stdout.split('\n').filter((line) => / warning /.test(line)).every((line) => line.includes(' TM1001 '))).toBe(true);
  });

  it('prints file:line:col severity code message, a code frame and a hint, and exits 1', async () => {
    const run = await runBin(['validate', broken]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`${broken}:9:25 error TM0303 tools[0] "search": parameters.required names "q", which is not a property`);
    expect(lines[1]).toMatch(/^ +8 \| {9}query:/);
    expect(lines[2]).toMatch(/^ {2}> +9 \| {7}required: \[query, q\]$/);
    // The caret sits under the offending item.
    expect(lines[3]!.indexOf('^')).toBe(lines[2]!.indexOf('q]'));
    expect(run.stdout).toContain('hint: defined properties: query');
    expect(run.stdout).toMatch(/✖ 1 error, 0 warnings, 0 infos/);
  });

  it('--json prints exactly one document of the documented shape', async () => {
    const run = await runBin(['validate', '--json', broken]);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({
      ok: false,
      files: [broken],
      summary: { errors: 1, warnings: 0, infos: 0 },
      diagnostics: [{ code: 'TM0303', severity: 'error', file: broken, line: 9, column: 25, tool: 'search', pointer: '/tools/0/parameters/required/1' }],
    });
    expect(typeof doc.diagnostics[0].message).toBe('string');
  });

  it('--format sarif writes SARIF 2.1.0 with rules and regions', async () => {
    const run = await runBin(['validate', '--format', 'sarif', broken]);
    expect(run.code).toBe(1);
    const sarif = JSON.parse(run.stdout);
    expect(sarif.version).toBe('2.1.0');
    const [runEntry] = sarif.runs;
    expect(runEntry.tool.driver.name).toBe('toolman');
    expect(runEntry.tool.driver.rules.find((r: { id: string }) => r.id === 'TM0303')).toMatchObject({ name: 'required-not-property' });
    expect(runEntry.results[0]).toMatchObject({
      ruleId: 'TM0303',
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: broken }, region: { startLine: 9, startColumn: 25 } } }],
    });
    expect(runEntry.tool.driver.rules[runEntry.results[0].ruleIndex].id).toBe('TM0303');
  });

  it('--strict turns warnings into a failing exit', async () => {
    const warned = 'test/fixtures/diagnostics/TM0304-property-without-description.yaml';
    expect((await runBin(['validate', warned])).code).toBe(0);
    expect((await runBin(['validate', '--strict', warned])).code).toBe(1);
  });

  it('exits 2 with a clear message for a file that cannot be read, also in JSON', async () => {
    const run = await runBin(['validate', 'no/such/catalog.yaml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/toolman: error: cannot read catalog no\/such\/catalog.yaml: no such file/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const json = await runBin(['validate', '--json', 'no/such/catalog.yaml']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'FILE_UNREADABLE', file: 'no/such/catalog.yaml', message: expect.any(String), exit: 2 } });
  });

  it('uses ./toolman.yaml by default and says what it looked for when it is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-'));
    const missing = await runBin(['validate'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`looked for toolman.yaml in ${dir}`);
    expect(missing.stderr).toContain('--catalog');
    writeFileSync(join(dir, 'toolman.yaml'), 'toolman: 1\ntools:\n  - name: ping\n    description: Check that the service answers, and how fast.\n');
    const found = await runBin(['validate'], { cwd: dir });
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('no problems (1 tool in 1 file)');
  });

  it('honours --catalog (repeatable) before the default', async () => {
    const run = await runBin(['--catalog', 'catalogs/assistant.yaml', 'validate', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).files).toEqual(['catalogs/assistant.yaml']);
  });

  it('rejects bad usage with exit 2', async () => {
    const run = await runBin(['validate', '--format', 'xml', broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("argument 'xml' is invalid");
    expect((await runBin(['frobnicate'])).code).toBe(2);
  });
});

describe('toolman validate (in process)', () => {
  it('colours only when asked or on a terminal', async () => {
    const plain = await runMain(['validate', broken]);
    expect(plain.stdout).not.toContain('\u001b[');
    const forced = await runMain(['validate', broken], { env: { FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[31merror');
    const tty = await runMain(['validate', broken], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).not.toContain('\u001b[');
  });

  it('-q shows errors only and --no-frames drops code frames', async () => {
    const run = await runMain(['validate', '-q', '--no-frames', 'test/fixtures/diagnostics/TM0101-unknown-key.yaml']);
    expect(run.stdout).not.toContain('TM0204');
    expect(run.stdout).not.toContain(' | ');
    expect(run.stdout).toContain('TM0101');
  });

  it('merges several --catalog files into one catalog, unlike positional files', async () => {
    const run = await runMain(['--catalog', 'catalogs/assistant.yaml', '--catalog', 'catalogs/coding.yaml', 'validate', '--json']);
    const doc = JSON.parse(run.stdout);
    expect(run.code).toBe(1);
    expect(doc.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toMatchObject([{ code: 'TM0208', file: 'catalogs/coding.yaml', message: expect.stringContaining('profile "minimal"') }]);
  });

  it('checks several files each as its own root', async () => {
    const run = await runMain(['validate', '--json', 'catalogs/assistant.yaml', 'catalogs/enterprise.yaml']);
    const doc = JSON.parse(run.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.files).toEqual(['catalogs/assistant.yaml', 'catalogs/enterprise.yaml']);
  });
});
