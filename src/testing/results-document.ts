import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { canonicalJson } from '../shared/canonical-json.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';
import { jsonErrorReason } from '../shared/json-text.js';
import { plainText } from '../shared/plain-text.js';
import { MiB, readRegularFile } from '../shared/read-file.js';
import type { RunResult } from './run-suite.js';
import { summarizeRuns, type SuiteReport } from './suite-report.js';

/** One case as planned: its bar and its repeats (after --repeat). */
export interface PlannedCase {
  name: string;
  min_pass_rate: number;
  repeat: number;
}

/** One suite as planned: what `toolman test merge` needs to rebuild its report from runs. */
export interface SuitePlan {
  name: string;
  file: string;
  providers: string[];
  cases: PlannedCase[];
}

/** The plan of one `toolman test` invocation: the same for each of its shards, but for `shard`. */
export interface RunPlan {
  suites: SuitePlan[];
  /** --min-pass-rate. */
  min_pass_rate: number;
  sequential: { alpha: number } | null;
  shard: { index: number; count: number } | null;
  /** sha256 of the plan without its shard and the suites' paths (CI machines check out to different folders): shards of one run share it. */
  fingerprint: string;
}

/** The runs of an invocation (or of its merged shards), per suite in plan order, with each suite's report. */
export interface TestResults {
  plan: RunPlan;
  suites: { plan: SuitePlan; report: SuiteReport; runs: RunResult[] }[];
}

export function runPlan(suites: SuitePlan[], options: { minPassRate: number; sequential?: { alpha: number }; shard?: { index: number; count: number } }): RunPlan {
  const sequential = options.sequential ? { alpha: options.sequential.alpha } : null;
  return { suites, min_pass_rate: options.minPassRate, sequential, shard: options.shard ? { index: options.shard.index, count: options.shard.count } : null, fingerprint: fingerprintOf(suites, options.minPassRate, sequential) };
}

function fingerprintOf(suites: readonly SuitePlan[], minPassRate: number, sequential: { alpha: number } | null): string {
  const shape = { suites: suites.map(({ file: _file, ...rest }) => rest), min_pass_rate: minPassRate, sequential };
  return createHash('sha256').update(canonicalJson(shape)).digest('hex');
}

/** The shape a report is computed over, from a plan. */
export function suiteShape(plan: SuitePlan) {
  return { name: plan.name, file: plan.file, cases: plan.cases.map((c) => ({ name: c.name, minPassRate: c.min_pass_rate, repeat: c.repeat })) };
}

/** A suite's report from its runs, exactly as the run that made them computes it. */
export function reportOf(plan: RunPlan, suite: SuitePlan, runs: readonly RunResult[]): SuiteReport {
  return summarizeRuns(suiteShape(suite), runs, plan.min_pass_rate, plan.sequential ?? undefined);
}

/**
 * The runs' positions in plan order: suite by suite, case by case, provider by provider, repeat
 * by repeat. The unit a shard is dealt is a run, or with sequential testing a case and provider
 * (whose repeats must stay together): the same formula `runSuite` deals them by.
 */
function unitOf(plan: RunPlan, suiteIndex: number, run: RunResult): { order: number; unit: number } | undefined {
  let offset = 0;
  for (let s = 0; s < suiteIndex; s++) offset += unitsOf(plan, plan.suites[s]!);
  const suite = plan.suites[suiteIndex]!;
  const caseIndex = suite.cases.findIndex((c) => c.name === run.case);
  const providerIndex = suite.providers.indexOf(run.provider);
  if (caseIndex < 0 || providerIndex < 0) return undefined;
  const planned = suite.cases[caseIndex]!;
  if (run.repeat > planned.repeat) return undefined;
  const group = caseIndex * suite.providers.length + providerIndex;
  if (plan.sequential) return { order: group * 101 + run.repeat, unit: offset + group };
  let before = 0;
  for (let c = 0; c < caseIndex; c++) before += suite.cases[c]!.repeat * suite.providers.length;
  const index = before + providerIndex * planned.repeat + run.repeat - 1;
  return { order: index, unit: offset + index };
}

function unitsOf(plan: RunPlan, suite: SuitePlan): number {
  return plan.sequential ? suite.cases.length * suite.providers.length : suite.cases.reduce((n, c) => n + c.repeat, 0) * suite.providers.length;
}

/** The biggest results file `toolman test merge` reads: a run's document is a few KB. */
export const MAX_RESULTS_BYTES = 256 * MiB;
/** Errors listed per file before "and N more". */
const MAX_LISTED = 20;

