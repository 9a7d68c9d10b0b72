import { dirname, resolve } from 'node:path';
import { nearest } from '../catalog/did-you-mean.js';
import { canonicalJson } from '../catalog/json-schema.js';
import type { Catalog, Tool } from '../catalog/types.js';
import type { ToolSession } from '../manager/tool-session.js';
import { validateArguments } from './argument-validator.js';
import { runExec } from './handlers/exec-handler.js';
import { runHttp } from './handlers/http-handler.js';
import { runMock } from './handlers/mock-handler.js';
import { runModule } from './handlers/module-handler.js';
import { JobStore } from './job-store.js';
import { Mutex } from './mutex.js';
import { redact } from './templates.js';
import { estimateTokens, truncateResult } from './truncate.js';
import type { ApprovalRequest, CallEvent, ErrorKind, HandlerContext, ToolCall, ToolResponse, TurnResult } from './types.js';
import { isRecord } from '../is-record.js';

export interface ExecutorOptions {
  catalog: Catalog;
  session: ToolSession;
  /** Working directory of the run; catalog-relative paths resolve from the catalog's folder. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** Answers approval requests; without it, calls that need approval are declined. */
  approve?: (request: ApprovalRequest) => Promise<boolean>;
  onEvent?: (event: CallEvent) => void;
  /** Cancels everything running (Ctrl-C). */
  signal?: AbortSignal;
}

/** A call's outcome; `tool` names the tool whose limits apply when another call ran it (invoke_tool). */
type Outcome = ({ ok: true; value: unknown; jobId?: string } | { ok: false; kind: ErrorKind; message: string }) & { tool?: string };

/**
 * Runs a model turn's tool calls as DESIGN.md §3 says: de-duplicate, cap, take-control guard,
 * availability, argument validation, confirmation, run (safe tools in parallel, serial ones behind
 * one lock, each with its timeout), truncate each result and the turn, answer in call order. A
 * tool's failure is an error response, never a thrown exception or a broken turn.
 */
export class Executor {
  private readonly lock = new Mutex();
  private readonly jobs = new JobStore();
  private readonly scratch = new Map<string, Map<string, unknown>>();
  /** Every secret value filled into a request; scrubbed from all output. */
  private readonly secrets = new Set<string>();
  private approvals: Promise<unknown> = Promise.resolve();
  /** Tools by name, then by alias: looked up several times per call, so built once. */
  private readonly byName = new Map<string, Tool>();

  constructor(private readonly options: ExecutorOptions) {
    for (const tool of options.catalog.tools) this.byName.set(tool.name, tool);
    for (const tool of options.catalog.tools) for (const alias of tool.aliases) if (!this.byName.has(alias)) this.byName.set(alias, tool);
  }

