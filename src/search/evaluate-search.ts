import type { Tool } from '../catalog/types.js';
import { averageMetrics, scoreCase, type CaseResult, type SearchCase, type SearchMetrics } from './search-metrics.js';
import { ToolSearch } from './tool-search.js';

export interface SearchEvaluation {
  metrics: SearchMetrics;
  by_category: Record<string, SearchMetrics>;
  cases: CaseResult[];
  /** Gold names that are neither a tool name nor an alias in the catalog. */
  unknown_gold: string[];
  timing: { index_ms: number; query_median_ms: number };
}

/** Runs every case through the search engine and scores the top 10 against the gold tools. */
export function evaluateSearch(tools: readonly Tool[], cases: readonly SearchCase[], options: { regex?: boolean } = {}): SearchEvaluation {
  const names = new Map<string, string>();
  for (const tool of tools) {
    names.set(tool.name, tool.name);
    for (const alias of tool.aliases) if (!names.has(alias)) names.set(alias, tool.name);
  }
  const started = performance.now();
  const engine = new ToolSearch(tools).build();
  const indexMs = performance.now() - started;

  const unknown = new Set<string>();
  const perCase: Omit<SearchMetrics, 'cases'>[] = [];
  const byCategory = new Map<string, Omit<SearchMetrics, 'cases'>[]>();
  const results: CaseResult[] = [];
  const durations: number[] = [];
  for (const item of cases) {
    const gold = item.gold.map((name) => {
      const resolved = names.get(name);
      if (!resolved) unknown.add(name);
      return new Set([resolved ?? `\u0000${name}`]);
    });
    const t = performance.now();
    const ranked = engine.search(item.query, { limit: 10, ...(options.regex ? { regex: true } : {}) }).map((r) => r.tool.name);
    durations.push(performance.now() - t);
    const { ranks, metrics } = scoreCase(ranked, gold);
    perCase.push(metrics);
    if (item.category) {
      const list = byCategory.get(item.category) ?? [];
      list.push(metrics);
      byCategory.set(item.category, list);
    }
    results.push({ id: item.id, query: item.query, gold: item.gold, ...(item.category ? { category: item.category } : {}), ranked, gold_ranks: ranks });
  }
  durations.sort((a, b) => a - b);
  return {
    metrics: averageMetrics(perCase),
    by_category: Object.fromEntries([...byCategory].sort(([a], [b]) => a.localeCompare(b)).map(([category, list]) => [category, averageMetrics(list)])),
    cases: results,
    unknown_gold: [...unknown],
    timing: { index_ms: Math.round(indexMs * 10) / 10, query_median_ms: Math.round((durations[durations.length >> 1] ?? 0) * 1000) / 1000 },
  };
}
