import type { JsonSchema } from '../catalog/types.js';
import { splitWords } from '../search/tokenize.js';
import { BARE_VERBS, CANONICAL, COMPATIBLE, GENERIC_NAME_WORDS, GENERIC_PARAMETERS, LEAD_IN, PREPOSITIONS, STOP, WEAK_WORDS, canonical, parameterName, stem } from './tool-words.js';

/** What the rule reads of a tool (a catalog tool, an MCP server's, or one of the labelled set's). */
export interface ToolText {
  name: string;
  title?: string;
  summary?: string;
  description?: string;
  parameters: JsonSchema;
}

/** Two tools of one selection a model may mix up, with the evidence. */
export interface ConfusablePair {
  a: string;
  b: string;
  score: number;
  /** How alike the texts read (0-1), after verbs of one kind are made one word (find = search). */
  text_score: number;
  /** Jaccard overlap of parameter names (null when neither takes any). */
  parameter_overlap: number | null;
  /** Why the pair was discounted, when it was: the actions or the objects differ. */
  distinct_by: string | null;
  /** Rare words both descriptions use, as written. */
  shared_words: string[];
}

/**
 * The rule's settings. The defaults were chosen on the tuning half of the labelled set
 * (test/fixtures/confusable/labelled-set.yaml) and measured on the other half: docs/testing.md.
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
  /** Score multipliers when the two tools are told apart by what they do or what they act on. */
  actionConflict: number;
  objectConflict: number;
  oneSidedObject: number;
  countConflict: number;
}

export const CONFUSABLE_SETTINGS: ConfusableSettings = {
  threshold: 0.55,
  parameterWeight: 0.5,
  parameterTextFloor: 0.3,
  cosineShare: 0.7,
  idfPrior: 20,
  actionConflict: 0.3,
  objectConflict: 0.45,
  oneSidedObject: 0.9,
  countConflict: 0.6,
};

/** A name word besides the action: as compared (`canon`), as the text index has it (`term`), as written. */
interface NameWord {
  canon: string;
  term: string;
  raw: string;
}

/** Everything the scores need about one tool, computed once per check. */
interface Profile {
  name: string;
  /** The action the name starts with (`@find`), or `!` + the verb negated (`unstar`). */
  action: string | undefined;
  actionWord: string | undefined;
  /** Name words besides the action and qualifiers: canonical form, and as written. */
  objects: NameWord[];
  /** The head noun: the last object word before a preposition (`directory` in `list_directory_with_sizes`). */
  head: NameWord | undefined;
  /** Canonical tokens of the name, title, summary and description, and how often each occurs. */
  terms: Map<string, number>;
  /** The same words as written, for evidence. */
  spelled: Map<string, string>;
  /** The text's words as stems only (`tag` stays `tag` here; in `terms` it is a verb kind). */
  stems: Set<string>;
  parameters: Set<string>;
}

function profileOf(tool: ToolText, otherNames: readonly string[]): Profile {
  const nameWords = splitWords(tool.name).filter((w) => !/^[0-9]+$/.test(w));
  let action: string | undefined;
  let actionWord: string | undefined;
  const objects: NameWord[] = [];
  let head: NameWord | undefined;
  let qualifying = false;
  // The action: the name's first verb that is rarely a noun (`crm_search_accounts`, `issue_read`,
  // `label_write`), else a verb that starts the name (`log_food`), else the negation of one
  // (`unstar`), else the name word the description starts with ("Handle a dialog"): descriptions
  // open with the tool's verb, so this finds verbs the lexicon does not know.
  const verbAt = nameWords.map((word) => canonical(word)).map((c) => c.startsWith('@') && c !== '@many');
  let at = nameWords.findIndex((word, i) => verbAt[i] && BARE_VERBS.has(word));
  if (at < 0 && verbAt[0]) at = 0;
  if (at >= 0) {
    action = canonical(nameWords[at]!);
  } else {
    at = nameWords.findIndex((word) => /^un[a-z]{3,}/.test(word) && canonical(word.slice(2)).startsWith('@'));
    if (at >= 0) action = `!${canonical(nameWords[at]!.slice(2))}`;
  }
  if (at < 0 && nameWords.length > 1) {
    const leading = splitWords(tool.description ?? '').find((w) => !LEAD_IN.has(w));
    at = leading === undefined ? -1 : nameWords.findIndex((word) => !PREPOSITIONS.has(word) && stem(word) === stem(leading));
    if (at >= 0) action = `~${stem(nameWords[at]!)}`;
  }
  if (at >= 0) actionWord = nameWords[at];
  nameWords.forEach((word, i) => {
    if (i === at) return;
    const c = canonical(word);
    if (PREPOSITIONS.has(word)) qualifying = true;
    if (GENERIC_NAME_WORDS.has(word)) return;
    // A verb after the action is used as a noun (`book_property_viewing`).
    const object = { canon: c.startsWith('@') && c !== '@many' ? stem(word) : c, term: c, raw: word };
    objects.push(object);
    if (!qualifying) head = object;
  });
  const terms = new Map<string, number>();
  const spelled = new Map<string, string>();
  const stems = new Set<string>();
  // Other tools named in the text ("use browser_snapshot for actions") are references, not what this one is about.
  let description = `${tool.title ?? ''} ${tool.summary ?? ''} ${tool.description ?? ''}`;
  for (const other of otherNames) if (other !== tool.name && description.includes(other)) description = description.split(other).join(' ');
  const text = `${nameWords.join(' ')} ${description}`;
  for (const word of splitWords(text)) {
    if (STOP.has(word) || /^[0-9]+$/.test(word) || word.length < 2) continue;
    const c = canonical(word);
    terms.set(c, (terms.get(c) ?? 0) + 1);
    stems.add(CANONICAL.has(word) && !c.startsWith('@') && !c.startsWith('#') ? c : stem(word));
    if (!spelled.has(c)) spelled.set(c, word);
  }
  const properties = (tool.parameters.properties as Record<string, unknown> | undefined) ?? {};
  const parameters = new Set(Object.keys(properties).map(parameterName));
  return { name: tool.name, action, actionWord, objects, head, terms, spelled, stems, parameters };
}

