import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ConversationOptions } from '../conversation/conversation-options.js';
import { NOT_RUN_KINDS, REFUSED_KINDS } from '../manager/facts.js';
import type { LoopEvent, TurnCall, TurnSummary } from '../loop/loop-events.js';
import { readRecording } from '../manager/recordings.js';
import type { ToolManager } from '../manager/tool-manager.js';
import type { FormatFlags } from '../providers/format-options.js';
import { readRegularFile } from '../shared/read-file.js';
import { redactValue } from '../shared/secrets.js';
import { AdaptiveLimiter } from './adaptive-limiter.js';
import { checkExpectations, type Failure, type ObservedCall } from './check-expectations.js';
import { withCatalogNames } from './catalog-names.js';
import { addTurnUsage, emptyUsage, runCost, turnUsage, type RunUsage } from './run-usage.js';
import { decisionAt } from './sequential-test.js';
import { caseQuestions } from './elicitation-stubs.js';
import { stubRunners } from './stub-runners.js';
import { INTERRUPTED, type Prices, type ProviderTarget, type Suite, type SuiteCase } from './suite-types.js';

/** One run of one case with one provider: what happened and whether it passed. */
export interface RunResult {
  case: string;
  provider: string;
  model: string;
  repeat: number;
  passed: boolean;
  failures: Failure[];
  /** The run could not finish (the API failed, no recording, a replay mismatch). */
  error: string | null;
  calls: ObservedCall[];
  answer: string;
  rounds: number;
  stop: string;
  /** Every request's tokens, side calls included and listed apart (run-usage.ts). */
  usage: RunUsage;
  latency_ms: number;
  cost_usd: number | null;
  /** Tools the case expects (from expect.calls, or none for no_tool); null when it names none. */
  expected_tools: string[] | null;
  /** Replay differences and warnings. */
  notices: string[];
  recording: string | null;
}

export interface SuiteRunOptions {
  manager: ToolManager;
  suite: Suite;
  targets: readonly ProviderTarget[];
  /** Over the catalog's `format:` settings. */
  format?: FormatFlags;
  /** A compatible server instead of each provider's API (--base-url). */
  baseUrl?: string;
  /** Folder to record each run into, or to replay each run from. */
  record?: string;
  replay?: string;
  concurrency: number;
  prices: Prices;
  /** Stop starting runs once this many dollars are spent (API-reported usage). */
  maxCost?: number;
  signal?: AbortSignal;
  onResult?: (result: RunResult, done: number, total: number) => void;
  /** How deferred tools are found (a `--compare` variant `native`): toolman's tool_search or the provider's own. */
  search?: 'client' | 'native';
  sequential?: SequentialOptions;
  shard?: ShardSlice;
}

/** Attempts of a run the provider rate-limited to the end (its client already retried each request). */
const RATE_LIMIT_ATTEMPTS = 3;

/** Where a run's recording lives: DIR/SUITE/CASE--PROVIDER-MODEL--N.jsonl (readable names, with a hash when names would clash). */
export function recordingPath(dir: string, suite: Suite, testCase: SuiteCase, target: ProviderTarget, repeat: number): string {
  return join(dir, slug(suite.name), `${caseSlug(suite, testCase)}--${slug(target.label)}--${repeat}.jsonl`);
}

/** A file-name-safe piece of a name from a suite (untrusted): no separators, no `..`, never hidden. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/\.{2,}/g, '.').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'x';
}

function caseSlug(suite: Suite, testCase: SuiteCase): string {
  const base = slug(testCase.name);
  const clash = suite.cases.some((c) => c !== testCase && slug(c.name) === base);
  return clash ? `${base}-${createHash('sha256').update(testCase.name).digest('hex').slice(0, 8)}` : base;
}

/** Which runs of a suite this invocation makes: all of them, or one shard's (`--shard I/N`). */
export interface ShardSlice {
  /** 1-based. */
  index: number;
  count: number;
  /** Units of the suites before this one, so shards stay balanced over several suites. */
  offset: number;
}