interface ParsedResults {
  file: string;
  plan: RunPlan;
  suites: { suite: string; runs: RunResult[] }[];
}

/**
 * Precompiled at build time from schema/results.schema.json (catalog/results-validator.ts), and
 * loaded only to read a results file: `toolman test` writes them and never needs it.
 */
const resultsValidator = async (): Promise<ValidateFunction> => (await import('../manager/results-documents.js')).validateResultsDocument;

/**
 * A results file that cannot be used, with where: a JSON pointer, and a line and column when the
 * file is small enough to index. The YAML parser that places a pointer (SourceFile) is loaded only
 * here, for a file already refused: a merge of good shards never needs it.
 */
async function invalid(file: string, text: string, problems: { pointer: string; message: string }[]): Promise<ToolmanError> {
  let locate: ((pointer: string) => string) | undefined;
  if (text.length <= 8 * MiB && text) {
    try {
      const { SourceFile } = await import('../manager/documents.js');
      const { file: source } = SourceFile.parse(file, file, text);
      locate = (pointer) => {
        const span = source.locate(pointer);
        return `${span.line}:${span.column}`;
      };
    } catch {
      locate = undefined;
    }
  }
  const lines = problems.slice(0, MAX_LISTED).map((p) => `  ${plainText(file)}:${locate ? `${locate(p.pointer)} ` : ''}${p.pointer || '/'}: ${plainText(p.message)}`);
  if (problems.length > MAX_LISTED) lines.push(`  ... and ${problems.length - MAX_LISTED} more`);
  return new ToolmanError(ErrorCode.USAGE, `${plainText(file)} is not a toolman test results file (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`, {
    hint: 'give the documents `toolman test --json` (or `--shard I/N --json`) printed; the format is schema/results.schema.json',
  });
}

