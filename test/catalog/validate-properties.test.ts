import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../helpers/paths.js';
import { runBin, runMain } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'toolman-prop-'));
let counter = 0;
function write(text: string): string {
  const file = join(dir, `c${counter++}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** Values that are wrong in interesting ways wherever they land in a catalog. */
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constantFrom('', 'object', 'destructive', '*', 'category:', 'tag:x', '{{args.x}}', '#/$defs/nope', 'http://', '../../etc/passwd'),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('type', 'enum', 'name', 'required', '$ref', 'properties', 'mock'), fc.oneof(fc.string(), fc.integer(), fc.constant([])), { maxKeys: 3 }),
);

type Json = unknown;
/** Replaces, deletes or adds one node somewhere in the document, chosen by `path`. */
function mutate(doc: Json, path: number[], action: number, value: Json): Json {
  if (path.length === 0 || doc === null || typeof doc !== 'object') return value;
  const [step, ...rest] = path as [number, ...number[]];
  if (Array.isArray(doc)) {
    if (doc.length === 0) return action % 2 ? [value] : doc;
    const i = step % doc.length;
    const copy = [...doc];
    if (rest.length === 0 && action % 3 === 0) copy.splice(i, 1);
    else copy[i] = mutate(copy[i], rest, action, value);
    return copy;
  }
  const keys = Object.keys(doc as object);
  if (keys.length === 0) return { injected: value };
  const key = keys[step % keys.length]!;
  const copy: Record<string, Json> = { ...(doc as Record<string, Json>) };
  if (rest.length === 0 && action % 3 === 0) delete copy[key];
  else if (rest.length === 0 && action % 3 === 1) copy[`${key}_x`] = value;
  else copy[key] = mutate(copy[key], rest, action, value);
  return copy;
}

const seeds = ['assistant.yaml', 'coding.yaml', 'enterprise.yaml'].map((f) => load(readFileSync(join(CATALOGS, f), 'utf8')));

describe('validate never crashes', () => {
  it('on mutated real catalogs: exit 0, 1 or 2 and never an internal error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(seeds.length - 1),
        fc.array(fc.tuple(fc.array(fc.nat(40), { minLength: 1, maxLength: 7 }), fc.nat(5), junk), { minLength: 1, maxLength: 4 }),
        async (seed, mutations) => {
          let doc: Json = seeds[seed];
          for (const [path, action, value] of mutations) doc = mutate(doc, path, action, value);
          const file = write(dump(doc, { skipInvalid: true }));
          const run = await runMain(['validate', '--json', file]);
          expect([0, 1, 2]).toContain(run.code);
          expect(run.stderr).not.toContain('internal error');
          const parsed = JSON.parse(run.stdout);
          expect(parsed.ok).toBe(run.code === 0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('on arbitrary text: exit 0, 1 or 2 and never an internal error', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(fc.constantFrom('toolman: 1\n', 'tools:\n', '  - name: a\n', '    description: x\n', '  - {', '[', ']', ': ', '&a ', '*a\n', '- ', '\t', '"', "'", '---\n', '#c\n', '    parameters: {type: object}\n', '  ? x\n'), { maxLength: 20 }).map((parts) => parts.join('')),
    );
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        const run = await runMain(['validate', '--json', write(content)]);
        expect([0, 1, 2]).toContain(run.code);
        expect(run.stderr).not.toContain('internal error');
        JSON.parse(run.stdout);
      }),
      { numRuns: 300 },
    );
  });

  it('through the built binary too (fewer runs: each spawns node)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(seeds.length - 1), fc.array(fc.nat(40), { minLength: 1, maxLength: 6 }), fc.nat(5), junk, async (seed, path, action, value) => {
        const file = write(dump(mutate(seeds[seed], path, action, value), { skipInvalid: true }));
        const run = await runBin(['validate', file]);
        expect([0, 1, 2]).toContain(run.code);
        expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
      }),
      { numRuns: 15 },
    );
  });
});