/** Sequential testing over each case's repeats (`--sequential`): stop once the verdict is settled. */
export interface SequentialOptions {
  alpha: number;
}

/**
 * Runs every case of a suite with every target, `repeat` times each, at most `concurrency` at a
 * time (fewer while the provider answers 429), each run a fresh conversation through the facade,
 * exactly as `toolman chat` would run it. Never throws for a run: a run that cannot run or finish
 * is a result with its `error` (no verdict: reports leave it out of the rates). Results come in
 * plan order (case, target, repeat).
 *
 * With `sequential`, a case's repeats run one after another (other cases fill the concurrency),
 * and no further repeat starts once `sequentialDecision` settles the case's verdict: that is what
 * makes the verdict, and the runs made, a function of the outcomes alone (not of timing).
 * With `shard`, only this shard's slice runs: every N-th run in plan order, or every N-th case
 * and target with `sequential` (whose repeats must stay together to be decided).
 */
export async function runSuite(given: SuiteRunOptions): Promise<RunResult[]> {
  // Expectations read calls by catalog name: an alias in the suite names the tool it stands for.
  const options = { ...given, suite: withCatalogNames(given.suite, (name) => given.manager.catalogName(name)) };
  const { suite, targets } = options;
  const groups = suite.cases.flatMap((c) => targets.map((t) => ({ testCase: c, target: t })));
  const shard = options.shard;
  const mine = (unit: number) => !shard || (unit + shard.offset) % shard.count === shard.index - 1;
  const limiter = new AdaptiveLimiter(options.concurrency);
  let spent = 0;
  let done = 0;
  let total = 0;
  const runJob = async (job: Job): Promise<RunResult> => {
    let result: RunResult;
    if (options.signal?.aborted) result = skipped(job, INTERRUPTED);
    else if (options.maxCost !== undefined && spent >= options.maxCost) result = skipped(job, `not run: $${spent.toFixed(4)} spent, at --max-cost ${options.maxCost}`);
    else {
      for (let attempt = 1; ; attempt++) {
        const rateLimited = { value: false };
        result = await runCase(options, job.testCase, job.target, job.repeat, limiter, rateLimited);
        if (!rateLimited.value || attempt >= RATE_LIMIT_ATTEMPTS || options.replay) break;
      }
      if (result.error === null) limiter.succeeded();
    }
    spent += result.cost_usd ?? 0;
    options.onResult?.(result, ++done, total);
    return result;
  };

  if (!options.sequential) {
    let unit = 0;
    const jobs: Job[] = [];
    for (const group of groups) for (let r = 1; r <= group.testCase.repeat; r++) if (mine(unit++)) jobs.push({ ...group, repeat: r });
    total = jobs.length;
    return Promise.all(jobs.map((job) => limiter.run(() => runJob(job))));
  }
  const chosen = groups.filter((_, unit) => mine(unit));
  total = chosen.reduce((n, g) => n + g.testCase.repeat, 0);
  const alpha = options.sequential.alpha;
  const chains = chosen.map(async (group) => {
    const results: RunResult[] = [];
    let passes = 0;
    let ran = 0;
    for (let r = 1; r <= group.testCase.repeat; r++) {
      const result = await limiter.run(() => runJob({ ...group, repeat: r }));
      results.push(result);
      if (result.error === INTERRUPTED) {
        // Ctrl-C: the repeats not started count as stopped, as in a fixed-N run.
        for (let rest = r + 1; rest <= group.testCase.repeat; rest++) results.push(skipped({ ...group, repeat: rest }, INTERRUPTED));
        break;
      }
      if (result.error === null) {
        ran++;
        if (result.passed) passes++;
      }
      if (decisionAt(passes, ran, group.testCase.repeat, group.testCase.minPassRate, alpha)) {
        // Settled: the repeats left are not made (the progress total shrinks by them).
        total -= group.testCase.repeat - r;
        break;
      }
    }
    return results;
  });
  return (await Promise.all(chains)).flat();
}

