import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { CORE_SCHEMA, load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGS } from '../helpers/paths.js';
import { compactData, ownCopy } from '../../src/catalog/compact-data.js';
import { SourceFile } from '../../src/catalog/source-file.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { generateCatalog } from '../../bench/generate-catalog.mjs';

const plainLoad = (text: string) => load(text, { schema: CORE_SCHEMA, json: true });

describe('compactData: the same values, held smaller', () => {
  it('gives data equal to what the parser built, for every shipped catalog', () => {
    for (const name of ['assistant.yaml', 'coding.yaml', 'enterprise.yaml', 'large.yaml']) {
      const text = readFileSync(join(CATALOGS, name), 'utf8');
      expect(SourceFile.parse(name, name, text).file.data).toEqual(plainLoad(text));
    }
  });

  it('keeps text with characters beyond Latin-1, a `__proto__` key and a lone surrogate exactly', () => {
    const text = [
      'description: "Sends the message \u2014 then waits for the reply \u{1F600}, as written"',
      '__proto__: { polluted: yes it is, and long enough }',
      'lone: "a string with a lone \\ud800 surrogate in it"',
      'list: [first item of the list, second, 3]',
      '',
    ].join('\n');
    const data = SourceFile.parse('x.yaml', '/x.yaml', text).file.data as Record<string, unknown>;
    expect(data).toEqual(plainLoad(text));
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.hasOwn(data, '__proto__')).toBe(true);
    expect(data.lone).toBe('a string with a lone \ud800 surrogate in it');
  });

  it('copies arrays and strings but changes no value', () => {
    const value = { a: ['x'.repeat(40), 'short', { b: ['short', 'y\u2014'.repeat(10)] }], c: 1, d: null, e: true };
    expect(compactData(structuredClone(value))).toEqual(value);
    expect(ownCopy('caf\u00e9 \u2014 with a long enough tail')).toBe('caf\u00e9 \u2014 with a long enough tail');
  });
});

describe('SourceFile: the text kept as UTF-8 bytes', () => {
  const text = 'toolman: 1\r\ntools:\r\n  - name: caf\u00e9\r\n    description: "dash \u2014 and \u{1F600} emoji"\r\n\r\nlast: line without newline';
  const file = SourceFile.parse('x.yaml', '/x.yaml', text).file;

  it('gives back the text, its lines, its head and its hash exactly', () => {
    expect(file.text).toBe(text);
    const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
    lines.forEach((line, i) => expect(file.lineText(i + 1)).toBe(line));
    expect(file.lineText(0)).toBe('');
    expect(file.lineText(lines.length + 1)).toBe('');
    expect(file.head(25)).toBe(text.slice(0, 25));
    expect(file.includes('\u2014 and')).toBe(true);
    expect(file.includes('absent')).toBe(false);
    const hash = createHash('sha256');
    expect(file.hashInto(hash)).toBe(Buffer.byteLength(text));
    expect(hash.digest('hex')).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('places nodes after characters beyond Latin-1 in UTF-16 columns, as before', () => {
    expect(file.locate('/tools/0/description')).toMatchObject({ line: 4, column: 18 });
    const other = SourceFile.parse('y.yaml', '/y.yaml', 'a: 1\n').file;
    expect(other.text).toBe('a: 1\n'); // decoding another file's text does not mix them up
    expect(file.lineText(3)).toBe('  - name: caf\u00e9');
    expect(file.text).toBe(text);
  });
});

describe('memory per tool (regression: issue 24, 50,000 tools < 600 MB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-memory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a loaded catalog of 2,000 real tool definitions holds under 5.5 KB a tool, V8 heap and buffers (about 4.5 now; it was about 7.5)', () => {
    const { rootFile } = generateCatalog(dir, 2_000) as { rootFile: string };
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    // Once first, kept, so the modules and their caches are not counted; then a second copy.
    const first = loadCatalog([rootFile]);
    const before = used();
    const loaded = loadCatalog([rootFile]);
    const perTool = (used() - before) / loaded.catalog.tools.length;
    expect(first.catalog.tools).toHaveLength(2_000);
    expect(loaded.catalog.tools).toHaveLength(2_000);
    expect(perTool).toBeLessThan(5.5 * 1024);
  });
});