/**
 * `get_discussion_comments` against `get_discussion`: what the first acts on (comments) belongs to
 * what the second acts on, which the first's name uses as a qualifier, and the second never
 * mentions it. (`modify_file_lines` / `edit_file` stay alike: edit_file speaks of lines.)
 */
function partOfOther(a: Profile, b: Profile): string | undefined {
  if (!a.head || !b.head || a.head.canon === b.head.canon) return undefined;
  // An agent noun names the tool, not a thing (`time_zone_converter`).
  if (/(er|or)s?$/.test(a.head.raw) && CANONICAL.get(a.head.raw.replace(/(er|or)s?$/, ''))?.startsWith('@')) return undefined;
  if (/(er|or)s?$/.test(a.head.raw) && CANONICAL.get(a.head.raw.replace(/(er|or)s?$/, 'e'))?.startsWith('@')) return undefined;
  // A name whose only object is its first word (`browser_navigate`) names a namespace, not a thing.
  if (b.objects.length === 1 && b.objects[0]!.raw === splitWords(b.name)[0]) return undefined;
  if (!a.objects.some((o) => o !== a.head && o.canon === b.head!.canon)) return undefined;
  if (b.objects.some((o) => o.canon === a.head!.canon) || mentions(b, a.head)) return undefined;
  return `${a.head.raw} of ${b.head.raw}`;
}

/** Nouns that name many of something (`get_commit_history`). */
const COLLECTIVE_NOUNS = new Set(['history', 'log', 'logs', 'feed', 'timeline', 'list', 'listing', 'all', 'catalog', 'index']);

/**
 * Whether a tool acts on one thing or on many: listing and searching return many; a get or read
 * of a plural (`get_branches`) many, of a singular (`get_commit`) one; otherwise it cannot tell.
 */
function multiplicity(p: Profile): 'one' | 'many' | undefined {
  if (p.action === '@list' || p.action === '@find') return 'many';
  if (p.action !== '@get') return undefined;
  const words = splitWords(p.name);
  if (words.some((w) => COLLECTIVE_NOUNS.has(w) || CANONICAL.get(w) === '@many')) return 'many';
  if (!p.head) return undefined;
  const count = plural(p.head.raw);
  return count === undefined ? undefined : count ? 'many' : 'one';
}

/** Whether a word as written is plural (`commits`), singular (`commit`), or cannot tell. */
function plural(word: string): boolean | undefined {
  if (word.length < 3 || /(ss|us|is|news|series)$/.test(word)) return undefined;
  return /[^s]s$/.test(word);
}

/** Whether a name word occurs in the profile's text, as a word or inside one (`directory` in `subdirectories`). */
function mentions(profile: Profile, nameWord: NameWord): boolean {
  // Verb kinds join words that are different nouns (`label` and `tag`): compare name words by stem.
  if (profile.stems.has(nameWord.canon) || (!nameWord.term.startsWith('@') && profile.terms.has(nameWord.term))) return true;
  const word = nameWord.canon;
  if (word.length < 3) return false;
  for (const term of profile.stems) if (term.length > word.length && term.includes(word)) return true;
  return false;
}

