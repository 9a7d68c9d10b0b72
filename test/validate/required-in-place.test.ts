import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaFamilies } from '../../src/catalog/json-schema.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';

/**
 * TM0303 (`required` names a property that is not defined) inside subschemas that apply to the
 * same value as their parent (allOf, anyOf, oneOf, not, if/then/else, dependentSchemas): there a
 * `required` names the enclosing schema's properties, as JSON Schema 2020-12 means it. The MCP
 * conformance suite's `json_schema_2020_12_tool` is such a schema; validate used to refuse it.
 */
const dir = mkdtempSync(join(tmpdir(), 'toolman-required-in-place-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function tm0303(parameters: object): Promise<string[]> {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, JSON.stringify({ toolman: 1, name: 'c', tools: [{ name: 'contact', description: 'Records how to reach a person, by phone or by email.', effect: 'read', parameters, handler: { mock: [{ result: 'ok' }] } }] }));
  const { diagnostics } = await validateCatalog([file], { cwd: dir });
  return diagnostics.filter((d) => d.code === 'TM0303').map((d) => d.message);
}

const described = (type = 'string') => ({ type, description: 'A value.' });

describe('TM0303 in subschemas that apply in place', () => {
  it('accepts the conformance suite\'s JSON Schema 2020-12 tool (required in allOf/anyOf and if/then/else)', async () => {
    expect(
      await tm0303({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: described(), city: described() } } },
        properties: { name: described(), address: { $ref: '#/$defs/address', description: 'Where.' }, contactMethod: { type: 'string', enum: ['phone', 'email'], description: 'How.' }, phone: described(), email: described() },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone', description: 'When phone.' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      }),
    ).toEqual([]);
  });

  it('accepts properties a sibling in the family defines, and dependentSchemas and not', async () => {
    expect(await tm0303({ type: 'object', allOf: [{ properties: { a: described() } }, { required: ['a'] }] })).toEqual([]);
    expect(await tm0303({ type: 'object', properties: { a: described(), b: described() }, dependentSchemas: { a: { required: ['b'] } }, not: { required: ['a', 'b'] } })).toEqual([]);
  });

  it('still reports names no schema of the family defines, and does not reach into nested objects', async () => {
    expect(await tm0303({ type: 'object', properties: { phone: described() }, anyOf: [{ required: ['phone'] }, { required: ['fax'] }] })).toEqual(['tools[0] "contact": parameters.anyOf[1].required names "fax", which is not a property']);
    // `inner`'s required is about inner's value, not the root's.
    const nested = await tm0303({ type: 'object', properties: { top: described(), inner: { type: 'object', description: 'Nested.', properties: { x: described() }, required: ['top'] } } });
    expect(nested).toEqual(['tools[0] "contact": parameters.properties.inner.required names "top", which is not a property']);
    // A property named like a keyword is a name, not an applicator.
    expect(await tm0303({ type: 'object', properties: { if: { type: 'object', description: 'A field called if.', required: ['then'] }, then: described() } })).toEqual(['tools[0] "contact": parameters.properties.if.required names "then", which is not a property']);
  });
});

describe('TM0304 in subschemas that apply in place', () => {
  it('takes a property an `if` tests as described when the schema around it describes it', async () => {
    const warnings = async (parameters: object) => {
      const file = join(dir, `d${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, JSON.stringify({ toolman: 1, name: 'c', tools: [{ name: 'contact', description: 'Records how to reach a person, by phone or by email.', effect: 'read', parameters, handler: { mock: [{ result: 'ok' }] } }] }));
      return (await validateCatalog([file], { cwd: dir })).diagnostics.filter((d) => d.code === 'TM0304').map((d) => d.message);
    };
    const conditional = { if: { properties: { method: { const: 'phone' } }, required: ['method'] }, then: { required: ['phone'] } };
    expect(await warnings({ type: 'object', properties: { method: { type: 'string', description: 'How.' }, phone: described() }, ...conditional })).toEqual([]);
    expect(await warnings({ type: 'object', properties: { method: { type: 'string' }, phone: described() }, ...conditional })).toEqual([
      'tools[0] "contact": property "method" has no description',
      'tools[0] "contact": property "if.properties.method" has no description',
    ]);
  });
});

describe('schemaFamilies', () => {
  it('gives each in-place subschema its family\'s names and each nested object its own', () => {
    const inner = { type: 'object', properties: { x: {} } };
    const branch = { required: ['a'] };
    const root = { type: 'object', properties: { a: {}, inner }, anyOf: [branch] };
    const families = schemaFamilies(root);
    expect(families.get(branch)).toBe(families.get(root));
    expect([...families.get(root)!.names]).toEqual(['a', 'inner']);
    expect([...families.get(inner)!.names]).toEqual(['x']);
  });
});
