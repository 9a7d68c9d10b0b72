import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/catalog/create-ajv.js';
import { inPlaceSchemas, MAX_IN_PLACE_SCHEMAS, MAX_INLINED_NODES, MAX_REFERENCE_DEPTH, schemaReferences } from '../../src/catalog/json-schema.js';
import { loadValidator, validateArguments } from '../../src/execute/argument-validator.js';
import type { JsonSchema, Tool } from '../../src/catalog/types.js';
import { fitsClosedObjects, toAnthropicStrict } from '../../src/providers/anthropic/anthropic-strict-schema.js';
import { decodeArguments } from '../../src/providers/decode-arguments.js';
import { toGeminiSchema } from '../../src/providers/gemini/gemini-schema.js';
import { toOpenAiStrict } from '../../src/providers/openai/openai-strict-schema.js';

/**
 * Schemas from outside (imported files, MCP servers, caches) whose references multiply: each
 * definition refers to the next twice, so inlining them copies the last one 2^N times. Every walker
 * that follows `$ref` must stay linear, and the converter that has to inline (Gemini) must refuse
 * the tool, saying where, instead of expanding it.
 */
function fanOut(definitions: number, how: 'properties' | 'anyOf' = 'properties'): JsonSchema {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < definitions; i++) {
    const next = { $ref: `#/$defs/d${i + 1}` };
    $defs[`d${i}`] =
      i === definitions - 1
        ? how === 'properties' ? { type: 'string', description: 'the end' } : { type: 'object', description: 'the end', properties: { fine: { type: 'string' } } }
        : how === 'properties'
          ? { type: 'object', description: `level ${i}`, properties: { a: next, b: next }, required: ['a', 'b'], additionalProperties: false }
          : { anyOf: [next, { ...next, description: 'again' }] };
  }
  return { type: 'object', properties: { x: { $ref: '#/$defs/d0', description: 'the bomb' } }, required: ['x'], additionalProperties: false, $defs };
}