function actionRelation(a: Profile, b: Profile): 'same' | 'compatible' | 'conflict' | 'unknown' {
  if (a.action === undefined || b.action === undefined) return 'unknown';
  if (a.action === b.action) return 'same';
  // `fork_repository` / `create_fork`, `star_repository` / `add_star`: a verb is also "make one of it".
  if (a.objects.some((o) => o.canon === stem(b.actionWord!)) || b.objects.some((o) => o.canon === stem(a.actionWord!))) return 'same';
  // `star` vs `unstar`: the negated verb against itself (and against any other verb).
  if (a.action.startsWith('!') || b.action.startsWith('!')) return 'conflict';
  // A verb the lexicon does not know, found from the description, says nothing against another.
  if (a.action.startsWith('~') || b.action.startsWith('~')) return 'unknown';
  const [x, y] = [a.action.slice(1), b.action.slice(1)];
  return COMPATIBLE.has(`${x}:${y}`) || COMPATIBLE.has(`${y}:${x}`) ? 'compatible' : 'conflict';
}

/**
 * Pairs of tools in one selection that read alike: near-paraphrases a model is likely to pick one
 * for the other. Text similarity is lexical (stemmed words, verbs of one kind made one word,
 * weighted by how few of the selection's tools use them, with a prior so small selections weigh
 * words evenly), mixed with parameter-name overlap; then discounted when the names say the two
 * differ: another kind of action (`create` / `close`, `star` / `unstar`), objects each lacks
 * entirely (`get_code_scanning_alert` / `get_secret_scanning_alert`), or one item against many
 * (`get_commit` / `list_commits`). Linear in the pairs that share a word; no model, no network.
 */
