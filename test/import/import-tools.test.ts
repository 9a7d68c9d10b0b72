import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/import/detect-format.js';
import { importTools } from '../../src/import/import-tools.js';
import { providerSafeName } from '../../src/providers/tool-names.js';
import { FIXTURES } from '../helpers/paths.js';
import { realData, realToolFiles } from '../helpers/real-data.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, 'import', name), 'utf8'));

describe('detectFormat', () => {
  it.each([
    ['openai-chat.json', 'openai'],
    ['openai-responses.json', 'openai-responses'],
    ['openai-functions.json', 'openai-functions'],
    ['anthropic.json', 'anthropic'],
    ['gemini.json', 'gemini'],
    ['mcp-reply.json', 'mcp'],
    ['bfcl.json', 'bfcl'],
  ])('%s is %s', (file, format) => {
    expect(detectFormat(fixture(file))).toBe(format);
    expect(importTools(fixture(file)).tools.length).toBeGreaterThan(0);
  });

  it('finds nothing in data that holds no tools', () => {
    expect(detectFormat({ hello: 'world' })).toBeUndefined();
    expect(() => importTools({ hello: 'world' })).toThrow(/cannot tell what format/);
  });
});

describe('importTools', () => {
  it('keeps OpenAI tools as they are, noting the dropped strict flag', () => {
    const [tool] = importTools(fixture('openai-chat.json')).tools;
    expect(tool!.entry).toMatchObject({ name: 'get_weather', parameters: { required: ['city', 'unit'], properties: { unit: { type: ['string', 'null'] } } } });
    expect(tool!.changes.join('\n')).toMatch(/strict: true dropped/);
  });

  it('turns Gemini upper-case types and nullable into JSON Schema', () => {
    const [tool] = importTools(fixture('gemini.json')).tools;
    expect(tool!.entry.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City' }, days: { type: ['integer', 'null'], description: 'Days ahead' } },
      required: ['city'],
    });
  });

  it('maps MCP annotations to effect, with MCP\'s defaults where they say nothing, and keeps titles', () => {
    const { tools } = importTools(fixture('mcp-reply.json'));
    expect(tools.map((t) => [t.entry.name, t.entry.effect, t.entry.title])).toEqual([
      ['read_file', 'read', 'Read File'],
      ['write_file', 'write', undefined],
      ['delete_file', 'destructive', undefined],
      // No annotations: readOnlyHint false and destructiveHint true by MCP's defaults.
      ['echo', 'destructive', undefined],
    ]);
    expect(tools[0]!.entry.parameters).not.toHaveProperty('$schema');
    expect(tools[3]!.entry.parameters).toEqual({ type: 'object', properties: {} });
  });

  it('normalises the BFCL dialect and says what it changed', () => {
    const { tools } = importTools(fixture('bfcl.json'));
    const geo = tools.find((t) => t.original === 'Geo.distance')!;
    expect(geo.entry.name).toBe('Geo_distance');
    expect(geo.entry.aliases).toEqual(['Geo.distance']);
    expect(geo.entry.parameters).toEqual({
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'number' }, description: 'Point A' },
        b: { type: 'object', description: 'Point B' },
        opts: { description: 'Options' },
        unit: { type: 'string', enum: ['km', 'mi'], description: 'Unit' },
        when: { type: 'string', description: 'When Format: timestamp.' },
        pop: { type: 'object', description: 'Population', required: ['adults'], properties: { adults: {} } },
        count: { type: 'integer', description: 'Count' },
      },
      required: ['a'],
    });
    const changes = geo.changes.join('\n');
    for (const expected of ['type "dict" became "object"', 'type "tuple" became "array"', 'type "float" became "number"', 'type "HashMap" became "object"', 'type "any" means any value', 'type "String" became "string"', 'type "long" became "integer"', '`optional: true` properties removed from `required`', 'removed repeated `enum` values', 'unknown format "timestamp" moved into the description', 'required names that were not properties became properties of any type', 'removed keywords that do not apply to type integer: minItems']) {
      expect(changes).toContain(expected);
    }
  });

  it('reads toolman\'s own Gemini enums back as numbers, drops format: enum, and converts draft-04 exclusive bounds', () => {
    const [tool] = importTools(fixture('gemini-enums.json')).tools;
    expect(tool!.entry.parameters).toEqual({
      type: 'object',
      properties: {
        priority: { type: 'integer', enum: [1, 2, 3], default: 2, description: 'Priority level' },
        ratio: { type: 'number', enum: [0.5, 1, 1.5], description: 'Scale factor' },
        mode: { type: 'string', enum: ['fast', 'slow'], description: 'How to apply it' },
        threshold: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'Degrees' },
      },
      required: ['priority'],
    });
    expect(tool!.changes).toEqual(expect.arrayContaining([
      'enum values written as text on an integer became numbers ("1" → 1)',
      'enum values written as text on a number became numbers ("1" → 1)',
      '`format: enum` removed (Gemini\'s marker for an enum; the `enum` says it)',
      'draft-04 `exclusiveMinimum: true` with `minimum` became `exclusiveMinimum` holding the bound (draft 2020-12)',
      'draft-04 `exclusiveMaximum: false` removed (`maximum` stays inclusive)',
    ]));
    // Text that is not a number stays as it is (and a string type is never touched).
    const [mixed] = importTools([{ name: 'm', parameters: { type: 'object', properties: { a: { type: 'integer', enum: ['1', 'two'] }, b: { type: 'string', enum: ['1'] } } } }], { from: 'openai-functions' }).tools;
    expect(mixed!.entry.parameters).toMatchObject({ properties: { a: { enum: ['1', 'two'] }, b: { enum: ['1'] } } });
    const [lone] = importTools([{ name: 'l', parameters: { type: 'object', properties: { a: { type: 'number', exclusiveMaximum: true } } } }], { from: 'openai-functions' }).tools;
    expect(lone!.entry.parameters).toEqual({ type: 'object', properties: { a: { type: 'number' } } });
    expect(lone!.changes).toContain('draft-04 `exclusiveMaximum: true` without `maximum` removed (it bounded nothing)');
  });

  it('reads MCP hints written as text ("true"/"false") as booleans, saying they were strings', () => {
    const { tools } = importTools(fixture('mcp-string-hints.json'));
    expect(tools.map((t) => [t.entry.name, t.entry.effect, t.entry.tags])).toEqual([
      ['list_buckets', 'read', ['idempotent']],
      ['empty_bucket', 'destructive', undefined],
      ['tag_bucket', 'write', undefined],
    ]);
    expect(tools[0]!.changes).toEqual(expect.arrayContaining(['readOnlyHint was the string "true"; read as true', 'readOnlyHint: true became effect: read', 'idempotentHint was the string "true"; read as true', 'openWorldHint was the string "false"; read as false', 'openWorldHint: false noted (nothing to set)']));
    expect(tools[1]!.changes).toEqual(expect.arrayContaining(['destructiveHint was the string "True"; read as true', 'destructiveHint: true became effect: destructive']));
    expect(tools[2]!.changes).toEqual(expect.arrayContaining(['readOnlyHint "no" is not a boolean; ignored (MCP\'s default applies)', 'destructiveHint was the string "false"; read as false', 'destructiveHint: false became effect: write']));
    expect(tools.flatMap((t) => t.changes).some((c) => /no readOnlyHint/.test(c))).toBe(false);
  });

  it('gives a valid name its own spelling first, and suffixes renamed tools that collide', () => {
    const { tools } = importTools(fixture('bfcl.json'));
    expect(tools.map((t) => t.entry.name)).toEqual(['math_factorial_2', 'math_factorial', 'Geo_distance']);
    expect(tools[0]!.changes[0]).toMatch(/renamed from "math.factorial" \(contains "\.", which providers reject\)/);
  });

  it('makes any string a provider-safe, unique name', () => {
    const taken = new Set<string>();
    expect(providerSafeName('get weather now', taken)).toBe('get_weather_now');
    expect(providerSafeName('3d.render', taken)).toBe('_3d_render');
    expect(providerSafeName('ünïcødé', taken)).toBe('n_c_d');
    const long = 'a'.repeat(80);
    const safe = providerSafeName(long, taken);
    expect(safe).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    expect(providerSafeName(long, taken)).not.toBe(safe);
  });
});


describe('[real data] real inputs', () => {
  const files = realToolFiles();
  it.each(files)('%s imports every tool with a unique, provider-safe name', (file) => {
    const data = JSON.parse(readFileSync(realData(file), 'utf8'));
    const result = importTools(data);
    const names = result.tools.map((t) => t.entry.name as string);
    expect(result.skipped).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    for (const tool of result.tools) if (tool.entry.name !== tool.original) expect(tool.entry.aliases).toEqual([tool.original]);
  });
});
