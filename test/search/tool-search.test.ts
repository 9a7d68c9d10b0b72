import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { ToolSearch } from '../../src/search/tool-search.js';
import { splitWords, tokenize } from '../../src/search/tokenize.js';
import { scoreCase, averageMetrics } from '../../src/search/search-metrics.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['catalogs/large.yaml'], { cwd: ROOT });
const engine = new ToolSearch(catalog.tools);
const top = (query: string, n = 3) => engine.search(query, { limit: n }).map((r) => r.tool.name);

describe('tokenize', () => {
  it('splits identifiers and stems words', () => {
    expect(splitWords('getUserName math.hypot HTTPServer2 snake_case')).toEqual(['get', 'user', 'name', 'math', 'hypot', 'http', 'server', '2', 'snake', 'case']);
    expect(tokenize('Searching the invoices of 2024')).toEqual(['search', 'invoic']);
  });
});

describe('ToolSearch (BM25F)', () => {
  it.each([
    ['cancel my meeting tomorrow', 'delete_calendar_event'],
    ['refund a payment to the customer', 'billing_refund_payment'],
    ['show recent commits', 'git_log'],
    ['which alerts are firing', 'mon_list_alerts'],
    ['run a sql query on the warehouse', 'analytics_run_query'],
  ])('%s -> %s in the top 3', (query, expected) => {
    expect(top(query)).toContain(expected);
  });

  it('says which fields matched, and respects a restriction to some tools', () => {
    const [first] = engine.search('invoice', { limit: 1 });
    expect(first!.matched).toEqual(expect.arrayContaining(['name', 'description']));
    const within = engine.search('invoice', { limit: 5, within: new Set(['billing_list_invoices']) });
    expect(within.map((r) => r.tool.name)).toEqual(['billing_list_invoices']);
  });

  it('finds tools by enum values and parameter names', () => {
    expect(top('xlsx export', 5)).toContain('crm_export_report');
  });

  it('returns nothing for words no tool has', () => {
    expect(engine.search('qwxzv', { limit: 5 })).toEqual([]);
  });
});

describe('ToolSearch (regex)', () => {
  it('matches names and text case-insensitively, names first', () => {
    expect(engine.search('^git_(log|diff)$', { regex: true }).map((r) => r.tool.name)).toEqual(['git_diff', 'git_log']);
    expect(engine.search('REFUND', { regex: true, limit: 1 })[0]!.tool.name).toBe('billing_refund_payment');
  });

  it('runs in linear time on patterns that make backtracking engines hang', () => {
    const tools = [{ ...catalog.tools[0]!, name: 'a'.repeat(60), description: 'a'.repeat(20_000) + 'b' }];
    const started = performance.now();
    expect(new ToolSearch(tools).search('(a+)+$c', { regex: true })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects invalid, unsupported and overlong patterns with a clear error', () => {
    expect(() => engine.search('(unclosed', { regex: true })).toThrow(/invalid pattern "\(unclosed": missing closing \)/);
    expect(() => engine.search('(?=look)', { regex: true })).toThrow(/invalid or unsupported Perl syntax/);
    expect(() => engine.search('x'.repeat(201), { regex: true })).toThrow(/at most 200/);
  });
});

describe('search metrics', () => {
  it('computes recall, MRR and NDCG with binary relevance', () => {
    const gold = [new Set(['b']), new Set(['z'])];
    const { ranks, metrics } = scoreCase(['a', 'b', 'c'], gold);
    expect(ranks).toEqual([2, null]);
    expect(metrics.recall_at_1).toBe(0);
    expect(metrics.recall_at_3).toBe(50);
    expect(metrics.mrr_at_10).toBe(50);
    expect(metrics.ndcg_at_10).toBeCloseTo((100 * (1 / Math.log2(3))) / (1 + 1 / Math.log2(3)), 6);
    expect(averageMetrics([metrics, scoreCase(['b'], [new Set(['b'])]).metrics])).toMatchObject({ cases: 2, recall_at_1: 50, mrr_at_10: 75 });
  });
});