export function confusablePairs(tools: readonly ToolText[], settings: Partial<ConfusableSettings> = {}): ConfusablePair[] {
  const s = { ...CONFUSABLE_SETTINGS, ...settings };
  if (tools.length < 2) return [];
  // Names that look like identifiers (`browser_snapshot`), which descriptions may mention.
  const identifiers = tools.map((t) => t.name).filter((name) => /[_.-]|[a-z][A-Z]/.test(name));
  const profiles = tools.map((t) => profileOf(t, identifiers));
  const n = profiles.length;
  // Things the selection's tools act on: a noun in three or more names (`comment`, `branch`).
  const named = new Map<string, number>();
  for (const p of profiles) for (const canon of new Set(p.objects.map((o) => o.canon))) named.set(canon, (named.get(canon) ?? 0) + 1);
  const entities = new Set([...named].filter(([, count]) => count >= 3).map(([canon]) => canon));
  const df = new Map<string, number>();
  for (const p of profiles) for (const term of p.terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const weight = (term: string) => {
    const idf = Math.log(1 + (n - (df.get(term) ?? 0) + 0.5 + s.idfPrior) / ((df.get(term) ?? 0) + 0.5));
    return WEAK_WORDS.has(term) ? idf * 0.3 : idf;
  };
  const parameterFrequency = new Map<string, number>();
  for (const p of profiles) for (const name of p.parameters) parameterFrequency.set(name, (parameterFrequency.get(name) ?? 0) + 1);
  const parameterWeight = (name: string) => (GENERIC_PARAMETERS.has(name) ? 0.3 : 1) * Math.log(1 + (n - (parameterFrequency.get(name) ?? 0) + 0.5 + s.idfPrior) / ((parameterFrequency.get(name) ?? 0) + 0.5));
  // Weighted vectors: a repeated word counts a little more, not in proportion.
  const vectors = profiles.map((p) => {
    const v = new Map<string, number>();
    let norm = 0;
    let total = 0;
    for (const [term, count] of p.terms) {
      const w = weight(term) * (1 + Math.log(count));
      v.set(term, w);
      norm += w * w;
      total += w;
    }
    return { v, norm: Math.sqrt(norm), total };
  });
  // Only pairs that share a word can score: an inverted index keeps this linear in practice.
  const postings = new Map<string, number[]>();
  profiles.forEach((p, i) => {
    for (const term of p.terms.keys()) {
      if ((df.get(term) ?? 0) > Math.max(50, n / 2)) continue; // words most tools use start no pair
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(i);
    }
  });
  const candidates = new Set<number>();
  for (const list of postings.values()) for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) candidates.add(list[x]! * n + list[y]!);

  const pairs: ConfusablePair[] = [];
  for (const key of candidates) {
    const i = Math.floor(key / n);
    const j = key % n;
    const a = profiles[i]!;
    const b = profiles[j]!;
    const va = vectors[i]!;
    const vb = vectors[j]!;
    let dot = 0;
    let shared = 0;
    const [small, large] = va.v.size <= vb.v.size ? [va.v, vb.v] : [vb.v, va.v];
    for (const [term, w] of small) {
      const other = large.get(term);
      if (other === undefined) continue;
      dot += w * other;
      shared += Math.min(w, other);
    }
    const cosine = va.norm && vb.norm ? dot / (va.norm * vb.norm) : 0;
    const containment = Math.min(va.total, vb.total) > 0 ? shared / Math.min(va.total, vb.total) : 0;
    const text = s.cosineShare * cosine + (1 - s.cosineShare) * containment;
    // Parameter overlap, each name weighted as words are: sharing `query` and `limit` says less than sharing `invoice_id`.
    let sharedParameters = 0;
    let allParameters = 0;
    for (const p of a.parameters) {
      allParameters += parameterWeight(p);
      if (b.parameters.has(p)) sharedParameters += parameterWeight(p);
    }
    for (const p of b.parameters) if (!a.parameters.has(p)) allParameters += parameterWeight(p);
    // Evidence grows with how much is shared: two generic names (`query`, `limit`) are weak evidence even when they are all there is.
    const parameters = allParameters === 0 ? null : (sharedParameters / allParameters) * (1 - Math.exp(-sharedParameters / 3));
    // Shared parameters add evidence when the texts agree; different ones take none away (a paraphrase may rename them).
    let score = 1 - (1 - text) * (1 - s.parameterWeight * (parameters ?? 0) * Math.min(1, text / s.parameterTextFloor));
    if (score < s.threshold * 0.5) continue;

    // What the names say tells the two apart.
    const reasons: string[] = [];
    const relation = actionRelation(a, b);
    if (relation === 'conflict') {
      score *= s.actionConflict;
      reasons.push(`${a.actionWord} vs ${b.actionWord}`);
    }
    const onlyA = a.objects.filter((w) => !mentions(b, w));
    const onlyB = b.objects.filter((w) => !mentions(a, w));
    const partOf = partOfOther(a, b) ?? partOfOther(b, a);
    // Another thing the selection's tools act on (`comment` in `add_issue_comment_reaction`).
    const entity = [...onlyA, ...onlyB].find((w) => entities.has(w.canon));
    if (onlyA.length && onlyB.length) {
      // Each names something the other never mentions (`code` / `secret` scanning alerts).
      score *= s.objectConflict;
      reasons.push(`${onlyA[0]!.raw} vs ${onlyB[0]!.raw}`);
    } else if (partOf || entity) {
      score *= s.objectConflict;
      reasons.push(partOf ?? entity!.raw);
    } else if (onlyA.length || onlyB.length) {
      // Only one name has a qualifier the other's text lacks (`read_text_file` / `read_file`).
      score *= s.oneSidedObject;
    }
    // One thing against many of it: `get_commit` / `list_commits`, `get_label` / `list_label`.
    const [ma, mb] = [multiplicity(a), multiplicity(b)];
    const sameHead = a.head !== undefined && b.head !== undefined && a.head.canon === b.head.canon;
    const [pa, pb] = [sameHead ? plural(a.head!.raw) : undefined, sameHead ? plural(b.head!.raw) : undefined];
    if ((ma && mb && ma !== mb && (sameHead || relation === 'compatible')) || (relation !== 'same' && pa !== undefined && pb !== undefined && pa !== pb)) {
      score *= s.countConflict;
      reasons.push('one vs many');
    }
    if (score < s.threshold) continue;
    const sharedWords = [...small.keys()].filter((t) => large.has(t) && !t.startsWith('@')).sort((x, y) => (df.get(x) ?? 0) - (df.get(y) ?? 0) || byCodeUnit(x, y));
    pairs.push({
      a: a.name,
      b: b.name,
      score: round(score),
      text_score: round(text),
      parameter_overlap: parameters === null ? null : round(parameters),
      distinct_by: reasons.length ? reasons.join(', ') : null,
      shared_words: sharedWords.slice(0, 8).map((t) => a.spelled.get(t) ?? b.spelled.get(t) ?? t),
    });
  }
  return pairs.sort((x, y) => y.score - x.score || byCodeUnit(x.a, y.a) || byCodeUnit(x.b, y.b));
}

const round = (x: number) => Math.round(x * 100) / 100;

/** Plain string order (localeCompare would load ICU's collator on validate's path, about 10 ms). */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
