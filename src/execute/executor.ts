import { dirname, resolve } from 'node:path';
import type { Budget, EvaluationDefinition, JsonSchema, Limits, Tool } from '../catalog/types.js';
import { redactValue, SecretSet } from '../shared/secrets.js';
import { timerDelay } from '../shared/timers.js';
import { loadValidator, validateArguments, validateOutput, validatorLoaded } from './argument-validator.js';
import { CallContext } from './call-context.js';
import { afterThisTurn } from '../shared/after-this-turn.js';
import { Cancellation } from './cancellation.js';
import { callKey } from './call-key.js';
import { JobStore } from './job-store.js';
import { Mutex } from './mutex.js';
import { ToolFailure, type RunContext, type RunnerRegistry } from './runner.js';
import { resultVerdicts } from './evaluation-checks.js';
import { resultReferences } from './result-references.js';
import { cutStrategy, shortenResult } from './shorten-result.js';
import { setStructuredContent, StructuredResult } from './structured-result.js';
import { serialise } from './serialise.js';
import { estimateTokens, truncateResult } from './truncate.js';
import type { ApprovalDecision, ApprovalRequest, Approver, CallEvent, CallRecord, ErrorKind, SideUsage, Summariser, ToolResponse, TurnResult } from './types.js';

/**
 * Which tools a turn may reach: a session implements it (selection, tools found by search,
 * meta-tools). The executor asks; it never decides by a tool's name.
 */
export interface ToolScope {
  /** The tool a call names, by name or alias, meta-tools included. */
  resolve(name: string): Tool | undefined;
  /** Why the model may not call `tool` now (text for the model), or undefined when it may. */
  unavailable(tool: Tool, via: CallRecord['via']): string | undefined;
  /** Names the model may have meant, for "did you mean". */
  suggestions(name: string): string[];
}

export interface ExecutorOptions {
  scope: ToolScope;
  runners: RunnerRegistry;
  limits: Pick<Limits, 'max_calls_per_round'>;
  budget: Budget;
  /** Working directory of the run; catalog-relative paths resolve from the catalog's folder. */
  cwd: string;
  env: Record<string, string | undefined>;
  secrets?: SecretSet;
  /** Background jobs; the session that owns them closes them. */
  jobs?: JobStore<Outcome>;
  /** Answers approval requests unless a turn brings its own; without one, such calls are declined. */
  approve?: Approver;
  /** Summarises results over their limit for `truncation: summarize`; without one they are cut with `smart`. */
  summarise?: Summariser;
  /** Where tools' own model calls are counted (RunContext.countUsage): the conversation's turn usage. */
  countUsage?: (usage: readonly SideUsage[]) => void;
  /** The catalog's `evaluations:`: a tool's result checks run on each of its results. */
  evaluations?: ReadonlyMap<string, EvaluationDefinition>;
  onEvent?: (event: CallEvent) => void;
}

export interface TurnOptions {
  /**
   * Cancels this turn: its running tools, and approvals still waiting. A driver with more than one
   * reason to stop (`serve`: the request's cancellation and the server shutting down) passes them
   * all; the turn listens to each, which costs far less than joining them per call with
   * `AbortSignal.any` (a new signal held by weak references, about 9 µs of CPU and garbage on
   * Node 20: the largest part of what serve added to a call, issue 24).
   */
  signal?: AbortSignal | readonly AbortSignal[];
  approve?: Approver;
  onEvent?: (event: CallEvent) => void;
}

/** A call's outcome; `tool` names the tool whose limits apply when another call ran it (invoke_tool). */
export type Outcome = ({ ok: true; value: unknown; jobId?: string; structured?: Record<string, unknown> } | { ok: false; kind: ErrorKind; message: string }) & { tool?: Tool };

/** One call of a turn, with the tool it resolved to. */
interface PlannedCall {
  record: CallRecord;
  tool?: Tool;
  refused?: Outcome;
}

type Emit = ((event: CallEvent) => void) | undefined;

/** A response being made: what `toResponse` found, before and after a cut to the tool's limit. */
interface ResponseParts {
  record: CallRecord;
  outcome: Outcome;
  duration: number;
  content: string;
  error: string | null;
  kind: ErrorKind | null;
  truncated: boolean;
  original: number | null;
  extra: Partial<ToolResponse>;
}

