import type { Tool } from '../catalog/types.js';
import { Bm25Index, DEFAULT_BM25, fieldTexts, SEARCH_FIELDS, type Bm25Options, type SearchField } from './bm25-index.js';
import { compilePattern } from './regex-search.js';
import { tokenize } from './tokenize.js';

export interface SearchResult {
  tool: Tool;
  score: number;
  /** Fields of the tool the query matched. */
  matched: SearchField[];
}

export interface SearchOptions {
  limit?: number;
  /** Treat the query as a regular expression (RE2 syntax) instead of words. */
  regex?: boolean;
  /** Only these tools may be returned (by name). */
  within?: ReadonlySet<string>;
}

/** How much a regex match in each field counts; names first, as for BM25. */
const REGEX_WEIGHTS: Record<SearchField, number> = { name: 3, aliases: 2.5, title: 2, summary: 1.5, description: 1, keywords: 2, category: 1, tags: 1, parameters: 0.6 };

/**
 * Tool search over a fixed set of tools: BM25F over words, or a linear-time regular expression.
 * The same engine serves `toolman search`, the `tool_search` meta-tool and `eval search`.
 */
export class ToolSearch {
  private index: Bm25Index | undefined;
  private readonly documents: Record<SearchField, string>[];
  private readonly positions: Map<string, number>;

  constructor(
    readonly tools: readonly Tool[],
    private readonly options: Bm25Options = DEFAULT_BM25,
  ) {
    this.documents = tools.map(fieldTexts);
    this.positions = new Map(tools.map((tool, i) => [tool.name, i]));
  }

  /** Builds the index now rather than on the first query (for benchmarks). */
  build(): this {
    this.index ??= new Bm25Index(this.documents, this.options);
    return this;
  }

  search(query: string, options: SearchOptions = {}): SearchResult[] {
    const limit = Math.max(1, options.limit ?? 10);
    const within = options.within;
    const allowed = within ? (doc: number) => within.has(this.tools[doc]!.name) : undefined;
    if (options.regex) return this.searchRegex(query, limit, allowed);
    const hits = this.build().index!.search(query, limit, allowed);
    const terms = new Set(tokenize(query));
    return hits.map((hit) => ({
      tool: this.tools[hit.doc]!,
      score: round(hit.score),
      matched: SEARCH_FIELDS.filter((field) => tokenize(this.documents[hit.doc]![field]).some((t) => terms.has(t))),
    }));
  }

  private searchRegex(pattern: string, limit: number, allowed?: (doc: number) => boolean): SearchResult[] {
    const regex = compilePattern(pattern);
    const results: SearchResult[] = [];
    this.documents.forEach((document, doc) => {
      if (allowed && !allowed(doc)) return;
      const matched = SEARCH_FIELDS.filter((field) => document[field] !== '' && regex.test(document[field]));
      if (matched.length) results.push({ tool: this.tools[doc]!, score: matched.reduce((sum, f) => sum + REGEX_WEIGHTS[f], 0), matched });
    });
    results.sort((a, b) => b.score - a.score || (this.positions.get(a.tool.name)! - this.positions.get(b.tool.name)!));
    return results.slice(0, limit);
  }
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
