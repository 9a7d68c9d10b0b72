import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { JsonSchema, Tool } from '../../src/catalog/types.js';
import { toAnthropicStrict } from '../../src/providers/anthropic/anthropic-strict-schema.js';
import { decodeArguments } from '../../src/providers/decode-arguments.js';
import { formatTools } from '../../src/providers/format-tools.js';
import { toGeminiSchema } from '../../src/providers/gemini/gemini-schema.js';
import { toOpenAiStrict } from '../../src/providers/openai/openai-strict-schema.js';
import { restate } from '../../src/providers/restate.js';
import { mergeAllOf, schemaPlace, withoutFalseItems } from '../../src/providers/schema-rewrites.js';
import { PROVIDERS, type FormatOptions, type ProviderName } from '../../src/providers/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { runBin, runMain } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';
import { CHECKERS } from './checkers.js';

const FIXTURE = 'test/fixtures/catalogs/schema-shapes.yaml';
const { catalog } = loadCatalog([FIXTURE], { cwd: ROOT });
const tool = (name: string) => catalog.tools.find((t) => t.name === name)!;
const auto = { type: 'auto' } as const;
const format = (provider: ProviderName, tools: Tool[], options: FormatOptions = {}) => formatTools(provider, { tools, deferred: [], toolChoice: auto, options });
type Node = Record<string, unknown>;
const props = (schema: unknown) => (schema as { properties: Record<string, Node> }).properties;
const geminiParameters = (name: string, options: FormatOptions = {}) => ((format('gemini', [tool(name)], options).payload.tools as { functionDeclarations: Node[] }[])[0]!.functionDeclarations[0]!);

/** Every `items: false` in a payload, by path. */
function falseItems(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => falseItems(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'items' && v === false ? [`${path}.items`] : falseItems(v, `${path}.${k}`)));
}

