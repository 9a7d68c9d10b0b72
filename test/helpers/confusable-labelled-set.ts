import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CONFUSABLE_SETTINGS, confusableEvidence, scorePair, type ConfusableSettings, type PairEvidence, type ToolText } from '../../src/validate/confusable-pairs.js';
import { splitWords } from '../../src/search/tokenize.js';
import { FIXTURES } from './paths.js';
import { realData } from './real-data.js';

/**
 * The labelled set of test/fixtures/confusable/labelled-set.yaml, scored: each pair inside
 * selections of 3, 14 and up to 120 tools built from its source (docs/testing.md, "Confusable
 * tools: calibration"). Used by test/validate/confusable-tools.test.ts and by
 * scripts/evaluate-confusion.mjs (which prints it and searches settings on the development parts).
 */
export type Split = 'tune' | 'dev' | 'dev2' | 'holdout' | 'holdout2' | 'holdout3';
/** The parts the rule was developed on: every part of labelled-set.yaml (holdout2 too, since 2026-11-24). */
export const DEVELOPMENT_SPLITS: readonly Split[] = ['tune', 'dev', 'dev2', 'holdout', 'holdout2'];
export type Size = 'small' | 'medium' | 'large';
export interface LabelledPair {
  id: string;
  split: Split;
  label: 'paraphrase' | 'distinct';
  a: ToolText;
  b: ToolText;
  /** Tools to build selections from (the pair's source, or the context it is scored in). */
  pool: ToolText[];
}
export interface Outcome {
  pair: LabelledPair;
  size: Size;
  tools: number;
  score: number;
  flagged: boolean;
  distinctBy: string | null;
}

interface WrittenTool {
  name: string;
  description: string;
  params: string[];
}
interface SetFile {
  written_paraphrases: { split: Split; source: string; of: string; tool: WrittenTool }[];
  real_pairs: { split: Split; source: string; a: string; b: string; label: 'paraphrase' | 'distinct' }[];
  written_distinct: { split: Split; context: string; a: WrittenTool; b: WrittenTool }[];
  written_pairs: { split: Split; context: string; a: WrittenTool; b: WrittenTool }[];
  dev2_paraphrases: { source: string; of: string; tool: WrittenTool }[];
  dev2_real_pairs: { source: string; a: string; b: string; label: 'paraphrase' | 'distinct' }[];
  dev2_written_distinct: { context: string; a: WrittenTool; b: WrittenTool }[];
  dev2_written_pairs: { context: string; a: WrittenTool; b: WrittenTool }[];
  holdout_paraphrases: { source: string; of: string; tool: WrittenTool }[];
  holdout_real_pairs: { source: string; a: string; b: string; label: 'paraphrase' | 'distinct' }[];
  holdout_written_distinct: { context: string; a: WrittenTool; b: WrittenTool }[];
  holdout_written_pairs: { context: string; a: WrittenTool; b: WrittenTool }[];
  holdout2_paraphrases: { source: string; of: string; tool: WrittenTool }[];
  holdout2_real_pairs: { source: string; a: string; b: string; label: 'paraphrase' | 'distinct' }[];
  holdout2_written_distinct: { context: string; a: WrittenTool; b: WrittenTool }[];
  holdout2_written_pairs: { context: string; a: WrittenTool; b: WrittenTool }[];
}

const written = (t: WrittenTool): ToolText => ({
  name: t.name,
  description: t.description,
  parameters: { type: 'object', properties: Object.fromEntries(t.params.map((p) => [p, { type: 'string' }])) },
});