interface Job {
  testCase: SuiteCase;
  target: ProviderTarget;
  repeat: number;
}

function skipped(job: Job, why: string): RunResult {
  return {
    case: job.testCase.name, provider: job.target.label, model: job.target.model, repeat: job.repeat, passed: false,
    failures: [{ expectation: 'run', message: why }], error: why, calls: [], answer: '', rounds: 0, stop: 'cancelled',
    usage: emptyUsage(), latency_ms: 0, cost_usd: null, expected_tools: expectedTools(job.testCase), notices: [], recording: null,
  };
}

/** The tools a case expects called, for selection precision and recall. */
function expectedTools(testCase: SuiteCase): string[] | null {
  const expectations = [testCase.expect, ...testCase.turns.map((t) => t.expect)].filter((e) => e !== undefined);
  if (expectations.some((e) => e.calls)) return [...new Set(expectations.flatMap((e) => e.calls?.map((c) => c.tool) ?? []))];
  if (expectations.some((e) => e.no_tool)) return [];
  return null;
}

async function runCase(options: SuiteRunOptions, testCase: SuiteCase, target: ProviderTarget, repeat: number, limiter: AdaptiveLimiter, rateLimited: { value: boolean }): Promise<RunResult> {
  const { manager, suite } = options;
  const started = performance.now();
  const notices: string[] = [];
  const result: RunResult = {
    case: testCase.name, provider: target.label, model: target.model, repeat, passed: false, failures: [], error: null, calls: [], answer: '', rounds: 0, stop: 'done',
    usage: emptyUsage(), latency_ms: 0, cost_usd: null, expected_tools: expectedTools(testCase), notices, recording: null,
  };
  // What the tools' MCP servers ask during this run: answered from the case's `elicitation:`.
  const questions = caseQuestions(testCase.elicitation);
  const finish = (): RunResult => {
    result.latency_ms = Math.round(performance.now() - started);
    // A question no entry answered fails the run, whatever else happened.
    result.failures.push(...questions.unmatched.map((message) => ({ expectation: 'elicitation', message })));
    // The side calls' tokens at their own models' prices: --max-cost and the reports see them.
    result.cost_usd = runCost(target.model, options.prices, result.usage);
    if (result.error !== null) result.failures.unshift({ expectation: 'run', message: result.error });
    result.passed = result.failures.length === 0;
    // Everything the report shows comes from here: no secret (the catalog's, the provider's key) leaves it.
    return redactResult(result, manager);
  };

  let connection: ConversationOptions['connection'];
  try {
    if (options.replay) {
      const file = recordingPath(options.replay, suite, testCase, target, repeat);
      result.recording = file;
      const recording = readRecording(readRegularFile(file, { label: 'recording' }), file);
      if (recording.header.provider !== target.provider || recording.header.model !== target.model) {
        result.error = `the recording ${file} was made with ${recording.header.provider}:${recording.header.model}, not ${target.label}`;
        return finish();
      }
      connection = { mode: 'replay', recording };
    } else if (options.record) {
      const file = recordingPath(options.record, suite, testCase, target, repeat);
      result.recording = file;
      connection = { mode: 'record', file, replace: true };
    } else connection = { mode: 'live' };
  } catch (error) {
    result.error = options.replay ? `no usable recording for this run: ${error instanceof Error ? error.message : String(error)} (record it with --record DIR)` : error instanceof Error ? error.message : String(error);
    return finish();
  }

  // One listener on the run's own signal per run, not one per request on the command's.
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const profile = testCase.profile ?? suite.profile;
  const system = testCase.system ?? suite.system;
  let conversation;
  try {
    conversation = await manager.conversation({
      provider: target.provider,
      model: target.model,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      connection,
      purpose: (label) => `a live run uses ${label}`,
      missingKeyHint: (variable) => `set ${variable}, or run offline from recordings: toolman test SUITE --replay DIR`,
      ...(profile ? { profile } : {}),
      force: testCase.force,
      ...(options.format ? { format: options.format } : {}),
      ...(options.search ? { search: options.search } : {}),
      ...(system ? { system } : {}),
      ...(suite.maxRounds ? { maxRounds: suite.maxRounds } : {}),
      stream: suite.stream,
      // The runs' tokens are the API's where it reports them; toolman counts only the rest.
      estimate: 'unreported',
      approve: async () => (testCase.approve ? 'approve' : 'decline'),
      wrapRunners: stubRunners(testCase.stubs, suite.tools, suite.liveToolsWithheld === true, questions.asker),
    });
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    result.error = error instanceof Error ? error.message : String(error);
    return finish();
  }
  try {
    let lastErrorKind: string | undefined;
    const onEvent = (event: LoopEvent) => {
      if (event.type === 'retry' && event.status === 429) limiter.backoff(event.wait_ms);
      else if (event.type === 'error') lastErrorKind = event.kind;
      else if (event.type === 'warning') notices.push(event.message);
    };
    let references: TurnSummary['references'] = [];
    const evaluations: TurnSummary['evaluations'] = [];
    for (const [index, turn] of testCase.turns.entries()) {
      const summary = await conversation.run(turn.prompt, { signal: cancel.signal, onEvent });
      references = summary.references;
      evaluations.push(...summary.evaluations);
      const calls = summary.calls.map((call) => observe(call, index + 1, options.manager.toolNames(call.tool).slice(1)));
      // One by one: a reply (live or replayed) may hold more calls than a call's arguments can.
      for (const call of calls) result.calls.push(call);
      result.answer = summary.answer;
      result.rounds += summary.rounds;
      result.stop = summary.stop;
      addTurnUsage(result.usage, summary);
      if (summary.stop === 'error' || summary.stop === 'cancelled') {
        if (lastErrorKind === 'rate_limited') {
          rateLimited.value = true;
          limiter.backoff(2000);
        }
        result.error = summary.stop === 'cancelled' ? INTERRUPTED : `turn ${index + 1} failed: ${summary.message ?? 'the model call failed'}`;
        return finish();
      }
      if (turn.expect) result.failures.push(...checkExpectations(turn.expect, { calls, answer: summary.answer, rounds: summary.rounds, stop: summary.stop, usage: turnUsage(summary), references: summary.references, evaluations: summary.evaluations }, testCase.turns.length > 1 ? `turn ${index + 1}: ` : ''));
    }
    // The case's answer is its last turn's, and so are the sources its [n] point at; evaluations of every turn count.
    if (testCase.expect) result.failures.push(...checkExpectations(testCase.expect, { calls: result.calls, answer: result.answer, rounds: result.rounds, stop: result.stop, usage: result.usage, references, evaluations }));
    return finish();
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    return finish();
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    conversation.close();
  }
}

/** A run's result with every secret the manager knows taken out (errors, notices, answers, calls). */
function redactResult(result: RunResult, manager: ToolManager): RunResult {
  return redactValue(result, manager.secrets, { ...result, answer: '[redacted]', calls: [], failures: [{ expectation: 'run', message: 'the result held a secret and is not shown' }], notices: [], error: result.error === null ? null : '[redacted]' });
}

/** A call as the expectations read it: the session's record (catalog name, decoded arguments, meta-tool or not) and how it went. */
function observe(call: TurnCall, turn: number, aliases: readonly string[]): ObservedCall {
  const refused = call.error_kind !== null && REFUSED_KINDS.has(call.error_kind);
  return {
    turn, round: call.round, name: call.tool, ...(aliases.length > 0 ? { aliases } : {}), arguments: call.arguments, ok: call.ok, error: call.error, meta: call.meta,
    malformed: refused || call.refused !== undefined,
    refused: refused || call.refused !== undefined || (call.error_kind !== null && NOT_RUN_KINDS.has(call.error_kind)),
    approval: call.approval,
  };
}
