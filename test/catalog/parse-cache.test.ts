import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { survivesJson, type ParseCache } from '../../src/catalog/parse-cache.js';
import { checkLoadedCatalog, runChecks, withRuleSettings } from '../../src/validate/validate-catalog.js';
import { descriptionQuality } from '../../src/validate/description-quality.js';
import { rememberedGrades, rememberGrades } from '../../src/validate/remembered-checks.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { readdirSync } from 'node:fs';

/** A cache in memory that counts what it was asked, storing JSON text as the disk store does. */
function memoryCache() {
  const entries = new Map<string, string>();
  const stats = { hits: 0, misses: 0, sets: 0 };
  const cache: ParseCache = {
    get(text) {
      const json = entries.get(text);
      if (json === undefined) {
        stats.misses++;
        return undefined;
      }
      stats.hits++;
      return JSON.parse(json);
    },
    set(text, data) {
      stats.sets++;
      entries.set(text, JSON.stringify(data));
    },
  };
  return { cache, stats, entries };
}

function catalogFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-parse-cache-'));
  const file = join(dir, 'catalog.yaml');
  writeFileSync(file, text);
  return file;
}

describe('the parse cache', () => {
  it('gives the same catalog and the same findings, at the same positions, from cached files', async () => {
    const { cache, stats } = memoryCache();
    const first = loadCatalog(['catalogs/large.yaml'], { cwd: ROOT, parseCache: cache });
    expect(stats).toEqual({ hits: 0, misses: 14, sets: 14 });
    const second = loadCatalog(['catalogs/large.yaml'], { cwd: ROOT, parseCache: cache });
    expect(stats.hits).toBe(14);
    expect(second.catalog.tools).toEqual(first.catalog.tools);
    expect(second.diagnostics).toEqual(first.diagnostics);
    // A catalog with findings in an included file: the positions come from the text, parsed when asked.
    const file = catalogFile('toolman: 1\ntools:\n  - name: get_thing\n    description: x\n    parameters: { type: object, properties: { a: { type: string } } }\n    handler: { mock: [ { result: ok } ] }\n');
    const plain = await checkLoadedCatalog(loadCatalog([file]));
    loadCatalog([file], { parseCache: cache });
    const fromCache = await checkLoadedCatalog(loadCatalog([file], { parseCache: cache }));
    expect(plain.length).toBeGreaterThan(0);
    expect(fromCache).toEqual(plain);
  });

  it('stores only clean files whose data JSON keeps exactly', () => {
    const { cache, stats } = memoryCache();
    const texts = [
      'toolman: 1\nname: a\nname: b\ntools: []\n', // duplicate key: a finding
      'toolman: 1\nx: &a { k: 1 }\ny: *a\ntools: []\n', // an alias: shared nodes
      'toolman: 1\nx: .inf\ntools: []\n', // Infinity does not survive JSON
      'toolman: 1\ntools: [\n', // not YAML
      'just: some file\n', // not a catalog
    ];
    for (const text of texts) loadCatalog([catalogFile(text)], { parseCache: cache });
    expect(stats.sets).toBe(0);
  });

  it('knows which values survive JSON', () => {
    const shared = { a: 1 };
    expect(survivesJson({ a: [1, 'x', null, true, { b: 2.5 }] })).toBe(true);
    expect(survivesJson({ a: Number.NaN })).toBe(false);
    expect(survivesJson([Number.POSITIVE_INFINITY])).toBe(false);
    expect(survivesJson({ a: -0 })).toBe(false);
    expect(survivesJson({ x: shared, y: shared })).toBe(false);
  });
});

/** Every diagnostic fixture and shipped catalog. */
const files = [
  ...['assistant', 'coding', 'enterprise', 'large'].map((name) => `catalogs/${name}.yaml`),
  ...readdirSync(join(FIXTURES, 'diagnostics')).filter((f) => f.endsWith('.yaml')).map((f) => join(FIXTURES, 'diagnostics', f)),
];