  async runTurn(calls: readonly ToolCall[]): Promise<TurnResult> {
    const { catalog } = this.options;
    const normalized = calls.map((call) => ({ ...call, arguments: parseArguments(call.arguments) }));
    const outcomes = new Array<Promise<Outcome> | undefined>(calls.length);
    const durations = new Array<number>(calls.length).fill(0);
    const duplicateOf = new Array<number | undefined>(calls.length);

    // 1. De-duplicate identical calls (same name, same arguments in any key order).
    const firstByKey = new Map<string, number>();
    normalized.forEach((call, i) => {
      const tool = this.toolNamed(call.name);
      if (tool && !tool.dedupe) return;
      const key = `${call.name}\u0000${canonicalJson(call.arguments)}`;
      const first = firstByKey.get(key);
      if (first === undefined) firstByKey.set(key, i);
      else duplicateOf[i] = first;
    });
    const primaries = normalized.map((_, i) => i).filter((i) => duplicateOf[i] === undefined);

    // 2. Cap the calls run this turn.
    const cap = catalog.limits.max_calls_per_round;
    const running = primaries.slice(0, cap);
    for (const i of primaries.slice(cap)) {
      outcomes[i] = Promise.resolve(fail('over_limit', `not run: at most ${cap} tool calls run per turn, and this turn had ${primaries.length}. Call ${normalized[i]!.name} again in the next turn if you still need it.`));
    }

    // 3. A take-control tool must be called alone.
    const controlling = running.filter((i) => this.toolNamed(normalized[i]!.name)?.takesControl);
    if (controlling.length && running.length > 1) {
      const names = [...new Set(controlling.map((i) => normalized[i]!.name))];
      for (const i of running) {
        const name = normalized[i]!.name;
        outcomes[i] = Promise.resolve(
          controlling.includes(i)
            ? fail('must_run_alone', `not run: ${name} takes control of the conversation and must be the only tool call in its turn. Call it again on its own.`)
            : fail('must_run_alone', `not run: ${names.join(', ')} ${names.length === 1 ? 'takes' : 'take'} control and must be called alone, so nothing in this turn ran. Call ${names.join(' or ')} on its own, or call this without it.`),
        );
      }
    } else {
      for (const i of running) {
        const call = normalized[i]!;
        this.emit({ type: 'queued', id: call.id, name: call.name });
        outcomes[i] = this.callOne(call, (ms) => (durations[i] = ms));
      }
    }

    const settled = await Promise.all(outcomes.map((o) => o ?? Promise.resolve(undefined)));
    const responses: ToolResponse[] = normalized.map((call, i) => (duplicateOf[i] === undefined ? this.toResponse(call, settled[i]!, durations[i]!) : (undefined as unknown as ToolResponse)));
    this.applyTurnBudget(responses.filter(Boolean));
    // Duplicates get the same answer, marked as such, under their own call id.
    normalized.forEach((call, i) => {
      const source = duplicateOf[i];
      if (source !== undefined) responses[i] = { ...responses[source]!, id: call.id, deduplicated: true, duration_ms: 0, attempts: 0 };
    });
    const tookControl = controlling.length === 1 && running.length === 1 && responses[controlling[0]!]!.ok ? normalized[controlling[0]!]!.name : null;
    return { responses, took_control: tookControl };
  }

  /** Steps 4 to 7 for one call: availability, validation, confirmation, run. */
  private async callOne(call: { id: string; name: string; arguments: unknown }, setDuration: (ms: number) => void, viaInvoke = false): Promise<Outcome> {
    const { session } = this.options;
    const started = performance.now();
    const finish = (outcome: Outcome): Outcome => {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      setDuration(ms);
      if (outcome.ok) this.emit({ type: 'done', id: call.id, name: call.name, duration_ms: ms });
      else if (outcome.kind === 'cancelled') this.emit({ type: 'cancelled', id: call.id, name: call.name, duration_ms: ms });
      else this.emit({ type: 'error', id: call.id, name: call.name, duration_ms: ms, error: outcome.message });
      return outcome;
    };
    const args = call.arguments;

    // Meta-tools: search and discovery answer from the session; jobs from the store.
    if (!viaInvoke && (call.name === 'job_status' || call.name === 'job_result') && session.isMetaTool(call.name)) {
      return finish(this.jobAnswer(call.name, args));
    }
    if (!viaInvoke && session.isMetaTool(call.name)) {
      const outcome = session.callMetaTool(call.name, isRecord(args) ? args : {});
      if (!outcome.ok) return finish(fail('tool_error', outcome.error));
      if ('invoke' in outcome) {
        // The invoked call reports its own events and duration; its result is truncated by its limits.
        const inner = await this.callOne({ id: call.id, name: outcome.invoke.name, arguments: outcome.invoke.arguments }, setDuration, true);
        return { ...inner, tool: outcome.invoke.name };
      }
      return finish({ ok: true, value: outcome.content });
    }

    // 4. Known and available?
    const tool = this.toolNamed(call.name);
    if (!tool) {
      const suggestions = nearest(call.name, [...this.options.catalog.tools.map((t) => t.name), ...session.metaTools().map((t) => t.name)]);
      return finish(fail('unknown_tool', `there is no tool named "${call.name}"` + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '')));
    }
    if (!viaInvoke && !session.isCallable(tool.name)) return finish(fail('not_available', this.whyUnavailable(tool)));
    if (tool.native) return finish(fail('native_tool', `${tool.name} is run by the model provider, not by toolman`));

    // 5. Arguments.
    const checked = validateArguments(tool, args);
    if (!checked.valid) return finish(fail('invalid_arguments', checked.message));

