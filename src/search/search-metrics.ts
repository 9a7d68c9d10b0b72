/** One labelled query: the tools (names or aliases) that answer it. */
export interface SearchCase {
  id: string;
  query: string;
  gold: string[];
  category?: string;
}

export interface SearchMetrics {
  cases: number;
  recall_at_1: number;
  recall_at_3: number;
  recall_at_5: number;
  recall_at_10: number;
  mrr_at_10: number;
  ndcg_at_10: number;
}

export interface CaseResult {
  id: string;
  query: string;
  gold: string[];
  category?: string;
  /** Top-10 tool names, best first. */
  ranked: string[];
  /** 1-based rank of each gold tool in the top 10, or null. */
  gold_ranks: (number | null)[];
}

/**
 * Standard retrieval metrics with binary relevance, as percentages: recall@k is the share of a
 * case's gold tools in the top k (averaged over cases); MRR@10 the reciprocal rank of the first
 * gold tool; NDCG@10 = DCG / ideal DCG with gain 1 / log2(rank + 1).
 */
export function scoreCase(ranked: readonly string[], gold: readonly Set<string>[]): { ranks: (number | null)[]; metrics: Omit<SearchMetrics, 'cases'> } {
  // Each gold entry is the set of names (tool name and aliases) that count as that gold tool.
  const ranks = gold.map((names) => {
    const index = ranked.findIndex((name) => names.has(name));
    return index >= 0 && index < 10 ? index + 1 : null;
  });
  const recall = (k: number) => (100 * ranks.filter((r) => r !== null && r <= k).length) / Math.max(1, gold.length);
  const first = Math.min(...ranks.map((r) => r ?? Infinity));
  const dcg = ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / Math.log2(r + 1)), 0);
  let ideal = 0;
  for (let i = 1; i <= Math.min(gold.length, 10); i++) ideal += 1 / Math.log2(i + 1);
  return {
    ranks,
    metrics: {
      recall_at_1: recall(1),
      recall_at_3: recall(3),
      recall_at_5: recall(5),
      recall_at_10: recall(10),
      mrr_at_10: first === Infinity ? 0 : 100 / first,
      ndcg_at_10: ideal === 0 ? 0 : (100 * dcg) / ideal,
    },
  };
}

export function averageMetrics(all: Omit<SearchMetrics, 'cases'>[]): SearchMetrics {
  const keys = ['recall_at_1', 'recall_at_3', 'recall_at_5', 'recall_at_10', 'mrr_at_10', 'ndcg_at_10'] as const;
  const out = { cases: all.length } as SearchMetrics;
  for (const key of keys) out[key] = Math.round((100 * all.reduce((sum, m) => sum + m[key], 0)) / Math.max(1, all.length)) / 100;
  return out;
}
