import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { SourceFile } from '../../src/catalog/source-file.js';

const parse = (text: string) => SourceFile.parse('x.yaml', '/x.yaml', text);

describe('SourceFile', () => {
  const text = [
    'toolman: 1', //                                           1
    'tools:', //                                                 2
    '  - name: "quoted"', //                                     3
    '    parameters: { type: object, required: [a, b] }', //     4
    '  - name: plain', //                                        5
  ].join('\n');

  it('parses data with the YAML 1.2 core schema (dates stay strings)', () => {
    const { file, diagnostics } = parse('a: 2026-11-23\nb: yes\nc: 0x1F\nd: ~\n');
    expect(diagnostics).toEqual([]);
    expect(file.data).toEqual({ a: '2026-11-23', b: 'yes', c: 31, d: null });
  });

  it('locates values, keys, list items and flow nodes by JSON Pointer', () => {
    const { file } = parse(text);
    expect(file.locate('/tools/0/name')).toMatchObject({ line: 3, column: 11 }); // the opening quote
    expect(file.locate('/tools/0/name', 'key')).toMatchObject({ line: 3, column: 5 });
    expect(file.locate('/tools/1')).toMatchObject({ line: 5, column: 5 });
    expect(file.locate('/tools/0/parameters/required/1')).toMatchObject({ line: 4, column: 47 });
    expect(file.locate('')).toMatchObject({ line: 1, column: 1 });
  });

  it('points a pointer past the document at the deepest node that exists', () => {
    const { file } = parse(text);
    expect(file.locate('/tools/0/parameters/properties/x')).toMatchObject({ line: 4, column: 17 });
    expect(file.locate('/tools/7')).toMatchObject({ line: 3, column: 3 });
  });

  it('gives the end of a scalar for carets', () => {
    const { file } = parse(text);
    expect(file.locate('/tools/1/name')).toEqual({ line: 5, column: 11, endLine: 5, endColumn: 16 });
  });

  it('follows aliases to their anchor', () => {
    const { file } = parse('base: &b { x: 1 }\nuse: *b\n');
    expect(file.data).toEqual({ base: { x: 1 }, use: { x: 1 } });
    expect(file.locate('/use/x')).toMatchObject({ line: 1, column: 15 });
  });

  it('reports every duplicate key at the repeated key, keeping the last value', () => {
    const { file, diagnostics } = parse('a: 1\nb:\n  c: 1\n  c: 2\na: 3\n');
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.pointer])).toEqual([
      ['TM0002', 4, 3, '/b/c'],
      ['TM0002', 5, 1, '/a'],
    ]);
    expect(file.data).toEqual({ a: 3, b: { c: 2 } });
  });

  it('a duplicate key takes its first place: the mapping ends where its last entry in that order ends', () => {
    const { file } = parse('m:\n  a: 1\n  b: two\n  a: three\nn: 4\n');
    // As a Map set key by key: a stays first (with the last value), b is last.
    expect(file.range('/m')).toMatchObject({ start: 5, end: 18 });
    expect(file.locate('/m/a')).toMatchObject({ line: 4, column: 6 });
    expect(file.locate('/m/a', 'key')).toMatchObject({ line: 4, column: 3 });
  });

  it('points every scalar of the shipped catalogs at its own text', () => {
    for (const name of ['assistant', 'coding', 'enterprise', 'large/billing', 'large/crm']) {
      const text = readFileSync(join(ROOT, 'catalogs', `${name}.yaml`), 'utf8');
      const { file } = SourceFile.parse(`${name}.yaml`, `/${name}.yaml`, text);
      let checked = 0;
      const walk = (value: unknown, pointer: string): void => {
        if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`));
        else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
        else if (typeof value === 'string' || typeof value === 'number') {
          const range = file.range(pointer)!;
          const written = text.slice(range.start, range.end);
          // Plain one-line scalars read as written; quoted ones start with their quote.
          if (!written.includes('\n') && !/^["'|>]/.test(written)) expect(written, `${name} ${pointer}`).toBe(String(value));
          else expect(['"', "'", '|', '>'].includes(written[0]!) || written.includes('\n'), `${name} ${pointer}`).toBe(true);
          checked++;
        }
      };
      walk(file.data, '');
      expect(checked).toBeGreaterThan(50);
    }
  });

  it('refuses alias bombs without expanding them', () => {
    const rows = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f'], ['h', 'g']]) {
      rows.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const started = performance.now();
    const { file, diagnostics } = parse(rows.join('\n'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(diagnostics.map((d) => d.code)).toEqual(['TM0003']);
    expect(file.data).toBeNull();
  });

  it('turns syntax errors into diagnostics with a 1-based position and a hint', () => {
    const { diagnostics } = parse('a:\n\tb: 1\n');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'TM0001', line: 2, column: 1 });
    expect(diagnostics[0]!.hint).toMatch(/spaces/);
  });

  it('rejects files with several documents', () => {
    const { diagnostics } = parse('a: 1\n---\nb: 2\n');
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([['TM0001', 3]]);
  });

  it('converts offsets to lines and columns and returns line text', () => {
    const { file } = parse('ab\ncd\n\nef');
    expect(file.position(0)).toEqual({ line: 1, column: 1 });
    expect(file.position(4)).toEqual({ line: 2, column: 2 });
    expect(file.position(7)).toEqual({ line: 4, column: 1 });
    expect(file.lineText(2)).toBe('cd');
    expect(file.lineText(9)).toBe('');
  });
});

describe('SourceFile: large mappings', () => {
  it('finds duplicates among many keys, in time linear in the keys', () => {
    const keys = Array.from({ length: 60_000 }, (_, i) => `k${i}: ${i}`);
    keys.push('k17: again', 'k59999: again');
    const started = performance.now();
    const { file, diagnostics } = SourceFile.parse('x.yaml', '/x.yaml', `m:\n${keys.map((k) => `  ${k}`).join('\n')}\n`);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(diagnostics.map((d) => [d.pointer, d.line])).toEqual([
      ['/m/k17', 60_002],
      ['/m/k59999', 60_003],
    ]);
    expect(file.locate('/m/k17')).toMatchObject({ line: 60_002, column: 8 });
    expect(file.locate('/m/k100')).toMatchObject({ line: 102, column: 9 });
  });
});
