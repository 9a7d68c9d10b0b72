import type { JsonSchema } from '../catalog/types.js';
import { splitWords } from '../search/tokenize.js';
import { BARE_VERBS, CANONICAL, COMPATIBLE, GENERIC_NAME_WORDS, LEAD_IN, PREPOSITIONS, STOP, canonical, parameterName, stem } from './tool-words.js';
import type { WordRelations } from './word-relations.js';

/** What the confusable-tools rule reads of a tool (a catalog tool, an MCP server's, or one of the labelled set's). */
export interface ToolText {
  name: string;
  title?: string;
  summary?: string;
  description?: string;
  parameters: JsonSchema;
}

/** A name word besides the action: as compared (`canon`), as the text index has it (`term`), as written. */
export interface NameWord {
  canon: string;
  term: string;
  raw: string;
}

/** Everything the confusable-tools rule needs about one tool, computed once per check. */
export interface Profile {
  name: string;
  /** The action the name starts with (`@find`), or `!` + the verb negated (`unstar`). */
  action: string | undefined;
  actionWord: string | undefined;
  /** Name words besides the action, qualifiers and namespace: canonical form, and as written. */
  objects: NameWord[];
  /** The head noun: the last object word before a preposition (`directory` in `list_directory_with_sizes`). */
  head: NameWord | undefined;
  /**
   * The namespace's words (`walmart` in `walmart.vegan_products`), when the name has one and its
   * words are not already among the objects: context when two tools share it, part of what a tool
   * acts on when they do not (confusable-pairs.ts).
   */
  namespace: NameWord[];
  /** What a name goes from and to (`pdf`, `docx` in `convert_pdf_to_docx`), when it says. */
  direction: [string, string] | undefined;
  /** Canonical tokens of the name, title, summary and description, and how often each occurs. */
  terms: Map<string, number>;
  /** The same words as written, for evidence. */
  spelled: Map<string, string>;
  /** The text's words as stems only (`tag` stays `tag` here; in `terms` it is a verb kind). */
  stems: Set<string>;
  /** The text's words in order, as split (read only for abbreviations: spellsOut). */
  words: string[];
  parameters: Set<string>;
}

/**
 * How many leading words of a name are a namespace, not what the tool acts on: the segments
 * before the last dot (`kinematics.final_velocity`, `sports.ranking.get_champion`), or the words
 * before a version number (`Movies_1_BuyMovieTickets`). The same function under another
 * namespace, or under none, is still the same function.
 */
function namespaceWords(name: string): number {
  const dot = name.lastIndexOf('.');
  if (dot > 0) return splitWords(name.slice(0, dot)).length;
  const versioned = /^([A-Za-z]+)_[0-9]+_/.exec(name);
  return versioned ? splitWords(versioned[1]!).length + 1 : 0;
}

/** A text word as the rule counts it (undefined: a stop word or a number), worked out once per process. */
const wordForms = new Map<string, { canon: string; stem: string } | undefined>();
function formsOf(word: string): { canon: string; stem: string } | undefined {
  let forms = wordForms.get(word);
  if (forms === undefined && !wordForms.has(word)) {
    if (!(STOP.has(word) || /^[0-9]+$/.test(word) || word.length < 2)) {
      const canon = canonical(word);
      // `tag` stays `tag` here; in the terms it is a verb kind.
      forms = { canon, stem: CANONICAL.has(word) && !canon.startsWith('@') && !canon.startsWith('#') ? canon : stem(word) };
    }
    if (wordForms.size < 100_000) wordForms.set(word, forms);
  }
  return forms;
}

/** A word that looks like an identifier: `browser_snapshot`, `math.sum`, `get-env`, `getUserName`. */
const IDENTIFIER = /[A-Za-z0-9]+(?:[_.-][A-Za-z0-9]+)+|[a-z0-9]+(?:[A-Z][a-z0-9]*)+/g;

