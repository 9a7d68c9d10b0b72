import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { realData, realToolFiles } from '../helpers/real-data.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';


describe('toolman import', () => {
  it('writes a catalog with the changes as comments, validates it, and reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-'));
    const out = join(dir, 'tools.yaml');
    const run = await runBin(['import', join(FIXTURES, 'import', 'bfcl.json'), '-o', out]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/imported 3 tools from bfcl.json \(bfcl\) into .*; 2 renamed/);
    expect(run.stderr).toMatch(/validate: 0 errors/);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=.*schema\/catalog.schema.json$/);
    expect(text).toContain('  # import: renamed from "math.factorial"');
    const validate = await runBin(['validate', out]);
    expect(validate.code).toBe(0);
  });

  it('never overwrites a file unless told to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-'));
    const out = join(dir, 'tools.yaml');
    writeFileSync(out, 'precious: true\n');
    const run = await runBin(['import', join(FIXTURES, 'import', 'anthropic.json'), '-o', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('exists; not overwriting it');
    expect(readFileSync(out, 'utf8')).toBe('precious: true\n');
    expect((await runBin(['import', join(FIXTURES, 'import', 'anthropic.json'), '-o', out, '--force'])).code).toBe(0);
  });

  it('prints YAML to stdout, or a JSON report', async () => {
    const yaml = await runMain(['import', 'test/fixtures/import/gemini.json']);
    expect(yaml.stdout).toContain('name: get_weather');
    const json = await runMain(['import', 'test/fixtures/import/mcp-reply.json', '--json']);
    const report = JSON.parse(json.stdout);
    expect(report.format).toBe('mcp');
    expect(report.tools[0]).toMatchObject({ name: 'read_file', original: 'read_file' });
    expect(report.yaml).toContain('effect: read');
  });

  it('explains unreadable, unparsable and unrecognised input with exit 2', async () => {
    expect((await runBin(['import', 'nope.json'])).stderr).toMatch(/cannot read nope.json: no such file/);
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-'));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    const bad = await runBin(['import', join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not valid JSON: /);
    writeFileSync(join(dir, 'empty.json'), '{"hello": 1}');
    const empty = await runBin(['import', join(dir, 'empty.json')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/cannot tell what format/);
    expect((await runBin(['import', join(dir, 'empty.json'), '--from', 'xml'])).code).toBe(2);
  });

  it('[real data] imports every real input into a catalog that validates with no errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-'));
    const inputs = realToolFiles().map((file) => realData(file));
    for (const input of inputs) {
      const out = join(dir, `${input.split('/').pop()}.yaml`);
      const run = await runMain(['import', input, '-o', out]);
      expect(run.code, run.stderr).toBe(0);
      const validate = await runMain(['validate', '--json', out]);
      expect(JSON.parse(validate.stdout).summary.errors, input).toBe(0);
    }
  });
});

describe('toolman import - (standard input)', () => {
  it('reads definitions from standard input', async () => {
    const { importCommand } = await import('../../src/cli/commands/import.js');
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, cwd: ROOT, env: {} };
    const code = await importCommand({ file: '-', stdin: async () => readFileSync(join(FIXTURES, 'import', 'anthropic.json'), 'utf8') }, io);
    expect(code).toBe(0);
    expect(out).toContain('# Imported by toolman from stdin (anthropic).');
    await expect(importCommand({ file: '-', stdin: async () => '' }, io)).rejects.toThrow(/standard input is empty/);
  });
});
