import type { Tool } from '../catalog/types.js';
import { tokenize } from './tokenize.js';

/** The parts of a tool that search looks at, with how much a match in each counts. */
export const SEARCH_FIELDS = ['name', 'aliases', 'title', 'summary', 'description', 'keywords', 'category', 'tags', 'parameters'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface Bm25Options {
  k1: number;
  /** Exponent of the number of matched query terms the score is multiplied by (0: off). */
  coord: number;
  /** Length normalisation per field (0: none, 1: full). */
  b: Record<SearchField, number>;
  weights: Record<SearchField, number>;
}

/**
 * BM25F (Robertson, Zaragoza & Taylor 2004): term frequencies are length-normalised per field,
 * weighted, summed, and saturated once with k1. Names and keywords are short and precise, so they
 * weigh most; descriptions are long and saturate; parameter names, descriptions and enum values
 * say what a tool takes. A coordination factor (matched query terms ^ coord) prefers tools that
 * match more of the query over tools that match one rare word many times. How these were chosen,
 * with the measurements, is in docs/search.md.
 */
export const DEFAULT_BM25: Bm25Options = {
  k1: 1.2,
  coord: 0.5,
  b: { name: 0.3, aliases: 0.3, title: 0.3, summary: 0.5, description: 0.75, keywords: 0.3, category: 0, tags: 0, parameters: 0.75 },
  weights: { name: 3, aliases: 2.5, title: 2, summary: 1.5, description: 1, keywords: 2, category: 1, tags: 1, parameters: 0.6 },
};

export function fieldTexts(tool: Tool): Record<SearchField, string> {
  const params: string[] = [];
  collectParameterText(tool.parameters, params, 0);
  return {
    name: tool.name,
    aliases: tool.aliases.join(' '),
    title: tool.title ?? '',
    summary: tool.summary ?? '',
    description: tool.description ?? '',
    keywords: tool.keywords.join(' '),
    category: tool.category ?? '',
    tags: tool.tags.join(' '),
    parameters: params.join(' '),
  };
}

function collectParameterText(schema: unknown, out: string[], depth: number): void {
  if (depth > 4 || schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  // Allowed and default values name what a tool works on ("celsius", "ratio", "vegan").
  if (Array.isArray(node.enum)) for (const value of node.enum) if (typeof value === 'string') out.push(value);
  if (typeof node.default === 'string') out.push(node.default);
  if (node.properties && typeof node.properties === 'object') {
    for (const [name, sub] of Object.entries(node.properties as Record<string, unknown>)) {
      out.push(name);
      if (sub && typeof sub === 'object' && typeof (sub as Record<string, unknown>).description === 'string') out.push((sub as Record<string, string>).description!);
      collectParameterText(sub, out, depth + 1);
    }
  }
  if (node.items) collectParameterText(node.items, out, depth + 1);
}

export interface Bm25Hit {
  doc: number;
  score: number;
}

/** An inverted index whose postings hold each term's final BM25F contribution per document. */
export class Bm25Index {
  private readonly postings = new Map<string, { docs: Uint32Array; scores: Float32Array }>();
  private readonly scratch: Float64Array;
  private readonly matched: Uint16Array;
  private readonly coord: number;
  readonly size: number;

  constructor(documents: readonly Record<SearchField, string>[], options: Bm25Options = DEFAULT_BM25) {
    this.size = documents.length;
    this.scratch = new Float64Array(documents.length);
    this.matched = new Uint16Array(documents.length);
    this.coord = options.coord;
    const tokens = documents.map((doc) => SEARCH_FIELDS.map((field) => tokenize(doc[field])));
    const average = SEARCH_FIELDS.map((_, f) => tokens.reduce((sum, fields) => sum + fields[f]!.length, 0) / Math.max(1, documents.length) || 1);
    // term -> doc -> weighted, length-normalised frequency
    const weighted = new Map<string, Map<number, number>>();
    tokens.forEach((fields, doc) => {
      fields.forEach((terms, f) => {
        if (terms.length === 0) return;
        const field = SEARCH_FIELDS[f]!;
        const norm = 1 - options.b[field] + options.b[field] * (terms.length / average[f]!);
        const add = options.weights[field] / norm;
        for (const term of terms) {
          let docs = weighted.get(term);
          if (!docs) weighted.set(term, (docs = new Map()));
          docs.set(doc, (docs.get(doc) ?? 0) + add);
        }
      });
    });
    const n = documents.length;
    for (const [term, docs] of weighted) {
      const idf = Math.log(1 + (n - docs.size + 0.5) / (docs.size + 0.5));
      const ids = new Uint32Array(docs.size);
      const scores = new Float32Array(docs.size);
      let i = 0;
      for (const [doc, tf] of docs) {
        ids[i] = doc;
        scores[i++] = (idf * tf * (options.k1 + 1)) / (tf + options.k1);
      }
      this.postings.set(term, { docs: ids, scores });
    }
  }

  /** The best `limit` documents for `query`, highest score first; ties by document order. */
  search(query: string, limit: number, allowed?: (doc: number) => boolean): Bm25Hit[] {
    const terms = [...new Set(tokenize(query))];
    const touched: number[] = [];
    const scores = this.scratch;
    const matched = this.matched;
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i]!;
        if (matched[doc] === 0) touched.push(doc);
        scores[doc]! += posting.scores[i]!;
        matched[doc]!++;
      }
    }
    const hits: Bm25Hit[] = [];
    for (const doc of touched) {
      if (!allowed || allowed(doc)) hits.push({ doc, score: scores[doc]! * (this.coord ? matched[doc]! ** this.coord : 1) });
      scores[doc] = 0;
      matched[doc] = 0;
    }
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits.slice(0, limit);
  }

  /** Which query terms a document matched, per field (for explaining results). */
  static matchedFields(query: string, document: Record<SearchField, string>): SearchField[] {
    const terms = new Set(tokenize(query));
    return SEARCH_FIELDS.filter((field) => tokenize(document[field]).some((t) => terms.has(t)));
  }
}