const sources = new Map<string, ToolText[]>();
/** A real tool list (an MCP server's `tools/list`, or BFCL's functions) as the rule reads it. */
export function sourceTools(file: string): ToolText[] {
  let tools = sources.get(file);
  if (!tools) {
    const raw = JSON.parse(readFileSync(realData(...file.split('/')), 'utf8')) as unknown;
    const list = (Array.isArray(raw) ? raw : (raw as { tools: unknown[] }).tools) as Record<string, unknown>[];
    tools = list.map((t) => ({
      name: String(t.name),
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      parameters: ((t.inputSchema ?? t.parameters) as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    }));
    sources.set(file, tools);
  }
  return tools;
}

const MCP_FILES = ['mcp/github-mcp-server.toolsnaps.json', 'mcp/playwright-mcp.default.json', 'mcp/server-filesystem.json', 'mcp/server-memory.json', 'mcp/server-everything.json'];

/**
 * Where the held-out part written after every part of labelled-set.yaml became development data
 * is (`holdout3.yaml`, the same four kinds of sections as holdout2's), when it is there.
 */
export function holdout3File(): string {
  return join(process.env.TOOLMAN_FIXTURES ?? FIXTURES, 'confusable', 'holdout3.yaml');
}

/** The labelled set's pairs: labelled-set.yaml's, and holdout3.yaml's when `holdout3` is asked for and the file is there. */
export function labelledPairs(options: { holdout3?: boolean } = {}): LabelledPair[] {
  // A script runs this bundled elsewhere: it says where the fixtures are.
  const file = load(readFileSync(join(process.env.TOOLMAN_FIXTURES ?? FIXTURES, 'confusable', 'labelled-set.yaml'), 'utf8')) as SetFile;
  const find = (source: string, name: string) => {
    const tool = sourceTools(source).find((t) => t.name === name);
    if (!tool) throw new Error(`labelled set: ${source} has no tool ${name}`);
    return tool;
  };
  const pairs: LabelledPair[] = [];
  for (const p of file.written_paraphrases) {
    pairs.push({ id: `${p.of} ~ ${p.tool.name}`, split: p.split, label: 'paraphrase', a: find(p.source, p.of), b: written(p.tool), pool: poolOf(p.source) });
  }
  for (const p of file.real_pairs) {
    pairs.push({ id: `${p.a} ~ ${p.b}`, split: p.split, label: p.label, a: find(p.source, p.a), b: find(p.source, p.b), pool: poolOf(p.source) });
  }
  for (const p of file.written_distinct) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: p.split, label: 'distinct', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.written_pairs) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: p.split, label: 'paraphrase', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.dev2_paraphrases) pairs.push({ id: `${p.of} ~ ${p.tool.name}`, split: 'dev2', label: 'paraphrase', a: find(p.source, p.of), b: written(p.tool), pool: poolOf(p.source) });
  for (const p of file.dev2_real_pairs) pairs.push({ id: `${p.a} ~ ${p.b}`, split: 'dev2', label: p.label, a: find(p.source, p.a), b: find(p.source, p.b), pool: poolOf(p.source) });
  for (const p of file.dev2_written_distinct) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'dev2', label: 'distinct', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.dev2_written_pairs) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'dev2', label: 'paraphrase', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.holdout_paraphrases) pairs.push({ id: `${p.of} ~ ${p.tool.name}`, split: 'holdout', label: 'paraphrase', a: find(p.source, p.of), b: written(p.tool), pool: poolOf(p.source) });
  for (const p of file.holdout_real_pairs) pairs.push({ id: `${p.a} ~ ${p.b}`, split: 'holdout', label: p.label, a: find(p.source, p.a), b: find(p.source, p.b), pool: poolOf(p.source) });
  for (const p of file.holdout_written_distinct) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'holdout', label: 'distinct', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.holdout_written_pairs) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'holdout', label: 'paraphrase', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.holdout2_paraphrases) pairs.push({ id: `${p.of} ~ ${p.tool.name}`, split: 'holdout2', label: 'paraphrase', a: find(p.source, p.of), b: written(p.tool), pool: poolOf(p.source) });
  for (const p of file.holdout2_real_pairs) pairs.push({ id: `${p.a} ~ ${p.b}`, split: 'holdout2', label: p.label, a: find(p.source, p.a), b: find(p.source, p.b), pool: poolOf(p.source) });
  for (const p of file.holdout2_written_distinct) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'holdout2', label: 'distinct', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of file.holdout2_written_pairs) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split: 'holdout2', label: 'paraphrase', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  if (options.holdout3 && existsSync(holdout3File())) pairs.push(...holdout3Pairs(load(readFileSync(holdout3File(), 'utf8')), find));
  return pairs;
}

type Sections = Partial<Record<'paraphrases' | 'real_pairs' | 'written_distinct' | 'written_pairs', unknown[]>>;

/**
 * holdout3.yaml's pairs, all in split `holdout3`. Its sections are holdout2's four kinds, named
 * `holdout3_paraphrases` (or `holdout2_paraphrases`, or plain `paraphrases`), `..._real_pairs`,
 * `..._written_distinct`, `..._written_pairs`; a `split:` written on an entry is ignored.
 */
export function holdout3Pairs(raw: unknown, find: (source: string, name: string) => ToolText): LabelledPair[] {
  if (!raw || typeof raw !== 'object') throw new Error('holdout3.yaml: expected a mapping of sections');
  const doc = raw as Record<string, unknown[] | undefined>;
  const section = (kind: keyof Sections) => doc[`holdout3_${kind}`] ?? doc[`holdout2_${kind}`] ?? doc[kind] ?? [];
  const split: Split = 'holdout3';
  const pairs: LabelledPair[] = [];
  for (const p of section('paraphrases') as SetFile['holdout2_paraphrases']) pairs.push({ id: `${p.of} ~ ${p.tool.name}`, split, label: 'paraphrase', a: find(p.source, p.of), b: written(p.tool), pool: poolOf(p.source) });
  for (const p of section('real_pairs') as SetFile['holdout2_real_pairs']) pairs.push({ id: `${p.a} ~ ${p.b}`, split, label: p.label, a: find(p.source, p.a), b: find(p.source, p.b), pool: poolOf(p.source) });
  for (const p of section('written_distinct') as SetFile['holdout2_written_distinct']) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split, label: 'distinct', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  for (const p of section('written_pairs') as SetFile['holdout2_written_pairs']) pairs.push({ id: `${p.a.name} ~ ${p.b.name}`, split, label: 'paraphrase', a: written(p.a), b: written(p.b), pool: poolOf(p.context) });
  if (!pairs.length) throw new Error('holdout3.yaml: no pairs (expected sections like holdout3_paraphrases, holdout3_real_pairs, holdout3_written_distinct, holdout3_written_pairs)');
  return pairs;
}

