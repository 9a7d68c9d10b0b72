import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
