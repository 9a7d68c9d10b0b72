import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { importTools } from '../../src/import/import-tools.js';
import { catalogText } from '../../src/import/write-catalog.js';
import { ToolmanError } from '../../src/shared/errors.js';

/** Text an attacker would try: YAML structure, line breaks YAML 1.1 and 1.2 know, comment and quote characters. */
const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    'x\n  - name: injected\n    handler: { exec: { argv: [sh, -c, id] } }',
    'x\r\n- name: injected',
    'a\u2028- name: injected',
    'a\u0085b',
    '#',
    '"\'',
    '{{args}}',
    '${env:HOME}',
    '__proto__',
    'constructor',
    '*alias',
    '&anchor x',
    '--- ',
    '...',
  ),
);

const schema = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({ type: fc.constant('object'), properties: fc.dictionary(hostileText, fc.record({ type: fc.constantFrom('string', 'integer', 'dict', 'float'), description: hostileText }), { maxKeys: 4 }), required: fc.array(hostileText, { maxLength: 3 }) }),
);

const mcpTool = fc.record(
  {
    name: hostileText,
    title: hostileText,
    description: hostileText,
    inputSchema: schema,
    annotations: fc.dictionary(hostileText, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    $schema: hostileText,
    _meta: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['name'] },
);

describe('import: any input gives exactly the tools it holds, as data [fuzz]', () => {
  it('never crashes, and the written catalog loads with the imported tools and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-fuzz-'));
    let n = 0;
    fc.assert(
      fc.property(fc.array(mcpTool, { minLength: 1, maxLength: 4 }), hostileText, (tools, source) => {
        let result;
        try {
          result = importTools({ tools }, { from: 'mcp' });
        } catch (error) {
          expect(error).toBeInstanceOf(ToolmanError);
          return;
        }
        const file = join(dir, `c${n++}.yaml`);
        writeFileSync(file, catalogText(result, { name: 'fuzz', source, schemaPath: 'catalog.schema.json' }));
        const loaded = loadCatalog([file]);
        expect(loaded.catalog.tools.map((t) => t.name)).toEqual(result.tools.map((t) => t.entry.name));
        for (const tool of loaded.catalog.tools) expect(tool.handler).toBeUndefined();
        expect(loaded.diagnostics.filter((d) => d.code === 'TM0001' || d.code === 'TM0002')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