describe('open maps written without additionalProperties', () => {
  const inputs: JsonSchema = { type: 'object', properties: { ref: { type: 'string' }, inputs: { type: 'object', properties: {}, description: 'Inputs' } }, required: ['ref'] };

  it('are not closed by the strict converters: the tool goes non-strict, saying where and why', () => {
    for (const convert of [toOpenAiStrict, toAnthropicStrict]) {
      expect(convert(inputs)).toEqual({ strict: false, reason: expect.stringMatching(/declares no properties and does not set additionalProperties, so it accepts any keys \(an open map\)/), path: ['properties', 'inputs'] });
      expect(convert({ type: 'object', properties: { env: { type: ['object', 'null'] } } })).toMatchObject({ strict: false, path: ['properties', 'env'] });
      expect(convert({ type: 'object', properties: { rows: { type: 'array', items: { type: 'object' } } } })).toMatchObject({ strict: false, path: ['properties', 'rows', 'items'] });
    }
  });

  it('a tool without parameters, and objects that say what they hold, keep today\'s shapes', () => {
    expect(toOpenAiStrict({ type: 'object', properties: {} })).toEqual({ strict: true, schema: { type: 'object', properties: {}, additionalProperties: false, required: [] }, changes: ['objects closed with additionalProperties: false'], restated: [] });
    expect(toAnthropicStrict({ type: 'object' })).toMatchObject({ strict: true, schema: { type: 'object', additionalProperties: false } });
    const declared = toOpenAiStrict({ type: 'object', properties: { meta: { type: 'object', properties: { a: { type: 'string' } } } } });
    expect(declared.strict && props(declared.schema).meta).toMatchObject({ additionalProperties: false, required: ['a'] });
    // Explicitly closed and empty: only {} is meant, and only {} is sent.
    expect(toAnthropicStrict({ type: 'object', properties: { none: { type: 'object', additionalProperties: false } } })).toMatchObject({ strict: true });
  });

  it('format --strict warns with the place, and sends strict: false (openai, openai-responses, anthropic)', () => {
    for (const provider of ['openai', 'openai-responses', 'anthropic'] as const) {
      const result = format(provider, [tool('trigger_run'), tool('set_env')], { strict: true });
      expect(result.warnings.map((w) => w.message)).toEqual([
        expect.stringMatching(/^trigger_run: sent non-strict: an object declares no properties .* \(at parameters\.inputs\)$/),
        expect.stringMatching(/^set_env: sent non-strict: an object declares no properties .* \(at parameters\.env\)$/),
      ]);
      const entries = result.payload.tools as Node[];
      for (const entry of entries) expect(((entry.function as Node | undefined) ?? entry).strict ?? false).toBe(false);
      expect(CHECKERS[provider](result.payload)).toEqual([]);
    }
  });

  it('Gemini gets them as JSON text (never an OBJECT without properties), and the answer is parsed back', () => {
    const declaration = geminiParameters('trigger_run');
    expect(props(declaration.parameters).inputs).toEqual({ type: 'STRING', description: 'Inputs for the workflow (a JSON object with any keys, written as JSON text)' });
    expect(props(geminiParameters('set_env').parameters)).toEqual({
      env: { type: 'STRING', description: 'Variables to set (a JSON object with any keys, written as JSON text)' },
      labels: { type: 'STRING', nullable: true, description: 'Optional labels, or null (a JSON object with any keys, written as JSON text)' },
    });
    expect(toGeminiSchema({ type: 'object', properties: { rows: { type: 'array', items: { type: 'object', additionalProperties: { type: 'integer' } } } } })).toMatchObject({ ok: true, schema: { properties: { rows: { type: 'ARRAY', items: { type: 'STRING', description: '(a JSON object with any keys, each value an integer, written as JSON text)' } } } }, openMaps: [] });
    const decoded = decodeArguments('gemini', {}, tool('trigger_run'), { ref: 'main', inputs: '{"a":1}' });
    expect(decoded).toEqual({ arguments: { ref: 'main', inputs: { a: 1 } }, changes: ['an object sent as JSON text was parsed'] });
    expect(decodeArguments('gemini', {}, tool('set_env'), { env: '{}', labels: null }).arguments).toEqual({ env: {}, labels: null });
    // Other providers were sent the object: nothing to undo.
    expect(decodeArguments('openai', { strict: true }, tool('trigger_run'), { ref: 'main', inputs: '{"a":1}' }).arguments).toEqual({ ref: 'main', inputs: '{"a":1}' });
  });

  it('Gemini: a tool without parameters is sent without `parameters`', () => {
    expect(geminiParameters('get_me')).toEqual({ name: 'get_me', description: "Return the signed-in user's profile; takes no parameters at all." });
    const bare: Tool = { ...tool('get_me'), name: 'bare', parameters: { type: 'object' } };
    expect(Object.keys((format('gemini', [bare]).payload.tools as { functionDeclarations: Node[] }[])[0]!.functionDeclarations[0]!)).toEqual(['name', 'description']);
  });

  it('validate reports TM0402 at the open map, where format --strict goes non-strict', async () => {
    const run = await runMain(['validate', FIXTURE, '--json']);
    const found = (JSON.parse(run.stdout).diagnostics as { code: string; tool: string; line: number; message: string }[]).filter((d) => d.code === 'TM0402');
    expect(found.map((d) => [d.tool, d.line])).toEqual([['trigger_run', 15], ['set_env', 23], ['merge_conflict', 69]]);
    expect(found[0]!.message).toMatch(/accepts any keys \(an open map\)/);
  });
});

