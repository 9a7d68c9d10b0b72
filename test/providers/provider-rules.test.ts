import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { Tool } from '../../src/catalog/types.js';
import { toAnthropicStrict } from '../../src/providers/anthropic/anthropic-strict-schema.js';
import { decodeArguments } from '../../src/providers/decode-arguments.js';
import { formatTools } from '../../src/providers/format-tools.js';
import { toOpenAiStrict } from '../../src/providers/openai/openai-strict-schema.js';
import type { FormatOptions, ProviderName } from '../../src/providers/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';
import { CHECKERS } from './checkers.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/provider-rules.yaml'], { cwd: ROOT });
const tool = (name: string) => catalog.tools.find((t) => t.name === name)!;
const auto = { type: 'auto' } as const;
const format = (provider: ProviderName, tools: Tool[], options: FormatOptions = {}) => formatTools(provider, { tools, deferred: [], toolChoice: auto, options });
const entries = (provider: ProviderName, tools: Tool[], options: FormatOptions = {}) => format(provider, tools, options).payload.tools as Record<string, unknown>[];

describe('OpenAI Responses: strict is always said', () => {
  it('sends strict: false for tools that are not strict, and true for strict ones', () => {
    expect(entries('openai-responses', [tool('update_ticket')]).map((t) => t.strict)).toEqual([false]);
    expect(entries('openai-responses', [tool('update_ticket')], { strict: true }).map((t) => t.strict)).toEqual([true]);
    expect(entries('openai-responses', [tool('add_contact')], { strict: true }).map((t) => t.strict)).toEqual([false]);
    // Chat Completions is non-strict when strict is left out: nothing to say there.
    expect((entries('openai', [tool('update_ticket')])[0]!.function as Record<string, unknown>).strict).toBeUndefined();
  });
});

describe('Anthropic strict', () => {
  it('restates bounds in words and stays strict; closes objects typed [object, null]', () => {
    const result = toAnthropicStrict(tool('find_orders').parameters);
    expect(result.strict).toBe(true);
    if (!result.strict) return;
    const properties = result.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.tags).toEqual({ type: 'array', items: { type: 'string' }, description: 'Tags to match (at least 2 items; at most 5 items)' });
    expect(properties.page_size).toEqual({ type: 'integer', description: 'Results per page (at least 1; at most 100)' });
    expect(properties.filter!.additionalProperties).toBe(false);
    // allOf parts that say different things of one value are merged into one schema.
    expect(properties.mode).toEqual({ description: 'How to combine filters', type: 'string', enum: ['all', 'any'] });
  });

  it('refuses recursion, open maps, and allOf with $ref, saying where', () => {
    expect(toAnthropicStrict(tool('build_tree').parameters)).toMatchObject({ strict: false, reason: expect.stringMatching(/recursive/), path: ['$defs', 'folder', 'properties', 'children', 'items', '$ref'] });
    expect(toAnthropicStrict(tool('add_contact').parameters)).toMatchObject({ strict: false, reason: expect.stringMatching(/arbitrary keys/), path: ['properties', 'labels', 'additionalProperties'] });
    expect(toAnthropicStrict({ type: 'object', properties: { a: { allOf: [{ $ref: '#/$defs/x' }] } }, $defs: { x: { type: 'string' } } })).toMatchObject({ strict: false, reason: expect.stringMatching(/allOf with \$ref/) });
  });

  it('drops input_examples the closed schema no longer accepts, and the payload passes the checker', () => {
    const result = format('anthropic', [tool('find_orders'), tool('build_tree')], { strict: true });
    const [orders, tree] = result.payload.tools as Record<string, unknown>[];
    expect(orders).toMatchObject({ strict: true, input_examples: [{ tags: ['a', 'b'], page_size: 10 }] });
    expect(result.changes.find_orders).toContain('strict: 1 of 2 input_examples dropped (keys the closed schema does not declare)');
    expect(tree!.strict).toBeUndefined();
    expect(result.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/build_tree: sent non-strict: \$ref "#\/\$defs\/folder" is recursive/));
    expect(CHECKERS.anthropic(result.payload)).toEqual([]);
  });
});

describe('OpenAI strict', () => {
  it('drops $defs no reference reaches, so an unused open map no longer refuses the tool', () => {
    const result = toOpenAiStrict(tool('tag_item').parameters);
    expect(result).toMatchObject({ strict: true, changes: expect.arrayContaining(['unused $defs dropped']) });
    expect(result.strict && Object.keys(result.schema.$defs as object)).toEqual(['tag']);
  });

  it('checks the total string length and the large-enum limit', () => {
    const big = Array.from({ length: 300 }, (_, i) => `value-${i}-${'x'.repeat(50)}`);
    expect(toOpenAiStrict({ type: 'object', properties: { v: { type: 'string', enum: big } }, required: ['v'] })).toMatchObject({ strict: false, reason: expect.stringMatching(/enum of 300 strings totals \d+ characters; over 250 values, strict mode allows 15000/), path: ['properties', 'v', 'enum'] });
    const names = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`p${i}_${'n'.repeat(140)}`, { type: 'string' }]));
    expect(toOpenAiStrict({ type: 'object', properties: names, required: Object.keys(names) })).toMatchObject({ strict: false, reason: expect.stringMatching(/total \d+ characters, over 120000/) });
  });
});