    // 6. Confirmation, asked in call order.
    const needsApproval = tool.confirm === 'always' || (tool.confirm === 'auto' && tool.effect === 'destructive');
    if (needsApproval) {
      this.emit({ type: 'awaiting_approval', id: call.id, name: tool.name, arguments: args });
      const approved = await this.askApproval({ callId: call.id, tool, arguments: args as Record<string, unknown>, reason: tool.effect === 'destructive' ? `${tool.name} is destructive` : `${tool.name} asks for confirmation` });
      if (!approved) return finish(fail('declined', `the user declined to run ${tool.name}; do not call it again unless they ask for it`));
    }

    // 7. Run.
    if (tool.mode === 'background') {
      const jobId = this.jobs.start(tool.name, (signal) => this.runHandler(tool, args as Record<string, unknown>, call.id, signal));
      return finish({ ok: true, value: { job_id: jobId, status: 'running', note: 'Call job_status or job_result with this job_id to collect the result.' }, jobId });
    }
    const run = () => {
      // Emitted once the call really starts: a serial tool may have waited for the lock.
      this.emit({ type: 'running', id: call.id, name: tool.name });
      return this.runHandler(tool, args as Record<string, unknown>, call.id, this.options.signal);
    };
    return finish(tool.concurrency === 'serial' ? await this.lock.run(run) : await run());
  }

  /** Runs a tool's handler with its timeout and an AbortSignal; every failure becomes a value. */
  private async runHandler(tool: Tool, args: Record<string, unknown>, callId: string, outer?: AbortSignal): Promise<Outcome> {
    if (!tool.handler) return fail('tool_error', `${tool.name} has no handler, so toolman cannot run it`);
    const controller = new AbortController();
    const onOuter = () => controller.abort(new CancelledError());
    outer?.addEventListener('abort', onOuter, { once: true });
    if (outer?.aborted) controller.abort(new CancelledError());
    const timer = setTimeout(() => controller.abort(new TimeoutError(tool.timeoutMs)), tool.timeoutMs);
    const context: HandlerContext = {
      tool,
      baseDir: tool.source.kind === 'catalog' || tool.source.kind === 'agent' ? dirname(resolve(this.options.cwd, tool.source.file)) : this.options.cwd,
      cwd: this.options.cwd,
      env: this.options.env,
      signal: controller.signal,
      progress: (message) => this.emit({ type: 'progress', id: callId, name: tool.name, message }),
      scratch: this.scratchFor(tool.name),
    };
    const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
    try {
      const handler = tool.handler;
      const work =
        handler.kind === 'mock'
          ? runMock(handler.cases, args, context)
          : handler.kind === 'exec'
            ? runExec(handler.exec, args, context, this.secrets)
            : handler.kind === 'http'
              ? runHttp(handler.http, args, context, this.secrets)
              : runModule(handler.file, handler.exportName, args, context);
      const value = await Promise.race([work, aborted]);
      return { ok: true, value };
    } catch (error) {
      if (error instanceof TimeoutError) return fail('timeout', `${tool.name} did not finish within ${tool.timeoutMs} ms and was stopped`);
      if (error instanceof CancelledError) return fail('cancelled', `${tool.name} was cancelled`);
      return fail('tool_error', `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    }
  }

  private askApproval(request: ApprovalRequest): Promise<boolean> {
    const approve = this.options.approve;
    const answer = this.approvals.then(() => (approve ? approve(request).catch(() => false) : false));
    this.approvals = answer;
    return answer;
  }

  private jobAnswer(name: string, args: unknown): Outcome {
    const id = isRecord(args) && typeof args.job_id === 'string' ? args.job_id : '';
    const job = this.jobs.get(id);
    if (!job) return fail('tool_error', `no job with id ${JSON.stringify(id)}`);
    const status = { job_id: id, tool: job.tool, status: job.status, running_ms: Math.round((job.finishedAt ?? performance.now()) - job.startedAt) };
    if (name === 'job_status' || job.status === 'running') return { ok: true, value: status };
    const outcome = job.outcome as Outcome;
    return outcome.ok ? { ok: true, value: outcome.value } : outcome;
  }

  private toResponse(call: { id: string; name: string; arguments: unknown }, outcome: Outcome, duration: number): ToolResponse {
    const tool = this.toolNamed(outcome.tool ?? call.name);
    let content: string;
    let error: string | null = null;
    let kind: ErrorKind | null = null;
    if (outcome.ok) {
      const serialised = serialise(outcome.value);
      if (serialised.ok) content = serialised.text;
      else {
        content = `${call.name} returned a value that is not JSON: ${serialised.reason}`;
        error = content;
        kind = 'tool_error';
      }
    } else {
      content = outcome.message;
      error = outcome.message;
      kind = outcome.kind;
    }
    content = redact(content, this.secrets);
    if (error) error = redact(error, this.secrets);
    let truncated = false;
    let original: number | null = null;
    if (!error && tool) {
      const limit = Math.min(tool.maxResultTokens, this.options.catalog.budget.per_result ?? Infinity);
      const cut = truncateResult(content, limit, tool.truncation);
      if (cut.truncated) {
        content = cut.text;
        truncated = true;
        original = cut.originalTokens;
      }
    }
    return {
      id: call.id,
      name: call.name,
      ok: error === null,
      content,
      error,
      error_kind: kind,
      deduplicated: false,
      truncated,
      original_tokens: original,
      duration_ms: duration,
      attempts: 1,
      ...(outcome.ok && outcome.jobId ? { job_id: outcome.jobId } : {}),
    };
  }

  /** Shares `budget.total_results` among the turn's results: small ones keep all, big ones share the rest. */
  private applyTurnBudget(responses: ToolResponse[]): void {
    const total = this.options.catalog.budget.total_results;
    if (total === undefined) return;
    const candidates = responses.filter((r) => r.ok).sort((a, b) => estimateTokens(a.content) - estimateTokens(b.content));
    let remaining = total;
    candidates.forEach((response, index) => {
      const share = Math.floor(remaining / (candidates.length - index));
      const size = estimateTokens(response.content);
      if (size > share) {
        const tool = this.toolNamed(response.name);
        const cut = truncateResult(response.content, Math.max(1, share), tool?.truncation ?? 'smart');
        response.original_tokens ??= cut.originalTokens;
        response.content = cut.text;
        response.truncated = true;
      }
      remaining -= estimateTokens(response.content);
    });
  }

  private whyUnavailable(tool: Tool): string {
    const { session } = this.options;
    const decision = session.selection.decisions.find((d) => d.tool === tool);
    if (decision?.state === 'deferred') return `${tool.name} is not loaded yet: find it with tool_search (or discover_tools) first`;
    if (session.selection.exclusive) return `only ${session.selection.exclusive.name} may run now (it is exclusive)`;
    const callable = [...session.selection.active, ...session.activated.map((name) => ({ name }))].map((t) => t.name);
    const close = nearest(tool.name, callable);
    return `${tool.name} is not available in this session (${decision ? `${decision.step}: ${decision.rule}` : 'not selected'})` + (close.length ? `; available tools with similar names: ${close.join(', ')}` : '');
  }

  private toolNamed(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  private scratchFor(tool: string): Map<string, unknown> {
    let store = this.scratch.get(tool);
    if (!store) this.scratch.set(tool, (store = new Map()));
    return store;
  }

  private emit(event: CallEvent): void {
    if (event.type === 'error') event = { ...event, error: redact(event.error, this.secrets) };
    if (event.type === 'progress') event = { ...event, message: redact(event.message, this.secrets) };
    try {
      this.options.onEvent?.(event);
    } catch {
      // a display's failure must not break the turn
    }
  }
}

class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
  }
}
class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}

function fail(kind: ErrorKind, message: string): Outcome {
  return { ok: false, kind, message };
}


/** Models sometimes send arguments as a JSON string; anything else stays as sent for validation to judge. */
function parseArguments(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function serialise(value: unknown): { ok: true; text: string } | { ok: false; reason: string } {
  if (typeof value === 'string') return { ok: true, text: value };
  if (value === undefined) return { ok: true, text: 'null' };
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return { ok: false, reason: `a ${typeof value}` };
  try {
    const text = JSON.stringify(value);
    return text === undefined ? { ok: false, reason: 'nothing serialisable' } : { ok: true, text };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