describe('tuples (prefixItems with items: false)', () => {
  it('become arrays of the union of their positions, the order in words, in every converter', () => {
    const openai = toOpenAiStrict(tool('place_pin').parameters);
    expect(openai.strict && props(openai.schema).position).toEqual({
      type: 'array',
      description: 'Label and height of the pin (items in order: a string, then an integer)',
      minItems: 2,
      maxItems: 2,
      items: { anyOf: [{ type: 'string', description: 'Label' }, { type: 'integer', description: 'Height' }] },
    });
    // All positions the same: that one schema.
    expect(openai.strict && props(openai.schema).corners!.items).toEqual({ type: 'number' });
    const anthropic = toAnthropicStrict(tool('place_pin').parameters);
    expect(anthropic.strict && props(anthropic.schema).position).toEqual({
      type: 'array',
      description: 'Label and height of the pin (items in order: a string, then an integer; at least 2 items; at most 2 items)',
      items: { anyOf: [{ type: 'string', description: 'Label' }, { type: 'integer', description: 'Height' }] },
    });
    const gemini = toGeminiSchema(tool('place_pin').parameters);
    expect(gemini.ok && props(gemini.schema).position).toEqual({
      type: 'ARRAY',
      description: 'Label and height of the pin (items in order: a string, then an integer)',
      minItems: '2',
      maxItems: '2',
      items: { anyOf: [{ type: 'STRING', description: 'Label' }, { type: 'INTEGER', description: 'Height' }] },
    });
  });

  it('never send `items: false`, in any provider or variant', () => {
    const variants: FormatOptions[] = [{}, { strict: true }, { geminiJsonSchema: true }];
    for (const provider of PROVIDERS) {
      for (const options of variants) {
        const result = format(provider, [tool('place_pin')], options);
        expect(falseItems(result.payload), `${provider} ${JSON.stringify(options)}`).toEqual([]);
        expect(CHECKERS[provider](result.payload)).toEqual([]);
      }
    }
    // Non-strict JSON Schema keeps prefixItems; the same arrays are valid.
    expect(withoutFalseItems(tool('place_pin').parameters).properties).toMatchObject({ position: { prefixItems: [{ type: 'string', description: 'Label' }, { type: 'integer', description: 'Height' }], minItems: 2, maxItems: 2, items: { anyOf: [{ type: 'string', description: 'Label' }, { type: 'integer', description: 'Height' }] } } });
    expect(withoutFalseItems({ type: 'object', properties: { none: { type: 'array', items: false } } })).toEqual({ type: 'object', properties: { none: { type: 'array', maxItems: 0 } } });
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(withoutFalseItems(plain)).toBe(plain);
  });

  it('restate prefixItems in words, not JSON', () => {
    expect(restate('prefixItems', [{ type: 'string' }, { type: 'integer' }, { enum: ['a', 'b'] }, { type: ['number', 'null'] }])).toBe('items in order: a string, then an integer, then one of "a", "b", then a number or null');
  });

  it('Gemini answers come back position by position', () => {
    const enums: Tool = { ...tool('place_pin'), parameters: { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'integer', enum: [1, 2] }, { type: 'object' }], minItems: 2, items: false } } } };
    expect(decodeArguments('gemini', {}, enums, { pair: ['2', '{"x":true}'] }).arguments).toEqual({ pair: [2, { x: true }] });
  });
});

describe('allOf', () => {
  it('of plain object parts is merged into one object, which both strict converters close', () => {
    const openai = toOpenAiStrict(tool('create_user').parameters);
    expect(openai.strict && props(openai.schema).user).toEqual({
      description: 'The user to create',
      type: 'object',
      properties: { name: { type: 'string', description: 'Full name' }, email: { type: ['string', 'null'], format: 'email', description: 'Contact email' } },
      required: ['name', 'email'],
      additionalProperties: false,
    });
    const anthropic = toAnthropicStrict(tool('create_user').parameters);
    expect(anthropic.strict && props(anthropic.schema).user).toEqual({
      description: 'The user to create',
      type: 'object',
      properties: { name: { type: 'string', description: 'Full name' }, email: { type: 'string', format: 'email', description: 'Contact email' } },
      required: ['name'],
      additionalProperties: false,
    });
    expect(anthropic.strict && anthropic.changes).toContain('allOf merged into one schema');
    // The model's answer fits what was sent.
    const result = format('anthropic', [tool('create_user')], { strict: true });
    expect(CHECKERS.anthropic(result.payload)).toEqual([]);
  });

  it('that cannot be merged sends the tool non-strict with a reason that says allOf', () => {
    expect(toOpenAiStrict(tool('merge_conflict').parameters)).toMatchObject({ strict: false, reason: expect.stringMatching(/^allOf whose parts cannot be merged/), path: ['properties', 'record', 'allOf'] });
    expect(toAnthropicStrict(tool('merge_conflict').parameters)).toMatchObject({ strict: false, reason: expect.stringMatching(/^allOf of object schemas that cannot be merged .* only \{\} would be accepted/), path: ['properties', 'record', 'allOf'] });
    const withRef = { type: 'object', properties: { a: { allOf: [{ $ref: '#/$defs/x' }, { type: 'object', properties: { b: { type: 'string' } } }] } }, $defs: { x: { type: 'object', properties: { c: { type: 'string' } } } } };
    expect(toAnthropicStrict(withRef)).toMatchObject({ strict: false, reason: 'allOf with $ref is not supported in strict mode' });
    expect(toOpenAiStrict(withRef)).toMatchObject({ strict: false, reason: expect.stringMatching(/^allOf/) });
  });

  it('merges only when nothing a value may be changes', () => {
    expect(mergeAllOf({ allOf: [{ type: 'string' }, { enum: ['a'] }], description: 'd' })).toEqual({ description: 'd', type: 'string', enum: ['a'] });
    expect(mergeAllOf({ allOf: [{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }] })).toBeUndefined();
    expect(mergeAllOf({ allOf: [{ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, { properties: { b: {} } }] })).toBeUndefined();
    expect(mergeAllOf({ type: 'object', additionalProperties: false, allOf: [{ properties: { a: { type: 'string' } } }] })).toBeUndefined();
    expect(mergeAllOf({ type: 'object', unevaluatedProperties: false, allOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } }, required: ['b'] }] })).toEqual({ type: 'object', properties: { a: { type: 'string' } , b: { type: 'string' } }, required: ['b'], additionalProperties: false });
    expect(mergeAllOf({ type: 'string', allOf: [{ properties: { a: {} } }] })).toBeUndefined();
  });
});