/** What validate reports for `file`, with the given caches. */
function checked(file: string, caches: { schemaChecks?: ParseCache; findings?: ParseCache } = {}) {
  const loaded = loadCatalog([file], { cwd: ROOT });
  return withRuleSettings(loaded, runChecks(loaded, caches));
}

/** Checks every file fresh, then twice with one cache: the same findings each time. Returns the cache's counts. */
function expectSameWithCache(findings: (file: string, cache?: ParseCache) => unknown) {
  const { cache, stats } = memoryCache();
  for (const file of files) {
    const fresh = findings(file);
    expect(findings(file, cache), file).toEqual(fresh);
    expect(findings(file, cache), file).toEqual(fresh);
  }
  return stats;
}

/** A fixture with a finding from a schema compile. */
const TM0308 = join(FIXTURES, 'diagnostics', readdirSync(join(FIXTURES, 'diagnostics')).find((f) => f.startsWith('TM0308'))!);

/** Its one entry replaced by each of `damaged` (given the entry as stored): the findings stay the fresh ones. */
function expectMissWhenDamaged(findings: (file: string, cache?: ParseCache) => unknown, damaged: (stored: string) => string[]) {
  const { cache, entries } = memoryCache();
  const fresh = findings(TM0308);
  findings(TM0308, cache);
  expect(entries.size).toBe(1);
  const key = [...entries.keys()][0]!;
  for (const entry of damaged(entries.get(key)!)) {
    entries.set(key, entry);
    expect(findings(TM0308, cache)).toEqual(fresh);
  }
}

describe('the schema-check cache', () => {
  const findings = (file: string, schemaChecks?: ParseCache) => checked(file, schemaChecks ? { schemaChecks } : {});

  it('gives the same findings from remembered compiles as from fresh ones, for every diagnostic fixture and shipped catalog', () => {
    const stats = expectSameWithCache(findings);
    // Every stored result was read back (files whose schemas are all known clean compile nothing).
    expect(stats.sets).toBeGreaterThan(5);
    expect(stats.hits).toBeGreaterThanOrEqual(stats.sets);
  });

  it('treats a damaged entry as a miss', () => {
    expectMissWhenDamaged(findings, () => ['[]', '[{"complaints": "not a list", "examples": []}]', '{"x": 1}']);
  });
});

describe('the findings cache', () => {
  const findings = (file: string, cache?: ParseCache) => checked(file, cache ? { findings: cache } : {});

  it('gives the same findings, at the same positions, as checking again, for every diagnostic fixture and shipped catalog', () => {
    const stats = expectSameWithCache(findings);
    expect(stats.sets).toBe(files.length);
    expect(stats.hits).toBe(files.length);
  });

  it('the opt-in quality rules still run on demand over remembered findings', () => {
    const { cache } = memoryCache();
    const loaded = () => loadCatalog(['catalogs/assistant.yaml'], { cwd: ROOT });
    const quality = new Map([['TM1101', 'info']] as const);
    const fresh = withRuleSettings(loaded(), runChecks(loaded()), quality);
    runChecks(loaded(), { findings: cache });
    expect(withRuleSettings(loaded(), runChecks(loaded(), { findings: cache }), quality)).toEqual(fresh);
  });

  it('a module file that appears or goes away is checked again', () => {
    const { cache } = memoryCache();
    const dir = mkdtempSync(join(tmpdir(), 'toolman-findings-'));
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, 'toolman: 1\ntools:\n  - name: shout\n    description: Repeats the given text in capital letters, for testing module handlers.\n    parameters: { type: object, properties: { text: { type: string, description: What to repeat } } }\n    handler: { module: ./shout.mjs }\n');
    const codes = () => findings(file, cache).map((d) => d.code);
    expect(codes()).toContain('TM0703');
    writeFileSync(join(dir, 'shout.mjs'), 'export default ({ text }) => text.toUpperCase();\n');
    expect(codes()).not.toContain('TM0703');
  });

  it('treats a damaged entry as a miss', () => {
    expectMissWhenDamaged(findings, (stored) => {
      const good = JSON.parse(stored) as { diagnostics: Record<string, unknown>[] };
      return [
        '[]',
        '{"diagnostics": [], "levels": [], "quality": "done"}',
        JSON.stringify({ ...good, levels: [['TM9999', 'off']] }),
        JSON.stringify({ ...good, diagnostics: [{ ...good.diagnostics[0], code: 'TM9999' }] }),
        JSON.stringify({ ...good, diagnostics: [{ ...good.diagnostics[0], line: '3' }] }),
        JSON.stringify({ ...good, diagnostics: [{ ...good.diagnostics[0], fix: { description: 'x', edits: [{ start: 0 }] } }] }),
      ];
    });
  });
});