/** A source's own tools first, then (for the small servers) every other real server's: large selections need 120 tools. */
function poolOf(source: string): ToolText[] {
  const own = sourceTools(source);
  if (own.length >= 120 || !source.startsWith('mcp/')) return own;
  return [...own, ...MCP_FILES.filter((f) => f !== source).flatMap(sourceTools)];
}

const wordsOf = new WeakMap<ToolText, Set<string>>();
function words(tool: ToolText): Set<string> {
  let set = wordsOf.get(tool);
  if (!set) wordsOf.set(tool, (set = new Set(splitWords(`${tool.name} ${tool.description ?? ''}`).filter((w) => w.length > 2))));
  return set;
}

/** The pair and the `others` tools of its pool that read most like it (word overlap), so selections are hard, not random. */
const ranking = new WeakMap<LabelledPair, ToolText[]>();
function selection(pair: LabelledPair, others: number): ToolText[] {
  const ranked = ranking.get(pair) ?? rank(pair);
  ranking.set(pair, ranked);
  return [pair.a, pair.b, ...ranked.slice(0, others)];
}

function rank(pair: LabelledPair): ToolText[] {
  const target = new Set([...words(pair.a), ...words(pair.b)]);
  const taken = new Set([pair.a.name, pair.b.name]);
  const ranked = pair.pool
    .filter((t) => !taken.has(t.name))
    .map((t) => {
      const w = words(t);
      let shared = 0;
      for (const x of w) if (target.has(x)) shared++;
      return { t, overlap: shared / (w.size + target.size - shared || 1) };
    })
    .sort((x, y) => y.overlap - x.overlap || x.t.name.localeCompare(y.t.name));
  const seen = new Set<string>();
  const chosen: ToolText[] = [];
  for (const { t } of ranked) {
    if (chosen.length >= 118) break;
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    chosen.push(t);
  }
  return chosen;
}

const SIZES: { size: Size; others: number }[] = [
  { size: 'small', others: 1 },
  { size: 'medium', others: 12 },
  { size: 'large', others: 118 },
];

/** A rule to score: every pair of a selection with its score (the current rule by default; scripts compare others). */
export type Scorer = (tools: ToolText[]) => { a: string; b: string; score: number; distinct_by?: string | null }[];

/** A pair's score rounded as findings show it, and what told the two apart. */
function scoreOf(e: PairEvidence, settings: Partial<ConfusableSettings>): { score: number; distinct_by: string | null } {
  const { score, reasons } = scorePair(e, settings);
  return { score: Math.round(score * 100) / 100, distinct_by: reasons.length ? reasons.join(', ') : null };
}

export function scoreLabelledSet(pairs: readonly LabelledPair[], settings: Partial<ConfusableSettings> = {}, scorer?: Scorer, baseThreshold?: number): Outcome[] {
  const outcomes: Outcome[] = [];
  // Every pair's score as the rule computes it (its threshold still decides where the thesaurus is asked).
  const score = scorer ?? ((tools: ToolText[]) => confusableEvidence(tools, settings).map((e) => ({ a: e.a, b: e.b, ...scoreOf(e, settings) })));
  for (const pair of pairs) {
    for (const { size, others } of SIZES) {
      const tools = selection(pair, others);
      const found = score(tools).find((p) => (p.a === pair.a.name && p.b === pair.b.name) || (p.a === pair.b.name && p.b === pair.a.name));
      const score_ = found?.score ?? 0;
      const threshold = settings.threshold ?? baseThreshold ?? CONFUSABLE_SETTINGS.threshold;
      outcomes.push({ pair, size, tools: tools.length, score: score_, flagged: score_ >= threshold, distinctBy: found?.distinct_by ?? null });
    }
  }
  return outcomes;
}


export interface Metrics {
  paraphrases: number;
  found: number;
  recall: number;
  distinct: number;
  falseFlags: number;
  falseFlagRate: number;
}

export function metrics(outcomes: readonly Outcome[]): Metrics {
  const positives = outcomes.filter((o) => o.pair.label === 'paraphrase');
  const negatives = outcomes.filter((o) => o.pair.label === 'distinct');
  const found = positives.filter((o) => o.flagged).length;
  const falseFlags = negatives.filter((o) => o.flagged).length;
  return { paraphrases: positives.length, found, recall: found / (positives.length || 1), distinct: negatives.length, falseFlags, falseFlagRate: falseFlags / (negatives.length || 1) };
}
