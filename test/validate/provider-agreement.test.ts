import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTools } from '../../src/import/import-tools.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { runMain } from '../helpers/cli.js';
import { realData, realToolFiles } from '../helpers/real-data.js';

const TMP = mkdtempSync(join(tmpdir(), 'toolman-agree-'));

/** Tools `validate` flags with `code`, and tools a formatter warns about with `pattern`, over one catalog. */
async function compare(catalogFile: string) {
  const manager = await ToolManager.open({ catalogs: [catalogFile], requireValid: false });
  const diagnostics = await manager.validate();
  const flagged = (code: string) => new Set(diagnostics.filter((d) => d.code === code).map((d) => d.tool));
  const warned = async (provider: 'openai' | 'gemini', pattern: RegExp, strict: boolean) => {
    const names = new Set<string>();
    // Formatted in batches within the providers' per-request limits; each tool on its own terms.
    const tools = manager.catalog.tools.map((t) => t.name);
    for (let i = 0; i < tools.length; i += 100) {
      const result = await manager.formatTools(provider, tools.slice(i, i + 100), { strict });
      for (const w of result.warnings) if (w.tool && pattern.test(w.message)) names.add(w.tool);
    }
    return names;
  };
  return {
    tools: manager.catalog.tools.length,
    openai: { validate: flagged('TM0402'), format: await warned('openai', /sent non-strict/, true) },
    gemini: { validate: flagged('TM0403'), format: await warned('gemini', /not sent/, false) },
  };
}

describe('[real data] validate and format agree tool by tool', () => {
  let nonStrict = 0;
  for (const input of realToolFiles()) {
    it(input, async () => {
      const { tools } = importTools(JSON.parse(readFileSync(realData(input), 'utf8')));
      const file = join(TMP, `${input.replace(/[/.]/g, '_')}.json`);
      writeFileSync(file, JSON.stringify({ toolman: 1, tools: tools.map((t) => t.entry) }));
      const result = await compare(file);
      expect(result.tools).toBeGreaterThan(0);
      expect([...result.openai.validate].sort(), 'TM0402 vs format --strict').toEqual([...result.openai.format].sort());
      expect([...result.gemini.validate].sort(), 'TM0403 vs the gemini formatter').toEqual([...result.gemini.format].sort());
      nonStrict += result.openai.format.size;
    });
  }
  it('covers tools that cannot be strict (so the comparison is not vacuous)', () => {
    expect(nonStrict).toBeGreaterThan(0);
  });
});

describe('a property with no type', () => {
  it('is reported by validate (TM0402) exactly when format --strict sends the tool non-strict', async () => {
    const file = join(TMP, 'untyped.yaml');
    writeFileSync(file, ['toolman: 1', 'tools:', '  - name: set_value', '    description: Store any JSON value under a key for later.', '    parameters:', '      type: object', '      properties:', '        key: { type: string, description: The key }', '        value: { description: Any JSON value }', ''].join('\n'));
    const validate = await runMain(['validate', file, '--json']);
    expect(JSON.parse(validate.stdout).diagnostics).toContainEqual(expect.objectContaining({ code: 'TM0402', tool: 'set_value', line: 9, message: expect.stringMatching(/a value accepts anything \(no type\)/) }));
    const format = await runMain(['--catalog', file, 'format', '-P', 'openai', '--strict']);
    expect(format.stderr).toMatch(/set_value: sent non-strict: a value accepts anything \(no type\)/);
  });
});