describe('the quality grades remembered with the findings', () => {
  const load = (file: string) => loadCatalog([file], { cwd: ROOT });

  it('are the grades description-quality gives, field for field and in order, for every diagnostic fixture and shipped catalog', () => {
    const { cache, stats } = memoryCache();
    for (const file of files) {
      const fresh = descriptionQuality(load(file).catalog).tools;
      expect(rememberedGrades(load(file), cache), file).toBeUndefined();
      rememberGrades(load(file), cache, fresh);
      const remembered = rememberedGrades(load(file), cache);
      expect(JSON.stringify(remembered), file).toBe(JSON.stringify(fresh));
    }
    expect(stats.hits).toBe(files.length);
  });

  it('are a miss when an entry has another shape, or when a file changes', () => {
    const { cache, entries } = memoryCache();
    const file = 'catalogs/assistant.yaml';
    const fresh = descriptionQuality(load(file).catalog).tools;
    rememberGrades(load(file), cache, fresh);
    const key = [...entries.keys()][0]!;
    const good = JSON.parse(entries.get(key)!) as Record<string, unknown>[];
    for (const damaged of [
      '{}',
      '[1]',
      JSON.stringify([{ ...good[0], score: 101 }]),
      JSON.stringify([{ ...good[0], score: 50.5 }]),
      JSON.stringify([{ ...good[0], graded_by: 'judge' }]),
      JSON.stringify([{ ...good[0], checks: { ...(good[0]!.checks as object), extra: true } }]),
      JSON.stringify([{ ...good[0], checks: { ...(good[0]!.checks as object), usage: 'yes' } }]),
      JSON.stringify([{ ...good[0], tool: 7 }]),
    ]) {
      entries.set(key, damaged);
      expect(rememberedGrades(load(file), cache), damaged).toBeUndefined();
    }
    // Keys stay in their order and nothing else comes along: a remembered grade is rebuilt, not passed through.
    entries.set(key, JSON.stringify(good.map((g) => ({ note: 'x', ...g, checks: Object.fromEntries(Object.entries(g.checks as object).reverse()) }))));
    expect(JSON.stringify(rememberedGrades(load(file), cache))).toBe(JSON.stringify(fresh));
    const dir = mkdtempSync(join(tmpdir(), 'toolman-grades-'));
    writeFileSync(join(dir, 'catalog.yaml'), 'toolman: 1\ntools:\n  - name: shout\n    description: Repeats the given text in capital letters.\n    handler: { mock: [{ result: ok }] }\n');
    rememberGrades(load(join(dir, 'catalog.yaml')), cache, descriptionQuality(load(join(dir, 'catalog.yaml')).catalog).tools);
    writeFileSync(join(dir, 'catalog.yaml'), 'toolman: 1\ntools:\n  - name: shout\n    description: Repeats the given text in capital letters. Use it when asked to shout.\n    handler: { mock: [{ result: ok }] }\n');
    expect(rememberedGrades(load(join(dir, 'catalog.yaml')), cache)).toBeUndefined();
  });
});
