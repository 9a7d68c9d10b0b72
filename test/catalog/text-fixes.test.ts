import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/catalog/source-file.js';
import { addEntryBeforeEdit, appendToListEdit, applyFixes, removeEntryEdit, renameKey, yamlScalar } from '../../src/catalog/text-fixes.js';
import { diagnosticsDocsUrl } from '../../src/cli/output/diagnostics-sarif.js';

const parse = (text: string) => SourceFile.parse('c.yaml', '/c.yaml', text).file;
const edit = (text: string, edits: ({ start: number; end: number; text: string } | undefined)[]) => applyFixes(text, [{ description: 'x', edits: edits.map((e) => e!) }]).text;

describe('text fixes: edits at source offsets that keep everything else', () => {
  it('removes a block entry with its line (and comment), a flow entry with its comma', () => {
    const block = 'a:\n  b: 1\n  required: true   # wrong\n  c: 2\n';
    expect(edit(block, [removeEntryEdit(parse(block), '/a/required')])).toBe('a:\n  b: 1\n  c: 2\n');
    const flow = 'a: { b: 1, required: true, c: 2 }\n';
    expect(edit(flow, [removeEntryEdit(parse(flow), '/a/required')])).toBe('a: { b: 1, c: 2 }\n');
    const last = 'a: { b: 1, required: true }\n';
    expect(edit(last, [removeEntryEdit(parse(last), '/a/required')])).toBe('a: { b: 1 }\n');
  });

  it('appends to flow and block lists, empty or not', () => {
    const flow = 'r: [a, b]\ne: []\n';
    expect(edit(flow, [appendToListEdit(parse(flow), '/r', 'c')])).toBe('r: [a, b, c]\ne: []\n');
    expect(edit(flow, [appendToListEdit(parse(flow), '/e', 'c')])).toBe('r: [a, b]\ne: [c]\n');
    const block = 'r:\n  - a\n  - b\nx: 1\n';
    expect(edit(block, [appendToListEdit(parse(block), '/r', 'c')])).toBe('r:\n  - a\n  - b\n  - c\nx: 1\n');
  });

  it('adds an entry before another, in block and flow style', () => {
    const block = 'p:\n  type: object\n  properties: {}\n';
    expect(edit(block, [addEntryBeforeEdit(parse(block), '/p', 'properties', 'required', '[a]')])).toBe('p:\n  type: object\n  required: [a]\n  properties: {}\n');
    const flow = 'p: { type: object, properties: {} }\n';
    expect(edit(flow, [addEntryBeforeEdit(parse(flow), '/p', 'properties', 'required', '[a]')])).toBe('p: { type: object, required: [a], properties: {} }\n');
  });

  it('renames quoted keys; quotes scalars that would read back otherwise', () => {
    const text = '"descripton": x\n';
    expect(applyFixes(text, [renameKey(parse(text), '/descripton', 'description', 'r')!]).text).toBe('description: x\n');
    expect(yamlScalar('-la')).toBe('"-la"');
    expect(yamlScalar('yes')).toBe('"yes"');
    expect(yamlScalar('ls')).toBe('ls');
  });

  it('applies a fix whole or not at all: one overlapping another waits', () => {
    const text = 'abcdef';
    const { text: out, applied } = applyFixes(text, [
      { description: 'one', edits: [{ start: 0, end: 2, text: 'X' }, { start: 4, end: 4, text: '!' }] },
      { description: 'two', edits: [{ start: 1, end: 3, text: 'Y' }] },
    ]);
    expect(applied.map((f) => f.description)).toEqual(['one']);
    expect(out).toBe('Xcd!ef');
  });
});

describe("SARIF helpUri from package.json", () => {
  it('a blob URL on GitHub, GitLab or Bitbucket; the homepage\'s docs otherwise; none without either', () => {
    expect(diagnosticsDocsUrl({ repository: { url: 'git+https://github.com/acme/toolman.git' } })).toBe('https://github.com/acme/toolman/blob/HEAD/docs/diagnostics.md');
    expect(diagnosticsDocsUrl({ repository: 'git@gitlab.com:acme/toolman.git' })).toBe('https://gitlab.com/acme/toolman/-/blob/HEAD/docs/diagnostics.md');
    expect(diagnosticsDocsUrl({ repository: 'github:acme/toolman' })).toBe('https://github.com/acme/toolman/blob/HEAD/docs/diagnostics.md');
    expect(diagnosticsDocsUrl({ homepage: 'https://toolman.example/#readme' })).toBe('https://toolman.example/docs/diagnostics.md');
    expect(diagnosticsDocsUrl({})).toBeUndefined();
  });
});