/** `identifiers`: the selection's tool names that look like identifiers, which descriptions may mention. */
export function profileOf(tool: ToolText, identifiers: ReadonlySet<string>): Profile {
  const allWords = splitWords(tool.name);
  const namespace = namespaceWords(tool.name);
  // A name that is all namespace (`math.` alone) keeps its words.
  const nameWords = (namespace < allWords.length ? allWords.slice(namespace) : allWords).filter((w) => !/^[0-9]+$/.test(w));
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
  // A namespace is what the tool acts on when the rest of the name names nothing (`area_rectangle.calculate`).
  const rest = nameWords.filter((word, i) => i !== at && !GENERIC_NAME_WORDS.has(word));
  const namespaceOnly = !rest.length && namespace > 0;
  if (namespaceOnly) nameWords.unshift(...allWords.slice(0, namespace).filter((w) => !/^[0-9]+$/.test(w)));
  if (at >= 0 && !rest.length && namespace > 0) at = nameWords.indexOf(actionWord!);
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
  const namespaceNames = namespaceOnly ? [] : allWords.slice(0, namespace).filter((w) => !/^[0-9]+$/.test(w) && !GENERIC_NAME_WORDS.has(w) && !PREPOSITIONS.has(w));
  const namespaceObjects = namespaceNames.map((word) => {
    const c = canonical(word);
    return { canon: c.startsWith('@') && c !== '@many' ? stem(word) : c, term: c, raw: word };
  });
  const direction = directionOf(nameWords);
  const terms = new Map<string, number>();
  const spelled = new Map<string, string>();
  const stems = new Set<string>();
  // Other tools named in the text ("use browser_snapshot for actions") are references, not what this one is about.
  let description = `${tool.title ?? ''} ${tool.summary ?? ''} ${tool.description ?? ''}`;
  if (identifiers.size) description = description.replace(IDENTIFIER, (word) => (word !== tool.name && identifiers.has(word) ? ' ' : word));
  const text = `${allWords.join(' ')} ${description}`;
  const words = splitWords(text);
  for (const word of words) {
    const forms = formsOf(word);
    if (!forms) continue;
    const c = forms.canon;
    terms.set(c, (terms.get(c) ?? 0) + 1);
    stems.add(forms.stem);
    if (!spelled.has(c)) spelled.set(c, word);
  }
  const properties = (tool.parameters.properties as Record<string, unknown> | undefined) ?? {};
  const parameters = new Set(Object.keys(properties).map(parameterName));
  return { name: tool.name, action, actionWord, objects, head, namespace: namespaceObjects, direction, terms, spelled, stems, words, parameters };
}

/** `convert_pdf_to_docx`: the words either side of the name's `to` (or `2`), as stems. */
function directionOf(nameWords: readonly string[]): [string, string] | undefined {
  const at = nameWords.findIndex((w, i) => i > 0 && i < nameWords.length - 1 && (w === 'to' || w === '2' || w === 'into'));
  if (at < 0) return undefined;
  const [from, to] = [nameWords[at - 1]!, nameWords[at + 1]!];
  return from === to ? undefined : [canonical(from), canonical(to)];
}

/**
 * The same two things in the opposite direction: `convert_pdf_to_docx` / `convert_docx_to_pdf`,
 * `usd_to_eur` / `eur_to_usd`. Words of one function in the other order are another function.
 */
export function oppositeDirection(a: Profile, b: Profile): string | undefined {
  if (!a.direction || !b.direction) return undefined;
  const [[x, y], [p, q]] = [a.direction, b.direction];
  return x === q && y === p ? `${x} to ${y} vs ${p} to ${q}` : undefined;
}

/**
 * `get_discussion_comments` against `get_discussion`: what the first acts on (comments) belongs to
 * what the second acts on, which the first's name uses as a qualifier, and the second never
 * mentions it. (`modify_file_lines` / `edit_file` stay alike: edit_file speaks of lines.)
 */
export function partOfOther(a: Profile, b: Profile, relations?: WordRelations): string | undefined {
  if (!a.head || !b.head || a.head.canon === b.head.canon) return undefined;
  // A collective noun is many of the other's thing, not a part of it (`get_commit_history` / `list_commits`).
  if (COLLECTIVE_NOUNS.has(a.head.raw)) return undefined;
  // An agent noun names the tool, not a thing (`time_zone_converter`).
  if (/(er|or)s?$/.test(a.head.raw) && CANONICAL.get(a.head.raw.replace(/(er|or)s?$/, ''))?.startsWith('@')) return undefined;
  if (/(er|or)s?$/.test(a.head.raw) && CANONICAL.get(a.head.raw.replace(/(er|or)s?$/, 'e'))?.startsWith('@')) return undefined;
  // A name whose only object is its first word (`browser_navigate`) names a namespace, not a thing.
  if (b.objects.length === 1 && b.objects[0]!.raw === splitWords(b.name)[0]) return undefined;
  if (!a.objects.some((o) => o !== a.head && o.canon === b.head!.canon)) return undefined;
  if (b.objects.some((o) => o.canon === a.head!.canon) || mentions(b, a.head, relations)) return undefined;
  return `${a.head.raw} of ${b.head.raw}`;
}

/** Nouns that name many of something (`get_commit_history`). */
const COLLECTIVE_NOUNS = new Set(['history', 'log', 'logs', 'feed', 'timeline', 'list', 'listing', 'all', 'catalog', 'index']);