describe('warnings name the place', () => {
  it('in words a reader can find', () => {
    expect(schemaPlace([])).toBe('parameters');
    expect(schemaPlace(['properties', 'inputs'])).toBe('parameters.inputs');
    expect(schemaPlace(['properties', 'rows', 'items', 'properties', 'name'])).toBe('parameters.rows[].name');
    expect(schemaPlace(['properties', 'a', 'anyOf', '1', 'additionalProperties'])).toBe('parameters.a.anyOf[1].additionalProperties');
    expect(schemaPlace(['$defs', 'folder', 'properties', 'children'])).toBe('parameters.$defs.folder.children');
  });
});

describe('through the CLI, as a user meets them', () => {
  it('call --provider gemini accepts an open map sent as JSON text and runs with the object', async () => {
    const args = ['--catalog', FIXTURE, 'call', 'trigger_run', '--args', JSON.stringify({ ref: 'main', inputs: '{"a":1}' })];
    const refused = await runBin(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/argument "inputs" must be object/);
    const decoded = await runBin([...args, '--provider', 'gemini']);
    expect(decoded.stderr).toBe('');
    expect(decoded.code).toBe(0);
    expect(JSON.parse(decoded.stdout)).toEqual({ ran: { ref: 'main', inputs: { a: 1 } } });
  });

  it('format --strict -P openai: open maps and unmergeable allOf go non-strict once each; tuples and merged allOf stay strict', async () => {
    const run = await runBin(['--catalog', FIXTURE, 'format', '-P', 'openai', '--strict']);
    expect(run.code).toBe(0);
    const strict = Object.fromEntries((JSON.parse(run.stdout).tools as { function: { name: string; strict: boolean } }[]).map((t) => [t.function.name, t.function.strict]));
    expect(strict).toEqual({ trigger_run: false, set_env: false, place_pin: true, create_user: true, merge_conflict: false, get_me: true });
    expect(run.stderr.match(/trigger_run/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/^warning: trigger_run: sent non-strict: .*open map.* \(at parameters\.inputs\)$/m);
    expect(run.stderr).toMatch(/^warning: merge_conflict: sent non-strict: allOf .* \(at parameters\.record\.allOf\)$/m);
    expect(run.stderr).toMatch(/^info: test\/fixtures\/catalogs\/schema-shapes\.yaml:35:11 TM0401 tools\[2\] "place_pin": OpenAI strict mode does not support "prefixItems"/m);
    expect(run.stdout).not.toMatch(/"items": false/);
  });

  it('format -P gemini sends no OBJECT without properties and no items: false', async () => {
    const run = await runBin(['--catalog', FIXTURE, 'format', '-P', 'gemini']);
    expect(run.code).toBe(0);
    const payload = JSON.parse(run.stdout);
    expect(CHECKERS.gemini(payload)).toEqual([]);
    expect(falseItems(payload)).toEqual([]);
  });

  it('the session formats and decodes the same way (a Gemini turn runs with the parsed object)', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT });
    const turn = await session.runTurn(session.decode([{ id: 'c1', name: 'trigger_run', arguments: { ref: 'main', inputs: '{"branch":"dev"}' } }], 'gemini'));
    expect(turn.responses[0]).toMatchObject({ ok: true, content: '{"ran":{"ref":"main","inputs":{"branch":"dev"}}}' });
  });
});