describe('limits and warnings', () => {
  it('warns when a request has more tools than the provider takes', () => {
    const many = Array.from({ length: 600 }, (_, i) => ({ ...tool('update_ticket'), name: `t${i}` }));
    expect(format('openai', many.slice(0, 129)).warnings).toContainEqual({ code: 'TM0405', message: '129 functions in one request; Chat Completions takes at most 128 (defer some tools behind tool_search)' });
    expect(format('openai', many.slice(0, 128)).warnings).toEqual([]);
    expect(format('gemini', many.slice(0, 513)).warnings).toContainEqual({ code: 'TM0405', message: '513 function declarations in one request; Gemini takes at most 512 (defer some tools behind tool_search)' });
  });
});

describe('Gemini keeps what the Schema type takes', () => {
  const declaration = (name: string) => ((format('gemini', [tool(name)]).payload.tools as { functionDeclarations: Record<string, Record<string, unknown>>[] }[])[0]!.functionDeclarations[0]!);

  it('renames properties Gemini refuses, keeps default and example, writes int64 fields as strings', () => {
    const properties = declaration('add_contact').parameters!.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual(['_1st_contact', 'priority', 'labels', 'when']);
    expect(properties._1st_contact).toEqual({ type: 'STRING', minLength: '2', description: 'Name of the first contact' });
    expect(properties.priority).toEqual({ type: 'STRING', format: 'enum', enum: ['1', '2', '3'], default: '2', description: 'Priority level (an integer, given as text)' });
    expect(properties.when).toEqual({ type: 'STRING', example: '2026-11-23', description: 'The day (format: date)' });
    expect(declaration('add_contact').parameters!.required).toEqual(['_1st_contact']);
  });

  it('sends an open map without properties of its own as JSON text (an OBJECT without properties is refused)', () => {
    const properties = declaration('add_contact').parameters!.properties as Record<string, Record<string, unknown>>;
    expect(properties.labels).toEqual({ type: 'STRING', description: 'Free-form labels (a JSON object with any keys, each value a string, written as JSON text)' });
    expect(format('gemini', [tool('add_contact')]).warnings).toEqual([]);
  });

  it('warns that an open map with declared properties loses its other keys, naming the escape hatch', () => {
    const open: Tool = { ...tool('add_contact'), name: 'add_meta', parameters: { type: 'object', properties: { meta: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: true, description: 'Metadata' } } } };
    expect(format('gemini', [open]).warnings).toContainEqual({ tool: 'add_meta', message: 'add_meta: parameters.meta allows any key (additionalProperties), which Gemini\'s schema subset cannot express: only its declared keys are sent (--gemini-json-schema keeps it)' });
  });
});

describe('the round trip: what the model sends comes back in the catalog\'s terms', () => {
  it('strict OpenAI: null for an optional parameter means absent (nested too); null where the catalog allows it stays', () => {
    const sent = { id: 'T-1', title: 'x', note: null, meta: { owner: null } };
    expect(decodeArguments('openai', { strict: true }, tool('update_ticket'), sent).arguments).toEqual({ id: 'T-1', title: 'x', meta: {} });
    expect(decodeArguments('openai', {}, tool('update_ticket'), sent).arguments).toEqual(sent);
    expect(decodeArguments('openai', { strict: true }, tool('find_orders'), { tags: ['a', 'b'], filter: null }).arguments).toEqual({ tags: ['a', 'b'], filter: null });
  });

  it('Gemini: renamed properties, enums as text and open maps as JSON text come back', () => {
    expect(decodeArguments('gemini', {}, tool('add_contact'), { _1st_contact: 'Ana', priority: '3' }).arguments).toEqual({ '1st_contact': 'Ana', priority: 3 });
    expect(decodeArguments('gemini', {}, tool('add_contact'), { _1st_contact: 'Ana', labels: '{"team":"core"}' })).toEqual({ arguments: { '1st_contact': 'Ana', labels: { team: 'core' } }, changes: ['property "_1st_contact" renamed back to "1st_contact"', 'an object sent as JSON text was parsed'] });
    // Text that is not a JSON object stays as sent, for argument validation to refuse.
    expect(decodeArguments('gemini', {}, tool('add_contact'), { _1st_contact: 'Ana', labels: '[1]' }).arguments).toEqual({ '1st_contact': 'Ana', labels: '[1]' });
  });

  it('runs through the session: a strict model\'s nulls and Gemini\'s renames pass validation', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT });
    const strict = await session.runTurn(session.decode([{ id: 'c1', name: 'update_ticket', arguments: '{"id":"T-1","title":"x","note":null,"meta":null}' }], 'openai', { strict: true }));
    expect(strict.responses[0]).toMatchObject({ ok: true, content: '{"stored":{"id":"T-1","title":"x"}}' });
    const gemini = await session.runTurn(session.decode([{ id: 'c2', name: 'add_contact', arguments: { _1st_contact: 'Ana', priority: '3' } }], 'gemini'));
    expect(gemini.responses[0]).toMatchObject({ ok: true, content: '{"added":{"1st_contact":"Ana","priority":3}}' });
    // Without the provider, what the strict model sent is refused, as the catalog says.
    const raw = await session.runTurn([{ id: 'c3', name: 'update_ticket', arguments: { id: 'T-1', title: 'x', note: null } }]);
    expect(raw.responses[0]!.error).toMatch(/argument "note" must be string \(got null\)/);
  });

  it('toolman call --provider openai --strict accepts what a strict model sends', async () => {
    const args = ['--catalog', 'test/fixtures/catalogs/provider-rules.yaml', 'call', 'update_ticket', '--args', '{"id":"T-1","title":"x","note":null,"meta":null}'];
    const refused = await runBin(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/argument "note" must be string \(got null\)/);
    const decoded = await runBin([...args, '--provider', 'openai', '--strict']);
    expect(decoded.code).toBe(0);
    expect(JSON.parse(decoded.stdout)).toEqual({ stored: { id: 'T-1', title: 'x' } });
  });
});
