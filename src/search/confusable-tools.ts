import type { Tool } from '../catalog/types.js';
import { splitWords, tokenize } from './tokenize.js';
import { Bm25Index, DEFAULT_BM25, fieldTexts } from './bm25-index.js';

/** Two tools of one selection a model may mix up, with the evidence. */
export interface ConfusablePair {
  a: string;
  b: string;
  /**
   * Retrieval similarity: each tool's own text (name, summary, description) searched among the
   * others, the other tool's BM25 score divided by the tool's score for itself; the smaller of
   * the two directions (so both must find each other).
   */
  text_score: number;
  /** Jaccard overlap of parameter names (null when either tool takes none). */
  parameter_overlap: number | null;
  /** Jaccard overlap of the words of their names. */
  name_overlap: number;
  /** Description words both use and few other tools do. */
  shared_words: string[];
  score: number;
}

export interface ConfusableOptions {
  /** A pair is flagged at or above this combined score; calibrated in docs/testing.md. */
  threshold?: number;
}

/** Calibrated on ../shared/data (GitHub's 117 MCP tools and four smaller servers): see docs/testing.md. */
export const CONFUSABLE_THRESHOLD = 0.65;

/** Descriptions sharing this share of their words (Jaccard, stemmed) are near-duplicates whatever the retrieval score. */
const NEAR_DUPLICATE = 0.9;

const textOf = (t: Tool) => `${t.name.replace(/[_.-]+/g, ' ')} ${t.title ?? ''} ${t.summary ?? ''} ${t.description ?? ''}`;
const paramNames = (t: Tool) => Object.keys((t.parameters.properties as Record<string, unknown> | undefined) ?? {});

function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Pairs of tools in one selection whose descriptions read alike to the search engine and whose
 * parameters overlap: what a model most often picks wrong. Combined score = 0.6 x text score +
 * 0.25 x parameter overlap + 0.15 x name overlap (a tool without parameters counts its overlap
 * as the text score, so the text alone decides).
 */
export function confusablePairs(tools: readonly Tool[], options: ConfusableOptions = {}): ConfusablePair[] {
  const threshold = options.threshold ?? CONFUSABLE_THRESHOLD;
  if (tools.length < 2) return [];
  // The index itself, not ToolSearch: which fields matched is not needed, and finding it costs more than the search.
  const engine = new Bm25Index(tools.map(fieldTexts), DEFAULT_BM25);
  const n = tools.length;
  // score[i][j]: how tool j ranks for tool i's own text, relative to tool i itself.
  const relative = new Map<string, number>();
  for (const tool of tools) {
    const hits = engine.search(textOf(tool), Math.min(n, 25));
    const own = tools.indexOf(tool);
    const self = hits.find((h) => h.doc === own)?.score ?? hits[0]?.score ?? 0;
    if (self <= 0) continue;
    for (const hit of hits) if (hit.doc !== own) relative.set(`${tool.name}\u0000${tools[hit.doc]!.name}`, Math.min(1, hit.score / self));
  }
  // Words in few tools' descriptions say more than words in many.
  const documentFrequency = new Map<string, number>();
  const wordsOf = new Map(tools.map((t) => [t.name, new Set(tokenize(`${t.summary ?? ''} ${t.description ?? ''}`))]));
  // Evidence reads better in the words as written than as stems ("city", not "citi").
  const spelled = new Map<string, string>();
  for (const t of tools) for (const word of splitWords(`${t.summary ?? ''} ${t.description ?? ''}`)) if (!spelled.has(word)) for (const stem of tokenize(word)) if (!spelled.has(stem)) spelled.set(stem, word);
  for (const words of wordsOf.values()) for (const w of words) documentFrequency.set(w, (documentFrequency.get(w) ?? 0) + 1);

  const pairs: ConfusablePair[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = tools[i]!;
      const b = tools[j]!;
      const ab = relative.get(`${a.name}\u0000${b.name}`);
      const ba = relative.get(`${b.name}\u0000${a.name}`);
      const wa = wordsOf.get(a.name)!;
      const wb = wordsOf.get(b.name)!;
      // The same description under two names: the retrieval score undersells it (each tool's own
      // name words lift its score for itself), so word overlap of the descriptions stands in.
      const sameWords = wa.size >= 3 && wb.size >= 3 ? jaccard(wa, wb) : 0;
      if ((ab === undefined || ba === undefined) && sameWords < NEAR_DUPLICATE) continue;
      const text = Math.max(Math.min(ab ?? 0, ba ?? 0), sameWords >= NEAR_DUPLICATE ? sameWords : 0);
      const pa = new Set(paramNames(a));
      const pb = new Set(paramNames(b));
      const parameters = pa.size && pb.size ? jaccard(pa, pb) : null;
      const names = jaccard(new Set(a.name.toLowerCase().split(/[^a-z0-9]+/)), new Set(b.name.toLowerCase().split(/[^a-z0-9]+/)));
      const score = 0.6 * text + 0.25 * (parameters ?? text) + 0.15 * names;
      if (score < threshold) continue;
      const shared = [...wb].filter((w) => wa.has(w)).sort((x, y) => (documentFrequency.get(x) ?? 0) - (documentFrequency.get(y) ?? 0) || x.localeCompare(y));
      pairs.push({ a: a.name, b: b.name, text_score: round(text), parameter_overlap: parameters === null ? null : round(parameters), name_overlap: round(names), shared_words: shared.slice(0, 8).map((w) => spelled.get(w) ?? w), score: round(score) });
    }
  }
  return pairs.sort((x, y) => y.score - x.score);
}

const round = (x: number) => Math.round(x * 100) / 100;
