import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { chooseCatalogs } from '../../manager/choose-catalogs.js';
import { readRegularFile } from '../../shared/read-file.js';
import type { CaseResult, SearchCase, SearchMetrics } from '../../search/search-metrics.js';
import { evaluateSearch } from '../../manager/search-quality.js';
import type { Tool } from '../../catalog/types.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { createTable } from '../output/table.js';
import { clip } from '../output/clip.js';
import { withManager } from '../open-manager.js';
import { jsonErrorReason } from '../../shared/json-text.js';
import { jsonDocument } from '../output/json-document.js';

export interface EvalSearchOptions {
  /** With a suite: load the catalog it names when none is given. */
  suiteCatalog?: boolean;
  cases: string;
  catalog?: string[];
  json?: boolean;
  regex?: boolean;
  /** How many missed cases the text output lists: a count or "all" (default 10). */
  misses?: string;
}

/** Reads a JSONL file of `{id, query, gold[, category]}` lines; a bad line is an error naming it. */
export function readCases(file: string, cwd: string): SearchCase[] {
  const text = readRegularFile(file, { cwd, label: 'cases file' });
  const cases: SearchCase[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(i === 0 ? line.replace(/^\uFEFF/, '') : line);
    } catch (error) {
      throw new ToolmanError(ErrorCode.USAGE, `${file}:${i + 1}: not valid JSON (${jsonErrorReason(error)})`);
    }
    const item = value as Partial<SearchCase>;
    if (typeof item.query !== 'string' || !Array.isArray(item.gold) || !item.gold.every((g) => typeof g === 'string') || item.gold.length === 0) {
      throw new ToolmanError(ErrorCode.USAGE, `${file}:${i + 1}: each line needs "query" (a string) and "gold" (a non-empty list of tool names)`);
    }
    cases.push({ id: typeof item.id === 'string' ? item.id : String(i + 1), query: item.query, gold: item.gold, ...(typeof item.category === 'string' ? { category: item.category } : {}) });
  });
  if (cases.length === 0) throw new ToolmanError(ErrorCode.USAGE, `${file} holds no cases`);
  return cases;
}

const COLUMNS: [keyof SearchMetrics, string][] = [
  ['cases', 'cases'],
  ['recall_at_1', 'R@1'],
  ['recall_at_3', 'R@3'],
  ['recall_at_5', 'R@5'],
  ['recall_at_10', 'R@10'],
  ['mrr_at_10', 'MRR@10'],
  ['ndcg_at_10', 'NDCG@10'],
];

/** `toolman eval search --cases FILE.jsonl`: search quality on a labelled set. */
export async function evalSearchCommand(options: EvalSearchOptions, io: CliIO): Promise<ExitCode> {
  missLimit(options.misses);
  // A test suite (YAML) works too: each prompt's expected tools are its gold set, and its catalog is the default.
  if (/\.ya?ml$/i.test(options.cases)) {
    const { loadSuite } = await import('../../testing/load-suite.js');
    const { suiteSearchCases } = await import('../../testing/suite-search-cases.js');
    const suite = loadSuite(options.cases, { cwd: io.cwd });
    const cases = suiteSearchCases(suite);
    if (cases.length === 0) throw new ToolmanError(ErrorCode.USAGE, `${options.cases} has no case that expects tool calls`, { hint: 'cases with expect.calls become labelled queries' });
    // A suite is untrusted: the catalog it names is searched only on the user's word.
    const choice = chooseCatalogs(io.cwd, options.catalog, { by: `the suite ${options.cases}`, files: suite.catalog, flag: '--suite-catalog', use: options.suiteCatalog === true });
    if (choice.notice) io.stderr.write(`${choice.notice}\n`);
    return withManager(io, choice.catalogs, async (manager) => printEvaluation(manager.catalog.name, manager.catalog.tools.filter((t) => t.enabled), cases, options, io), choice.namedBy ? { namedBy: choice.namedBy } : {});
  }
  const cases = readCases(options.cases, io.cwd);
  return withManager(io, options.catalog, async (manager) => printEvaluation(manager.catalog.name, manager.catalog.tools.filter((t) => t.enabled), cases, options, io));
}

async function printEvaluation(catalogName: string, tools: Tool[], cases: SearchCase[], options: EvalSearchOptions, io: CliIO): Promise<ExitCode> {
  const evaluation = evaluateSearch(tools, cases, { regex: options.regex ?? false });
  if (options.json) {
    io.stdout.write(jsonDocument({ catalog: catalogName, tools: tools.length, ...evaluation }) + '\n');
    return EXIT.OK;
  }
  const table = await createTable(['', ...COLUMNS.map(([, label]) => label)], io);
  const row = (label: string, m: SearchMetrics) => [label, ...COLUMNS.map(([key]) => (key === 'cases' ? String(m.cases) : m[key].toFixed(1)))];
  table.push(row('all', evaluation.metrics));
  for (const [category, metrics] of Object.entries(evaluation.by_category)) table.push(row(category, metrics));
  io.stdout.write(`${cases.length} cases over ${tools.length} tools (${catalogName})\n${table.toString()}\n`);
  printMisses(evaluation.cases, missLimit(options.misses), io);
  io.stdout.write(`index built in ${evaluation.timing.index_ms} ms; median query ${evaluation.timing.query_median_ms} ms\n`);
  if (evaluation.unknown_gold.length) {
    io.stderr.write(`warning: ${evaluation.unknown_gold.length} gold names are not in the catalog (counted as misses): ${evaluation.unknown_gold.slice(0, 5).join(', ')}${evaluation.unknown_gold.length > 5 ? ', …' : ''}\n`);
  }
  return EXIT.OK;
}

function missLimit(value: string | undefined): number {
  if (value === undefined) return 10;
  if (value === 'all') return Infinity;
  if (!/^\d+$/.test(value)) throw new ToolmanError(ErrorCode.USAGE, `--misses takes a count or "all", not ${JSON.stringify(value)}`);
  return Number(value);
}

/** A case missed when some gold tool is not in the top 10; list those, with what came first instead. */
function printMisses(results: readonly CaseResult[], limit: number, io: CliIO): void {
  const missed = results.filter((c) => c.gold_ranks.some((rank) => rank === null));
  if (missed.length === 0 || limit === 0) {
    if (missed.length === 0) io.stdout.write('every gold tool was in the top 10\n');
    else io.stdout.write(`${missed.length} queries missed a gold tool (list them with --misses N)\n`);
    return;
  }
  const shown = missed.slice(0, limit);
  io.stdout.write(`${missed.length} ${missed.length === 1 ? 'query' : 'queries'} missed a gold tool in the top 10${shown.length < missed.length ? ` (first ${shown.length}; --misses all for every one)` : ''}:\n`);
  for (const c of shown) {
    const lost = c.gold.filter((_, i) => c.gold_ranks[i] === null);
    const top = c.ranked.slice(0, 3);
    io.stdout.write(`  ${clip(c.id, 24)}  ${JSON.stringify(clip(c.query, 70))}\n    missing: ${lost.join(', ')}; top: ${top.length ? top.join(', ') : '(nothing)'}\n`);
  }
}