/**
 * Runs a model turn's tool calls as DESIGN.md §3 says: de-duplicate, cap, take-control guard,
 * availability, argument validation, confirmation, run (safe tools in parallel, serial ones behind
 * one lock, each with its timeout), check each result against the tool's output schema, truncate
 * each result and the turn, answer in call order. A
 * tool's failure is an error response, never a thrown exception or a broken turn. How a tool runs
 * is its runner's business, found by handler kind.
 */
export class Executor {
  private readonly lock = new Mutex();
  private readonly scratch = new Map<string, Map<string, unknown>>();
  private readonly baseDirs = new WeakMap<Tool, string>();
  private readonly secrets: SecretSet;
  private readonly jobs: JobStore<Outcome>;
  /** Tools the user approved with "always" for the rest of the session. */
  private readonly alwaysApproved = new Set<string>();
  private approvals: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ExecutorOptions) {
    this.secrets = options.secrets ?? new SecretSet();
    this.jobs = options.jobs ?? new JobStore<Outcome>();
  }

  /** Runs one turn's calls, each decoded once into a record by the session (ToolSession.decode). */
  runTurn(calls: readonly CallRecord[], turn: TurnOptions = {}): Promise<TurnResult> {
    const outers = turn.signal === undefined ? [] : Array.isArray(turn.signal) ? (turn.signal as readonly AbortSignal[]) : [turn.signal as AbortSignal];
    if (outers.length === 0) return this.runCalls(calls, turn, Cancellation.NEVER);
    // One cancellation for the turn's calls, linked once to the driver's signals: a turn may run
    // many calls, each listening to it, and listeners on the driver's signals must not pile up
    // across turns.
    // Linked from the next turn of the event loop: a turn that ends within this one never listens (shared/after-this-turn.ts).
    const { cancel, unlink } = Cancellation.linkedLater(outers);
    return this.runCalls(calls, turn, cancel, unlink);
  }

  /** The turn's calls; `unlink` (the listeners on the driver's signals) goes when they are done (in here: a `finally()` would be one more promise per turn). */
  private async runCalls(calls: readonly CallRecord[], turn: TurnOptions, cancel: Cancellation, unlink?: () => void): Promise<TurnResult> {
    try {
      // Arguments, results and result checks are validated synchronously below: ajv loads once, now.
      if (calls.length > 0 && !validatorLoaded()) await loadValidator();
      const listener = turn.onEvent ?? this.options.onEvent;
      // Optional calls skip building the event when nobody listens (the common case for scripts).
      const emit = listener ? (event: CallEvent) => this.emit(event, listener) : undefined;
      const planned = calls.map((record) => this.plan(record));
      const cap = this.options.limits.max_calls_per_round;
      // A turn of one call (every `serve` request, most of `call`s): the steps below, without the
      // bookkeeping a turn of many needs (duplicates, the cap, take-control apart from the rest).
      if (planned.length === 1 && cap >= 1) {
        const only = planned[0]!;
        emit?.({ type: 'tool_status', id: only.record.id, name: only.record.tool, status: 'queued' });
        let duration = 0;
        const outcome = await this.callOne(only, cancel, turn.approve ?? this.options.approve, emit, (ms) => (duration = ms));
        const shaped = this.toResponse(only, outcome, duration, cancel);
        const response = shaped instanceof Promise ? await shaped : shaped;
        this.applyTurnBudget([{ response, tool: only.tool }]);
        return { responses: [response], took_control: only.tool?.takesControl && response.ok ? only.record.tool : null };
      }

      // 1. De-duplicate identical calls (same tool, same arguments in any key order).
      const duplicateOf = new Array<number | undefined>(planned.length);
      const firstByKey = new Map<string, number>();
      planned.forEach((p, i) => {
        if (p.refused || (p.tool && !p.tool.dedupe)) return;
        const key = callKey(p.record);
        const first = firstByKey.get(key);
        if (first === undefined) firstByKey.set(key, i);
        else duplicateOf[i] = first;
      });
      const primaries = planned.map((_, i) => i).filter((i) => duplicateOf[i] === undefined);
      const outcomes = new Map<number, Promise<Outcome>>();
      const durations = new Map<number, number>();

      // 2. Cap the calls run this turn.
      const running = primaries.slice(0, cap);
      for (const i of primaries.slice(cap)) {
        outcomes.set(i, Promise.resolve(fail('over_limit', `not run: at most ${cap} tool calls run per turn, and this turn had ${primaries.length}. Call ${planned[i]!.record.tool} again in the next turn if you still need it.`)));
      }

      // 3. A take-control tool must be called alone (invoke_tool included: the wrapped tool counts).
      const controlling = running.filter((i) => planned[i]!.tool?.takesControl);
      if (controlling.length && running.length > 1) {
        const names = [...new Set(controlling.map((i) => planned[i]!.record.tool))];
        for (const i of running) {
          const name = planned[i]!.record.tool;
          outcomes.set(
            i,
            Promise.resolve(
              controlling.includes(i)
                ? fail('must_run_alone', `not run: ${name} takes control of the conversation and must be the only tool call in its turn. Call it again on its own.`)
                : fail('must_run_alone', `not run: ${names.join(', ')} ${names.length === 1 ? 'takes' : 'take'} control and must be called alone, so nothing in this turn ran. Call ${names.join(' or ')} on its own, or call this without it.`),
            ),
          );
        }
      } else {
        for (const i of running) emit?.({ type: 'tool_status', id: planned[i]!.record.id, name: planned[i]!.record.tool, status: 'queued' });
        for (const i of running) outcomes.set(i, this.callOne(planned[i]!, cancel, turn.approve ?? this.options.approve, emit, (ms) => durations.set(i, ms)));
      }

      const settled = await Promise.all(primaries.map((i) => outcomes.get(i)!));
      // Each result to its limit once all have settled (a summary is a model call: they go in parallel), then the turn's budget.
      const shortened = await Promise.all(primaries.map((i, n) => this.toResponse(planned[i]!, settled[n]!, durations.get(i) ?? 0, cancel)));
      const primary = new Map<number, ToolResponse>(primaries.map((i, n) => [i, shortened[n]!]));
      this.applyTurnBudget([...primary].map(([i, response]) => ({ response, tool: planned[i]!.tool })));
      // Duplicates get the same answer, marked as such, under their own call id.
      const responses = planned.map((p, i) => {
        const source = duplicateOf[i];
        return source === undefined ? primary.get(i)! : { ...primary.get(source)!, id: p.record.id, name: p.record.name, deduplicated: true, duration_ms: 0 };
      });
      const alone = controlling.length === 1 && running.length === 1 ? controlling[0]! : undefined;
      return { responses, took_control: alone !== undefined && responses[alone]!.ok ? planned[alone]!.record.tool : null };
    } finally {
      unlink?.();
    }
  }

  /** Finds the record's tool, before any turn-wide rule applies. */
  private plan(record: CallRecord): PlannedCall {
    if (record.refused) return { record, refused: fail(record.refused.kind, record.refused.message) };
    const tool = this.options.scope.resolve(record.tool);
    return { record, ...(tool ? { tool } : {}) };
  }

  /** Availability, validation, confirmation and the run, for one call. */
  private async callOne(planned: PlannedCall, cancel: Cancellation, approve: Approver | undefined, emit: Emit, setDuration: (ms: number) => void): Promise<Outcome> {
    const { record, tool } = planned;
    const started = performance.now();
    const finish = (outcome: Outcome): Outcome => {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      setDuration(ms);
      if (emit) {
        const { id, tool: name } = record;
        if (outcome.ok) emit({ type: 'tool_status', id, name, status: 'done', duration_ms: ms });
        else if (outcome.kind === 'cancelled') emit({ type: 'tool_status', id, name, status: 'cancelled', duration_ms: ms });
        else emit({ type: 'tool_status', id, name, status: 'error', duration_ms: ms, error: outcome.message, error_kind: outcome.kind });
      }
      if (tool) outcome.tool = tool;
      return outcome;
    };
    if (planned.refused) return finish(planned.refused);
    emit?.({ type: 'tool_status', id: record.id, name: record.tool, status: 'validating' });

    // 4. Known and available?
    if (!tool) {
      const suggestions = this.options.scope.suggestions(record.tool);
      return finish(fail('unknown_tool', `there is no tool named "${record.tool}"` + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '')));
    }
    const unavailable = this.options.scope.unavailable(tool, record.via);
    if (unavailable) return finish(fail('not_available', unavailable));
    // Server tools run at the provider; client tools (Anthropic's text editor, bash) are the application's to run, and toolman has no runner for them.
    if (tool.native) return finish(fail('native_tool', `${tool.name} is a provider-defined tool, which toolman does not run`));

    // 5. Arguments.
    const checked = validateArguments(tool, record.arguments);
    if (!checked.valid) return finish(fail('invalid_arguments', checked.message));
    const args = record.arguments as Record<string, unknown>;

    // 6. Confirmation, asked in call order.
    const needsApproval = tool.confirm === 'always' || (tool.confirm === 'auto' && tool.effect === 'destructive');
    if (needsApproval && !this.alwaysApproved.has(tool.name)) {
      const reason = tool.effect === 'destructive' ? `${tool.name} is destructive` : `${tool.name} asks for confirmation`;
      emit?.({ type: 'tool_status', id: record.id, name: tool.name, status: 'awaiting_approval', arguments: args, reason });
      const decision = await this.askApproval(approve, { callId: record.id, tool, arguments: args, reason }, cancel);
      emit?.({ type: 'tool_approval', id: record.id, name: tool.name, decision });
      if (cancel.aborted) return finish(fail('cancelled', `${tool.name} was cancelled`));
      if (decision === 'decline') return finish(fail('declined', `the user declined to run ${tool.name}; do not call it again unless they ask for it`));
      if (decision === 'always') this.alwaysApproved.add(tool.name);
    }

    // 7. Run.
    if (tool.mode === 'stateful') return finish(await this.startStateful(tool, args, record.id, cancel, emit, approve));
    if (tool.mode === 'background') {
      const jobId = this.jobs.start(tool.name, (jobSignal) => {
        const { cancel: job, unlink } = Cancellation.linked([jobSignal]);
        return this.runTool(tool, args, record.id, job, emit, approve).finally(unlink);
      });
      return finish({ ok: true, value: { job_id: jobId, status: 'running', note: 'Call job_status or job_result with this job_id to collect the result.' }, jobId });
    }
    const run = () => {
      // Emitted once the call really starts: a serial tool may have waited for the lock.
      emit?.({ type: 'tool_status', id: record.id, name: tool.name, status: 'running' });
      return this.runTool(tool, args, record.id, cancel, emit, approve);
    };
    return finish(tool.concurrency === 'serial' ? await this.lock.run(run) : await run());
  }

  /** Runs a tool through its runner, with its timeout and the turn's signal; every failure becomes a value. */
  private async runTool(tool: Tool, args: Record<string, unknown>, callId: string, outer: Cancellation, emit: Emit, approve: Approver | undefined): Promise<Outcome> {
    if (!tool.handler) return fail('tool_error', `${tool.name} has no handler, so toolman cannot run it`);
    const runner = this.options.runners.get(tool.handler.kind);
    if (!runner) return fail('tool_error', `${tool.name} is ${tool.handler.kind === 'agent' ? 'a sub-agent' : `a ${tool.handler.kind} tool`}, and this toolman cannot run ${tool.handler.kind} tools`);
    if (outer.aborted) return fail('cancelled', `${tool.name} was cancelled`);
    // The call's own signal exists only once a runner reads it (a mock without latency never
    // does): making one costs a few µs per call. The promise below is rejected directly.
    const controller = new AbortController();
    let unlisten = noop;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ended = false;
    const context = this.runContext(tool, callId, () => controller.signal, emit, approve);
    const handler = tool.handler as never;
    try {
      // The run, or its end by timeout or cancellation, whichever comes first: one promise (a
      // Promise.race with a second promise for the stop cost more, issue 24).
      const value = await new Promise<unknown>((resolve, reject) => {
        const abort = (reason: Error) => {
          controller.abort(reason);
          reject(reason);
        };
        // The timeout and the turn's cancellation, for a call still running once the event loop
        // has turned (shared/after-this-turn.ts): one that ends within this turn needs neither. The
        // timeout counts from the call's start all the same.
        const started = performance.now();
        afterThisTurn(() => {
          if (ended) return;
          if (outer.aborted) return abort(new CancelledError());
          unlisten = outer.onAbort(() => abort(new CancelledError()));
          timer = setTimeout(() => abort(new TimeoutError()), timerDelay(tool.timeoutMs - (performance.now() - started)));
        });
        runner.run(handler, args, context).then(resolve, reject);
      });
      // 8. The result against the tool's output schema, whole: before truncation, which would cut a
      // valid result into an invalid one (or an invalid one into something that passes).
      if (tool.outputSchema) {
        const checked = validateOutput(tool as Tool & { outputSchema: JsonSchema }, value instanceof StructuredResult ? value.structuredContent : value);
        if (!checked.valid) return fail('invalid_output', checked.message);
      }
      // A structured value rides beside the result (for serve), never inside what the model gets.
      if (value instanceof StructuredResult) return { ok: true, value: value.value, structured: value.structuredContent };
      return { ok: true, value };
    } catch (error) {
      if (error instanceof TimeoutError) return fail('timeout', `${tool.name} did not finish within ${tool.timeoutMs} ms and was stopped`);
      if (error instanceof CancelledError) return fail('cancelled', `${tool.name} was cancelled`);
      if (error instanceof ToolFailure) return fail('tool_error', error.message);
      return fail('tool_error', `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      ended = true;
      clearTimeout(timer);
      unlisten();
    }
  }

  /** What a runner gets for one call (or one stateful job) besides the handler and the arguments. */
  private runContext(tool: Tool, callId: string, signal: AbortSignal | (() => AbortSignal), emit: Emit, approve: Approver | undefined): RunContext {
    return new CallContext(
      callId,
      tool,
      typeof signal === 'function' ? signal : () => signal,
      (message, detail) => emit?.({ type: 'tool_progress', id: callId, name: tool.name, message, ...detail }),
      this.scratchFor(tool.name),
      this.baseDirOf(tool),
      this.options.cwd,
      this.options.env,
      this.secrets,
      approve ? (request: ApprovalRequest, asking: AbortSignal) => this.askForRunner(approve, request, asking) : undefined,
      this.options.countUsage,
    );
  }

  /**
   * A stateful tool: its generator becomes a job of the session (stateful-job.ts), bounded by the
   * tool's timeout in all, and the call answers with its first yield and the job id; job_next
   * reads the rest. Like a background job it holds no serial lock: it outlives the turn.
   */
  private async startStateful(tool: Tool, args: Record<string, unknown>, callId: string, cancel: Cancellation, emit: Emit, approve: Approver | undefined): Promise<Outcome> {
    const runner = tool.handler ? this.options.runners.get(tool.handler.kind) : undefined;
    if (!tool.handler || !runner) return this.runTool(tool, args, callId, cancel, emit, approve);
    if (!runner.start) return fail('tool_error', `${tool.name} is mode: stateful, and its ${tool.handler.kind} handler cannot run as a generator (only module, plugin and mock handlers can)`);
    emit?.({ type: 'tool_status', id: callId, name: tool.name, status: 'running' });
    // A runner's progress reaches this call's display while the call runs; later, the job's updates tell.
    let live = emit;
    const handler = tool.handler;
    const job = this.jobs.startStateful(tool, (jobSignal) => runner.start!(handler as never, args, this.runContext(tool, callId, jobSignal, (event) => live?.(event), approve)), {
      maxTokens: this.resultLimit(tool),
      secrets: this.secrets,
    });
    const answer = await job.firstAnswer(cancel.signal);
    live = undefined;
    return answer.ok ? { ok: true, value: answer.value, jobId: job.id } : fail(answer.kind, answer.message);
  }

  /** Tokens (estimated) one result of `tool` may take. */
  private resultLimit(tool: Tool): number {
    return Math.min(tool.maxResultTokens, this.options.budget.per_result ?? Infinity);
  }

  /**
   * A question from a tool that runs tools of its own (a sub-agent): asked of the same driver, one
   * at a time with this executor's; "always" holds for this session, as it does for its own calls.
   */
  private async askForRunner(approve: Approver, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (this.alwaysApproved.has(request.tool.name)) return 'approve';
    const { cancel, unlink } = Cancellation.linked([signal]);
    const decision = await this.askApproval(approve, request, cancel).finally(unlink);
    if (decision === 'always') this.alwaysApproved.add(request.tool.name);
    return decision;
  }

  /**
   * One question at a time, in call order; a cancelled turn stops waiting and declines. The
   * driver is shown the arguments with the secrets taken out (a model may echo one into them):
   * what runs is the call as made, what is shown never holds a secret.
   */
  private askApproval(approve: Approver | undefined, asked: Parameters<Approver>[0], cancel: Cancellation): Promise<ApprovalDecision> {
    const request = { ...asked, arguments: redactValue(asked.arguments, this.secrets, {}), reason: this.secrets.redact(asked.reason) };
    const answer = this.approvals.then(async (): Promise<ApprovalDecision> => {
      if (!approve || cancel.aborted) return 'decline';
      // The listener goes when the question is answered: a turn may ask many questions of one signal.
      let unlisten = () => {};
      const cancelled = new Promise<ApprovalDecision>((resolvePromise) => {
        unlisten = cancel.onAbort(() => resolvePromise('decline'));
      });
      try {
        return await Promise.race([approve(request, cancel.signal).catch((): ApprovalDecision => 'decline'), cancelled]);
      } finally {
        unlisten();
      }
    });
    this.approvals = answer;
    return answer;
  }

  /** Stops a running background job of this session (serve's `tasks/cancel`); false when none runs by that id. */
  cancelJob(id: string): boolean {
    return this.jobs.cancel(id);
  }

  /**
   * A job's status, and a background job's result: the session's job tools answer through this,
   * and `serve` asks whether a principal's jobs still run (a stateful one has no `outcome`: its
   * result is read with job_next).
   */
  job(id: string): { tool: string; status: string; running_ms: number; outcome?: Outcome } | undefined {
    const job = this.jobs.get(id);
    if (!job) {
      const stateful = this.jobs.stateful(id)?.summary();
      return stateful && { tool: stateful.tool, status: stateful.status, running_ms: stateful.running_ms };
    }
    return { tool: job.tool, status: job.status, running_ms: Math.round((job.finishedAt ?? performance.now()) - job.startedAt), ...(job.outcome ? { outcome: job.outcome } : {}) };
  }

  /**
   * The outcome as the response the model (or client) gets: serialised, redacted, checked and cut
   * to the tool's limit. Synchronous unless the result is over its limit (a cut may be a model's
   * summary): most results fit, and a turn of one call then awaits nothing here.
   */
  private toResponse(planned: PlannedCall, outcome: Outcome, duration: number, cancel: Cancellation): ToolResponse | Promise<ToolResponse> {
    const { record } = planned;
    let content: string;
    let error: string | null = null;
    let kind: ErrorKind | null = null;
    if (outcome.ok) {
      const serialised = serialise(outcome.value);
      if (serialised.ok) content = serialised.text;
      else {
        content = `${record.tool} returned a value that is not JSON: ${serialised.reason}`;
        error = content;
        kind = 'tool_error';
      }
    } else {
      content = outcome.message;
      error = outcome.message;
      kind = outcome.kind;
    }
    content = this.secrets.redact(content);
    if (error) error = this.secrets.redact(error);
    const tool = outcome.tool;
    const extra: Partial<ToolResponse> = {};
    const parts: ResponseParts = { record, outcome, duration, content, error, kind, truncated: false, original: null, extra };
    if (!error && tool) {
      // Sources and result checks read the whole result, before any cut (as the output schema does).
      // A stateful call's answer is a job report around its first yield, not the tool's result:
      // none of them apply to it (validate says so, TM0736).
      const redact = (text: string) => this.secrets.redact(text);
      const isResult = outcome.ok && tool.mode !== 'stateful';
      if (isResult && tool.references) {
        const references = resultReferences(tool.references, outcome.value, redact);
        if (references.length) extra.references = references;
      }
      if (isResult && tool.evaluation?.length && this.options.evaluations) {
        const verdicts = resultVerdicts(tool, outcome.value, this.options.evaluations, record.id, redact);
        if (verdicts.length) extra.evaluations = verdicts;
      }
      const limit = this.resultLimit(tool);
      if (estimateTokens(content) > limit) return this.cutToLimit(parts, tool, limit, cancel);
    }
    return this.responseOf(parts);
  }

  /** A result over its tool's limit, cut (or summarised); the signal is made only if a summary is asked for. */
  private async cutToLimit(parts: ResponseParts, tool: Tool, limit: number, cancel: Cancellation): Promise<ToolResponse> {
    const cut = await shortenResult(parts.content, limit, tool, {
      summarise: this.options.summarise,
      threshold: this.options.budget.summarize?.threshold,
      get signal() {
        return cancel.signal;
      },
    });
    if (cut.truncated) {
      // A summary is a model's text: it may repeat a secret the result held before redaction reached the model.
      parts.content = cut.summarized ? this.secrets.redact(cut.text) : cut.text;
      parts.truncated = true;
      parts.original = cut.originalTokens;
      if (cut.summarized) parts.extra.summarized = true;
    }
    if (cut.summaryError) parts.extra.summary_error = this.secrets.redact(cut.summaryError);
    return this.responseOf(parts);
  }

  private responseOf({ record, outcome, duration, content, error, kind, truncated, original, extra }: ResponseParts): ToolResponse {
    const response: ToolResponse = {
      id: record.id,
      name: record.name,
      tool: record.tool,
      ok: error === null,
      content,
      error,
      error_kind: kind,
      deduplicated: false,
      truncated,
      original_tokens: original,
      duration_ms: duration,
      ...(outcome.ok && outcome.jobId ? { job_id: outcome.jobId } : {}),
      ...extra,
    };
    // A truncated result's structured value would carry what the limit cut; secrets go as in the text.
    if (outcome.ok && outcome.structured && !error && !truncated) {
      const structured = this.redactedObject(outcome.structured);
      if (structured) setStructuredContent(response, structured);
    }
    return response;
  }

  /** An object with every secret value redacted, as its text is; undefined when that breaks it. */
  private redactedObject(value: Record<string, unknown>): Record<string, unknown> | undefined {
    const serialised = serialise(value);
    if (!serialised.ok) return undefined;
    const redacted = this.secrets.redact(serialised.text);
    if (redacted === serialised.text) return value;
    try {
      const parsed: unknown = JSON.parse(redacted);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Shares `budget.total_results` among the turn's results: small ones keep all, big ones share the rest. */
  private applyTurnBudget(results: { response: ToolResponse; tool: Tool | undefined }[]): void {
    const total = this.options.budget.total_results;
    if (total === undefined) return;
    const candidates = results.filter((r) => r.response.ok).sort((a, b) => estimateTokens(a.response.content) - estimateTokens(b.response.content));
    let remaining = total;
    candidates.forEach(({ response, tool }, index) => {
      const share = Math.floor(remaining / (candidates.length - index));
      const size = estimateTokens(response.content);
      if (size > share) {
        const cut = truncateResult(response.content, Math.max(1, share), cutStrategy(tool?.truncation ?? 'smart'));
        response.original_tokens ??= cut.originalTokens;
        response.content = cut.text;
        response.truncated = true;
      }
      remaining -= estimateTokens(response.content);
    });
  }

  /** The folder a tool's relative paths resolve from: its catalog file's (resolved once per tool, not per call). */
  private baseDirOf(tool: Tool): string {
    if (tool.source.kind !== 'catalog' && tool.source.kind !== 'agent') return this.options.cwd;
    let dir = this.baseDirs.get(tool);
    if (dir === undefined) this.baseDirs.set(tool, (dir = dirname(resolve(this.options.cwd, tool.source.file))));
    return dir;
  }

  private scratchFor(tool: string): Map<string, unknown> {
    let store = this.scratch.get(tool);
    if (!store) this.scratch.set(tool, (store = new Map()));
    return store;
  }

  private emit(event: CallEvent, listener: (event: CallEvent) => void): void {
    if (event.type === 'tool_status' && event.status === 'error') event = { ...event, error: this.secrets.redact(event.error) };
    if (event.type === 'tool_status' && event.status === 'awaiting_approval') event = { ...event, arguments: redactValue(event.arguments, this.secrets, {}) };
    if (event.type === 'tool_progress') event = { ...event, message: this.secrets.redact(event.message) };
    try {
      listener(event);
    } catch {
      // a display's failure must not break the turn
    }
  }
}

function noop(): void {}

class TimeoutError extends Error {}
class CancelledError extends Error {}

export function fail(kind: ErrorKind, message: string): Outcome {
  return { ok: false, kind, message };
}
