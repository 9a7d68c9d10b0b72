import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.js';
import { pathFromShape, schemaShape } from '../../src/validate/schema-shape.js';

describe('schemaShape', () => {
  it('gives schemas that differ only in names and annotations one shape', () => {
    const a = schemaShape({ type: 'object', description: 'A', properties: { city: { type: 'string', description: 'x' } }, required: ['city'] });
    const b = schemaShape({ type: 'object', properties: { town: { type: 'string', title: 'T', default: 'Oslo' } }, required: ['town'] });
    expect(a.shape).toEqual(b.shape);
    expect(a.shape).toEqual({ type: 'object', properties: { p0: { type: 'string' } }, required: ['p0'] });
  });

  it('keeps everything strict mode looks at', () => {
    const a = schemaShape({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } });
    const b = schemaShape({ type: 'object', properties: { n: { type: 'integer', minimum: 2 } } });
    const c = schemaShape({ type: 'object', properties: { n: { type: 'integer', minimum: 1, foo: true } } });
    expect(a.shape).not.toEqual(b.shape);
    expect(a.shape).not.toEqual(c.shape);
  });

  it('keeps names in maps that are not properties, and in schemas with $ref', () => {
    const withDefs = schemaShape({ type: 'object', $defs: { description: { type: 'string' } }, properties: { a: { $ref: '#/$defs/description' } } });
    expect(withDefs.renamed).toBe(false);
    expect(withDefs.shape).toEqual({ type: 'object', $defs: { description: { type: 'string' } }, properties: { a: { $ref: '#/$defs/description' } } });
  });

  it('maps a path in the shape back to the real property names', () => {
    const schema = { type: 'object', properties: { alpha: { type: 'object', properties: { beta: { minLength: 1 } } } } };
    const { renamed } = schemaShape(schema);
    expect(pathFromShape(schema, ['properties', 'p0', 'properties', 'p0'], renamed)).toEqual(['properties', 'alpha', 'properties', 'beta']);
  });
});

describe('the precomputed clean shapes (src/generated/clean-shapes.ts)', () => {
  it('are exactly the common shapes that strict ajv compiles without a complaint', async () => {
    const { default: clean } = await import('../../src/generated/clean-shapes.js');
    const { runStrictJob } = await import('../../src/validate/strict-compile.js');
    const common: string[] = JSON.parse(readFileSync(join(ROOT, 'scripts', 'common-shapes.json'), 'utf8'));
    expect(clean.size).toBeGreaterThan(50);
    for (const key of common) expect(clean.has(key), key).toBe(runStrictJob({ id: 0, schema: JSON.parse(key), examples: [] }).complaints.length === 0);
    // A shape with a complaint is never skipped.
    expect(clean.has(JSON.stringify({ type: 'string', minimum: 1 }))).toBe(false);
  });
});