/** Runs `work` and returns how long it took, in ms. */
function timed(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

describe('a $ref fan-out bomb (30 definitions, each referring to the next twice)', () => {
  const bomb = fanOut(30);

  it('Gemini: refused as unconvertible at the reference it comes from, fast', () => {
    let result!: ReturnType<typeof toGeminiSchema>;
    expect(timed(() => (result = toGeminiSchema(bomb)))).toBeLessThan(2000);
    expect(result).toEqual({ ok: false, reason: `inlining its $refs (Gemini's schema subset has no references) would make more than ${MAX_INLINED_NODES} schema nodes`, path: ['properties', 'x', '$ref'] });
  });

  it('Gemini: a bomb of text (one long description referred to many times) is refused by its size', () => {
    const schema: JsonSchema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { $ref: '#/$defs/long' }])), $defs: { long: { type: 'string', description: 'x'.repeat(10_000) } } };
    const result = toGeminiSchema(schema);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 512 KiB of schema text/), path: ['properties', 'p52', '$ref'] });
  });

  it('Gemini: ordinary reuse of definitions is still inlined', () => {
    const result = toGeminiSchema(fanOut(8));
    expect(result.ok).toBe(true);
  });

  it('OpenAI and Anthropic strict: references are followed once each, so conversion is linear', () => {
    expect(timed(() => toOpenAiStrict(bomb))).toBeLessThan(2000);
    expect(timed(() => toAnthropicStrict(bomb))).toBeLessThan(2000);
    expect(timed(() => schemaReferences(bomb))).toBeLessThan(500);
    expect([...schemaReferences(bomb).used]).toHaveLength(30);
  });

  it('schemaReferences still finds recursion, also behind definitions met before', () => {
    const schema = fanOut(20);
    (schema.$defs as Record<string, JsonSchema>).d19 = { type: 'object', properties: { back: { $ref: '#/$defs/d5' } } };
    expect(schemaReferences(schema).recursive).toEqual({ ref: '#/$defs/d5', path: ['$defs', 'd19', 'properties', 'back', '$ref'] });
  });

  it('a chain of references deeper than the walk goes is reported, not a stack overflow', () => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) $defs[`d${i}`] = { type: 'object', properties: { next: { $ref: `#/$defs/d${i + 1}` } } };
    const schema: JsonSchema = { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs };
    expect(schemaReferences(schema).tooDeep).toBeDefined();
    expect(toOpenAiStrict(schema)).toMatchObject({ strict: false, reason: `the schema nests deeper than ${MAX_REFERENCE_DEPTH} levels (its $refs followed)` });
    expect(toAnthropicStrict(schema)).toMatchObject({ strict: false, reason: expect.stringMatching(/nests deeper/) });
    expect(toGeminiSchema(schema)).toMatchObject({ ok: false, path: ['properties', 'x', '$ref'] });
  });

  it('examples checked against a union bomb (Anthropic strict) are judged once per node', () => {
    const unions = fanOut(40, 'anyOf');
    // A key the leaf does not declare: every branch must be tried, and fails.
    expect(timed(() => expect(fitsClosedObjects({ x: { stray: 1 } }, unions)).toBe(false))).toBeLessThan(1000);
  });

  it('decoding a strict OpenAI call against recursive or multiplying unions ends', () => {
    const $defs: Record<string, unknown> = { loop: { anyOf: [{ $ref: '#/$defs/loop' }, { $ref: '#/$defs/loop' }] } };
    const tool = { name: 't', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/loop' }, b: (fanOut(40, 'anyOf').properties as Record<string, unknown>).x }, $defs: { ...$defs, ...(fanOut(40, 'anyOf').$defs as object) } } } as unknown as Tool;
    let decoded!: ReturnType<typeof decodeArguments>;
    expect(timed(() => (decoded = decodeArguments('openai', { strict: true }, tool, { a: null, b: null })))).toBeLessThan(1000);
    expect(decoded.arguments).toEqual({});
  });

  it('a reference with a broken %-escape points at nothing instead of throwing', () => {
    const schema: JsonSchema = { type: 'object', properties: { x: { $ref: '#/$defs/%E0' } }, $defs: { a: { type: 'string' } } };
    expect(toGeminiSchema(schema)).toMatchObject({ ok: false, reason: expect.stringMatching(/points at nothing/) });
    expect(() => schemaReferences(schema)).not.toThrow();
    expect(() => toOpenAiStrict(schema)).not.toThrow();
  });

  it('a union bomb (unions of references to the same definitions) is never compiled: ajv would try 2^N schemas on one value', async () => {
    await loadValidator();
    const unions = fanOut(40, 'anyOf');
    let found!: ReturnType<typeof inPlaceSchemas>;
    expect(timed(() => (found = inPlaceSchemas(unions)))).toBeLessThan(500);
    expect(found.count).toBeGreaterThan(MAX_IN_PLACE_SCHEMAS);
    expect(found.path).toEqual(['properties', 'x']);
    expect(() => createAjv().compile(unions)).toThrow(/subschemas applied to one value .* at "#\/properties\/x": checking a value could take exponential time/);
    // A call's arguments against it: refused at once, not checked for ever.
    const tool = { name: 'boom', parameters: unions } as unknown as Tool;
    let result!: ReturnType<typeof validateArguments>;
    expect(timed(() => (result = validateArguments(tool, { x: { stray: 1 } })))).toBeLessThan(1000);
    expect(result).toMatchObject({ valid: false, message: expect.stringMatching(/does not compile .*exponential time/) });
  });

  it('references that loop back to the same value without going deeper are refused; recursion through properties is not', () => {
    const loop: JsonSchema = { type: 'object', properties: { x: { $ref: '#/$defs/a' } }, $defs: { a: { anyOf: [{ $ref: '#/$defs/b' }, { type: 'string' }] }, b: { allOf: [{ $ref: '#/$defs/a' }] } } };
    expect(inPlaceSchemas(loop).count).toBe(Infinity);
    expect(() => createAjv().compile(loop)).toThrow(/references that loop back to the same value/);
    const tree: JsonSchema = { type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } } };
    expect(inPlaceSchemas(tree).count).toBeLessThan(10);
    expect(() => createAjv().compile(tree)).not.toThrow();
  });
});