/** Reads one results file: bounded in size and depth, checked against schema/results.schema.json, every run tied to its plan. */
export async function readResultsFile(path: string, cwd: string): Promise<ParsedResults> {
  const text = readRegularFile(resolve(cwd, path), { maxBytes: MAX_RESULTS_BYTES, label: 'results file' });
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ToolmanError(ErrorCode.USAGE, `${plainText(path)} is not valid JSON: ${jsonErrorReason(error)}`, { hint: 'give the documents `toolman test --json` printed' });
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw await invalid(path, '', [{ pointer: '', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);
  const validate = await resultsValidator();
  if (!validate(value)) throw await invalid(path, text, schemaProblems(validate.errors ?? []));
  const doc = value as { plan: RunPlan; suites: { suite: string; runs: RunResult[] }[]; interrupted?: unknown };
  if (doc.interrupted === true) throw new ToolmanError(ErrorCode.USAGE, `${plainText(path)} is the results of an interrupted run: some of its runs never finished`, { hint: `run ${doc.plan.shard ? `shard ${doc.plan.shard.index}/${doc.plan.shard.count}` : 'it'} again` });
  const problems: { pointer: string; message: string }[] = [];
  if (doc.suites.length !== doc.plan.suites.length) problems.push({ pointer: '/suites', message: `${doc.suites.length} suites, but the plan has ${doc.plan.suites.length}` });
  const expected = fingerprintOf(doc.plan.suites, doc.plan.min_pass_rate, doc.plan.sequential);
  if (doc.plan.fingerprint !== expected) problems.push({ pointer: '/plan/fingerprint', message: 'does not match the plan (the file was edited)' });
  if (doc.plan.shard && doc.plan.shard.index > doc.plan.shard.count) problems.push({ pointer: '/plan/shard', message: `shard ${doc.plan.shard.index} of ${doc.plan.shard.count}` });
  doc.suites.forEach((suite, s) => {
    const plan = doc.plan.suites[s];
    if (!plan) return;
    if (suite.suite !== plan.name) problems.push({ pointer: `/suites/${s}/suite`, message: `"${suite.suite}", but the plan's suite ${s + 1} is "${plan.name}"` });
    const seen = new Set<string>();
    suite.runs.forEach((run, r) => {
      const at = `/suites/${s}/runs/${r}`;
      // Results written before side calls were counted have none listed.
      run.usage.side ??= [];
      const place = unitOf(doc.plan, s, run);
      if (!place) return problems.push({ pointer: at, message: `a run of "${run.case}" #${run.repeat} with ${run.provider}, which the plan does not have` });
      const shard = doc.plan.shard;
      if (shard && place.unit % shard.count !== shard.index - 1) problems.push({ pointer: at, message: `a run of "${run.case}" #${run.repeat} [${run.provider}] belongs to shard ${(place.unit % shard.count) + 1}, not ${shard.index}` });
      // A verdict is its failures: a run that passed lists none, one that failed (or could not run) says why.
      if (run.passed !== (run.failures.length === 0)) problems.push({ pointer: `${at}/passed`, message: run.passed ? `true, but the run lists ${run.failures.length} failure${run.failures.length === 1 ? '' : 's'}` : 'false, but the run lists no failure' });
      else if (run.error !== null && run.failures[0]?.message !== run.error) problems.push({ pointer: `${at}/error`, message: 'a run that could not run lists its reason first among its failures, and this one does not' });
      const key = `${run.case}\u0000${run.provider}\u0000${run.repeat}`;
      if (seen.has(key)) problems.push({ pointer: at, message: `"${run.case}" #${run.repeat} [${run.provider}] twice` });
      seen.add(key);
    });
  });
  if (problems.length) throw await invalid(path, text, problems);
  return { file: path, plan: doc.plan, suites: doc.suites };
}

function schemaProblems(errors: readonly ErrorObject[]): { pointer: string; message: string }[] {
  const out: { pointer: string; message: string }[] = [];
  const seen = new Set<string>();
  const oneOf = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.schemaPath.includes('/oneOf/') && oneOf.has(e.instancePath)) continue;
    const params = e.params as Record<string, unknown>;
    const message =
      e.keyword === 'additionalProperties' ? `unknown key "${String(params.additionalProperty)}"` : e.keyword === 'required' ? `missing "${String(params.missingProperty)}"` : e.keyword === 'oneOf' ? 'has the wrong type' : (e.message ?? 'is not valid');
    const key = `${e.instancePath}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: e.instancePath, message });
  }
  return out;
}

/**
 * Joins the shards of one run (`toolman test --shard I/N --json`, I = 1..N) into the results the
 * unsharded run would have given: the same plan (no shard), every run in plan order, each suite's
 * report computed again by the same function. A lone unsharded results file is accepted too (to
 * render it again: HTML, JUnit, a baseline). Refused: files of different runs (fingerprints), a
 * shard missing or given twice, shards of different counts.
 */
export async function mergeResults(files: readonly string[], cwd: string): Promise<TestResults> {
  if (files.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name the results files to merge', { hint: 'e.g. toolman test merge shard-1.json shard-2.json shard-3.json' });
  const parsed: ParsedResults[] = [];
  for (const f of files) parsed.push(await readResultsFile(f, cwd));
  const first = parsed[0]!;
  for (const p of parsed.slice(1)) {
    if (p.plan.fingerprint !== first.plan.fingerprint) {
      throw new ToolmanError(ErrorCode.USAGE, `${plainText(p.file)} is not a shard of the same run as ${plainText(first.file)}: their plans differ (suites, cases, repeats, providers, bars or --sequential)`, { hint: 'merge the shards of one `toolman test --shard I/N` invocation, run with the same suites and options' });
    }
  }
  const count = first.plan.shard?.count ?? 1;
  const byIndex = new Map<number, string>();
  for (const p of parsed) {
    const shard = p.plan.shard ?? { index: 1, count: 1 };
    if (shard.count !== count) throw new ToolmanError(ErrorCode.USAGE, `${plainText(p.file)} is shard ${shard.index}/${shard.count}, but ${plainText(first.file)} is one of ${count}`);
    const other = byIndex.get(shard.index);
    if (other !== undefined) throw new ToolmanError(ErrorCode.USAGE, `shard ${shard.index}/${count} is given twice: ${plainText(other)} and ${plainText(p.file)}`);
    byIndex.set(shard.index, p.file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) throw new ToolmanError(ErrorCode.USAGE, `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${count} missing: a merge needs every shard`, { hint: `give the --json of every toolman test --shard I/${count}` });
  const plan: RunPlan = { ...first.plan, shard: null };
  const suites = plan.suites.map((suite, s) => {
    const runs = parsed.flatMap((p) => p.suites[s]!.runs);
    const order = new Map(runs.map((r) => [r, unitOf(plan, s, r)!.order]));
    runs.sort((a, b) => order.get(a)! - order.get(b)!);
    return { plan: suite, report: reportOf(plan, suite, runs), runs };
  });
  return { plan, suites };
}