/**
 * Whether a tool acts on one thing or on many: listing and searching return many; a get or read
 * of a plural (`get_branches`) many, of a singular (`get_commit`) one; otherwise it cannot tell.
 */
export function multiplicity(p: Profile): 'one' | 'many' | undefined {
  if (p.action === '@list' || p.action === '@find') return 'many';
  if (p.action !== '@get') return undefined;
  const words = splitWords(p.name);
  if (words.some((w) => COLLECTIVE_NOUNS.has(w) || CANONICAL.get(w) === '@many')) return 'many';
  if (!p.head) return undefined;
  const count = plural(p.head.raw);
  return count === undefined ? undefined : count ? 'many' : 'one';
}

/** Whether a word as written is plural (`commits`), singular (`commit`), or cannot tell. */
export function plural(word: string): boolean | undefined {
  if (word.length < 3 || /(ss|us|is|news|series)$/.test(word)) return undefined;
  return /[^s]s$/.test(word);
}

/**
 * Whether a name word occurs in the profile's text: as a word, inside one (`directory` in
 * `subdirectories`), or (with a thesaurus) as a word of the same meaning (`mean` for `average`).
 */
export function mentions(profile: Profile, nameWord: NameWord, relations?: WordRelations): boolean {
  // Verb kinds join words that are different nouns (`label` and `tag`): compare name words by stem.
  // Words of one meaning in the lexicon (`multiple` = `batch`, `latest` = `current`) are one term; verb kinds are not nouns of one meaning.
  if (profile.stems.has(nameWord.canon) || ((!nameWord.term.startsWith('@') || nameWord.term === '@many') && profile.terms.has(nameWord.term))) return true;
  // An abbreviation of words the other text spells out (`yoy` and "year over year", `pr` and "pull request").
  if (nameWord.raw.length >= 2 && nameWord.raw.length <= 4 && spellsOut(profile.words, nameWord.raw)) return true;
  const word = nameWord.canon;
  if (word.length >= 3) for (const term of profile.stems) if (term.length > word.length && term.includes(word)) return true;
  if (relations) for (const kin of relations.kin(nameWord.raw)) if (profile.stems.has(kin)) return true;
  return false;
}

/** Whether consecutive words of a text have `letters` as their initials (`year over year` for `yoy`): one pass, nothing kept. */
function spellsOut(words: readonly string[], letters: string): boolean {
  const n = letters.length;
  for (let i = 0; i + n <= words.length; i++) {
    let k = 0;
    while (k < n && words[i + k]!.charCodeAt(0) === letters.charCodeAt(k)) k++;
    if (k === n) return true;
  }
  return false;
}

/** Whether two name words mean one thing: one canonical word, or one frequent sense of both in the thesaurus. */
export function sameWord(a: NameWord, b: NameWord, relations?: WordRelations): boolean {
  if (a.canon === b.canon) return true;
  return relations !== undefined && relations.sameMeaning(a.raw, b.raw, 'noun');
}

export type ActionRelation = 'same' | 'compatible' | 'conflict' | 'unknown';

export function actionRelation(a: Profile, b: Profile, relations?: WordRelations): ActionRelation {
  if (a.action === undefined || b.action === undefined) return 'unknown';
  if (a.action === b.action) return 'same';
  // `fork_repository` / `create_fork`, `star_repository` / `add_star`: a verb is also "make one of it".
  if (a.objects.some((o) => o.canon === stem(b.actionWord!)) || b.objects.some((o) => o.canon === stem(a.actionWord!))) return 'same';
  // `star` vs `unstar`: the negated verb against itself (and against any other verb).
  if (a.action.startsWith('!') || b.action.startsWith('!')) return 'conflict';
  const [x, y] = [a.actionWord!, b.actionWord!];
  // Verbs the lexicon does not know may be one action by the thesaurus; two verbs it files under
  // different kinds stay different (WordNet's rarer senses make `edit` a way to `delete`).
  if (relations && (!CANONICAL.has(x) || !CANONICAL.has(y)) && !relations.opposites(x).has(stem(y)) && relations.sameMeaning(x, y, 'verb')) return 'same';
  // A verb the lexicon does not know, found from the description, says nothing against another.
  if (a.action.startsWith('~') || b.action.startsWith('~')) return 'unknown';
  const [p, q] = [a.action.slice(1), b.action.slice(1)];
  return COMPATIBLE.has(`${p}:${q}`) || COMPATIBLE.has(`${q}:${p}`) ? 'compatible' : 'conflict';
}
