import type { ParseCache } from '../catalog/parse-cache.js';
import { callKey } from '../execute/call-key.js';
import type { Approver, CallEvent, CallRecord, ToolResponse } from '../execute/types.js';
import type { ChatMessage, ModelClient, ModelReply, ModelRequest, ModelToolResult } from '../providers/model-client.js';
import { ModelCallError } from '../providers/model-errors.js';
import type { FormatOptions } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { isToolmanError } from '../shared/errors.js';
import { EventChannel } from './event-channel.js';
import type { LoopEvent, SideUsage, StopReason, SummaryUsage, TurnCall, TurnSummary, TurnUsage } from './loop-events.js';
import { evaluateTurn, type RubricGrader } from './turn-evaluations.js';
import { TurnReferences } from './turn-references.js';

export interface ChatLoopOptions {
  client: ModelClient;
  session: ToolSession;
  /** How the tools are formatted (strict, native tool search...): the catalog's settings and flags. */
  format?: FormatOptions;
  /** The user's system prompt; the tools' contributions follow it. */
  system?: string;
  /**
   * The usage of the side calls (summaries, grades) made since it was last asked: the
   * conversation's side models. Asked once a turn is over, so the turn's summary counts them.
   */
  sideUsage?: () => SideUsage[];
  /** Default: the catalog's limits.max_rounds. */
  maxRounds?: number;
  /** Default: the catalog's limits.max_repeats. */
  maxRepeats?: number;
  /** Default true. */
  stream?: boolean;
  /** Output token cap sent where the API requires one (Anthropic). */
  maxTokens?: number;
  /** Asks before destructive tools run; without it such calls are declined. */
  approve?: Approver;
  /**
   * toolman's own count of each request's input tokens, next to the API's: `always` (default; the
   * REPL's status line shows both), `unreported` only for requests the API reported no usage for
   * (one-shot runs and suites: the count loads the tokenizer, about 100 ms, for a number nobody
   * reads when the API gave its own), `never`.
   */
  estimate?: EstimateMode;
  /** Grades rubric evaluations (`evaluations:` with `rubric`); without one they are `error` verdicts. */
  grade?: RubricGrader;
  /** `estimateTurn`'s counts remembered by request (the manager's cache): a suite's estimate then loads no tokenizer. */
  counts?: ParseCache;
}

export type EstimateMode = 'always' | 'unreported' | 'never';

export interface TurnOptions {
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
}

/**
 * The live loop: one conversation with a model over a catalog's tools. Each user turn sends the
 * conversation with the tools the session offers this round, runs the calls the model makes
 * through the session's executor, sends the results back, and repeats until the model answers
 * without calls, a take-control tool answers the user, the same call repeats past the limit, or
 * the round limit is reached. Everything it does is an event; nothing here draws or prints.
 */
export class ChatLoop {
  readonly messages: ChatMessage[] = [];
  private turns = 0;
  /** Tools' `user` prompt texts already given (each once per conversation). */
  private readonly deliveredUserTexts = new Set<string>();

  /** The format options the tools are sent with: the caller's, as the client's wire allows them. */
  readonly format: FormatOptions;

  constructor(private options: ChatLoopOptions) {
    const format = options.format ?? {};
    this.format = options.client.adaptFormat?.(format) ?? format;
  }

  /** How many user turns ran. */
  get turnCount(): number {
    return this.turns;
  }

  get session(): ToolSession {
    return this.options.session;
  }

  get client(): ModelClient {
    return this.options.client;
  }

  /** Who answers approval requests from now on (the REPL asks the user). */
  useApprover(approve: Approver | undefined): void {
    this.options.approve = approve;
  }

  /** Continues the conversation over another session's tools (another profile). */
  useSession(session: ToolSession): void {
    this.options.session = session;
  }

  /** Forgets the conversation (the session keeps the tools found so far). */
  reset(): void {
    this.messages.length = 0;
    this.deliveredUserTexts.clear();
  }

  /** One user turn as an async iterable of events; its return value is the summary. */
  async *turn(text: string, options: Omit<TurnOptions, 'onEvent'> = {}): AsyncGenerator<LoopEvent, TurnSummary> {
    const channel = new EventChannel<LoopEvent>();
    const work = this.run(text, { ...options, onEvent: (event) => channel.push(event) }).finally(() => channel.close());
    for await (const event of channel.drain()) yield event;
    return work;
  }

  /** One user turn, reporting events to `onEvent`; resolves with the summary. Never rejects. */
  async run(text: string, options: TurnOptions = {}): Promise<TurnSummary> {
    const signal = options.signal ?? new AbortController().signal;
    const emit = (event: LoopEvent) => {
      try {
        options.onEvent?.(event);
      } catch {
        // a display's failure must not break the turn
      }
    };
    const { session, client } = this.options;
    const limits = session.catalog.limits;
    const maxRounds = this.options.maxRounds ?? limits.max_rounds;
    const maxRepeats = this.options.maxRepeats ?? limits.max_repeats;
    const { format } = this;
    const calls: TurnCall[] = [];
    const sources = new TurnReferences();
    /** The results of calls that ran, as the model got them: what the turn's evaluations look at. */
    const used: ToolResponse[] = [];
    const usage: TurnUsage = { input: 0, output: 0, cached: 0, estimated_input: null };
    const repeats = new Map<string, number>();
    let warnedRepeat = false;
    let answer = '';
    let round = 0;
    let tookControl: string | null = null;
    const finish = async (stop: StopReason, message?: string): Promise<TurnSummary> => {
      // A cancelled or failed turn has no answer worth checking.
      const evaluations = stop === 'cancelled' || stop === 'error' || used.length === 0 ? [] : await evaluateTurn({ question: text, answer, responses: used, resolve: (name) => session.resolve(name), evaluations: session.catalog.evaluations }, this.options.grade, signal);
      if (evaluations.length) emit({ type: 'evaluations', round, verdicts: evaluations });
      const references = sources.list;
      // After the grades: every side call of the turn has answered.
      const totals = withSideUsage(usage, this.options.sideUsage?.() ?? []);
      emit({ type: 'done', stop, answer, rounds: round, took_control: tookControl, ...(message ? { message } : {}), ...(references.length ? { references } : {}), usage: totals });
      return { answer, stop, rounds: round, calls, usage: totals, took_control: tookControl, ...(message ? { message } : {}), references, evaluations };
    };

    this.turns++;
    emit({ type: 'turn_start', turn: this.turns, text });
    this.messages.push({ role: 'user', text: this.withContributions(text, 1) });
    const unsubscribe = session.onChange((change) => emit({ type: 'search', round, activated: change.activated }));
    try {
      while (round < maxRounds) {
        round++;
        if (signal.aborted) return finish('cancelled');
        emit({ type: 'round_start', round });
        const request = this.request(round, [...this.messages]);
        const fragment = request.tools;
        emit({ type: 'request', round, provider: client.provider, model: client.model, tools: Object.values(fragment.sent), tool_choice: fragment.toolChoice, stream: request.stream });
        for (const warning of round === 1 ? fragment.warnings : []) emit({ type: 'warning', message: warning.message });
        let reply: ModelReply;
        let partial = '';
        try {
          reply = await client.send(request, {
            signal,
            onText: (delta) => {
              partial += delta;
              emit({ type: 'text', round, delta });
            },
            onRetry: (notice) => emit({ type: 'retry', round, attempt: notice.attempt, ...(notice.status !== undefined ? { status: notice.status } : {}), wait_ms: notice.waitMs, reason: notice.reason }),
            onWarning: (message) => emit({ type: 'warning', message }),
          });
        } catch (error) {
          const failure = error instanceof ModelCallError ? error : undefined;
          // What the model said before it failed stays in the conversation.
          if (partial) this.messages.push({ role: 'assistant', text: partial, toolCalls: [] });
          answer = partial || answer;
          if (signal.aborted || failure?.kind === 'cancelled') return finish('cancelled');
          const message = error instanceof Error ? error.message : String(error);
          emit({ type: 'error', kind: failure?.kind ?? 'internal', message, ...(isToolmanError(error) && error.hint ? { hint: error.hint } : {}) });
          return finish('error', message);
        }
        // Counted once the reply is in: loading the tokenizer before would delay the first request.
        const estimated = this.wantsEstimate(reply) ? await estimateInput(client, request) : null;
        if (reply.usage) {
          usage.input += reply.usage.input;
          usage.output += reply.usage.output;
          usage.cached += reply.usage.cached;
        }
        if (estimated !== null) usage.estimated_input = (usage.estimated_input ?? 0) + estimated;
        emit({ type: 'usage', round, usage: reply.usage ?? null, estimated_input: estimated });
        this.messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls, ...(reply.native !== undefined ? { native: reply.native } : {}) });
        if (reply.text) answer = reply.text;
        if (reply.toolCalls.length === 0) {
          emit({ type: 'round_end', round });
          return finish('done');
        }

        // Each call decoded once, into the record everything after reads.
        const records = session.decode(reply.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })), client.provider, format);
        emit({ type: 'tool_calls', round, calls: records });
        // A model using the provider's own tool search calls deferred tools the provider found.
        if (format.nativeToolSearch) session.activate(records.map((r) => r.tool));

        // The same call again and again is a loop: past the limit it is not run, and the model is told.
        const looping = new Map<string, string>();
        let loopedAfterWarning = false;
        for (const record of records) {
          // A tool whose repeated calls are meant (dedupe: false: a die, a clock) is never "looping".
          if (record.refused || session.resolve(record.tool)?.dedupe === false) continue;
          const key = callKey(record);
          const count = (repeats.get(key) ?? 0) + 1;
          repeats.set(key, count);
          if (count > maxRepeats) {
            looping.set(record.id, `not run: this is call number ${count} of ${record.tool} with these same arguments in this turn, which looks like a loop. Use the results you already have, change the arguments, or answer the user.`);
            if (warnedRepeat) loopedAfterWarning = true;
          }
        }
        if (looping.size) warnedRepeat = true;

        const approvals = new Map<string, 'approved' | 'declined'>();
        const toRun = records.filter((r) => !looping.has(r.id));
        const ran = toRun.length
          ? await session.runTurn(toRun, {
              signal,
              ...(this.options.approve ? { approve: this.options.approve } : {}),
              onEvent: (event: CallEvent) => {
                if (event.type === 'tool_approval') approvals.set(event.id, event.decision === 'decline' ? 'declined' : 'approved');
                emit({ ...event, round });
              },
            })
          : { responses: [], took_control: null };
        const byId = new Map(ran.responses.map((r) => [r.id, r]));
        const results: ModelToolResult[] = [];
        for (const record of records) {
          // Sources are numbered for the turn and listed after the result's text, which the model reads.
          const response: ToolResponse = sources.number(byId.get(record.id) ?? loopResponse(record, looping.get(record.id) ?? 'not run'));
          // A job_next or job_stop call used the stateful tool it read: its checks look at what was read.
          const read = response.ok && record.meta ? session.jobToolRead(record) : undefined;
          if (response.ok && !record.meta) used.push(response);
          else if (read) used.push({ ...response, tool: read });
          emit({ type: 'tool_result', round, response });
          if (response.summary_error) emit({ type: 'warning', message: `${response.tool}'s result was over its limit and was cut, not summarised: ${response.summary_error}` });
          results.push({ id: record.id, name: record.name, content: response.ok ? response.content : (response.error ?? response.content), isError: !response.ok });
          calls.push({ ...record, round, ok: response.ok, error_kind: response.error_kind, content: response.content, error: response.error, approval: approvals.get(record.id) ?? null });
        }
        // Every call gets its answer before anything else happens: the history stays one the APIs accept.
        this.messages.push({ role: 'tool', results });
        emit({ type: 'round_end', round });
        if (signal.aborted) return finish('cancelled');
        if (ran.took_control) {
          tookControl = ran.took_control;
          // The response as the model got it: with its numbered sources.
          answer = used.find((r) => r.tool === ran.took_control)?.content ?? answer;
          return finish('took_control', `${ran.took_control} took control: its result is the answer`);
        }
        if (loopedAfterWarning) return finish('repeats', `the model kept repeating the same call after being told it was looping (limits.max_repeats is ${maxRepeats})`);
      }
      return finish('max_rounds', `stopped after ${maxRounds} rounds (limits.max_rounds); the model had not finished`);
    } catch (error) {
      // Anything unexpected still ends the turn with what was said kept, and says what happened.
      const message = error instanceof Error ? error.message : String(error);
      emit({ type: 'error', kind: 'internal', message });
      return finish(signal.aborted ? 'cancelled' : 'error', message);
    } finally {
      unsubscribe();
    }
  }

  /** Whether to count this reply's request: always, never, or where the API reported no usage (none, or zeros). */
  private wantsEstimate(reply: ModelReply): boolean {
    const mode = this.options.estimate ?? 'always';
    if (mode !== 'unreported') return mode === 'always';
    return !reply.usage || reply.usage.input + reply.usage.output === 0;
  }

  /** The request of round `round` over `messages`: the tools offered then, the system prompt (the user's, then the tools'). */
  private request(round: number, messages: ChatMessage[]): ModelRequest {
    const fragment = this.options.session.format(this.options.client.provider, round, this.format);
    return {
      model: this.options.client.model,
      system: [this.options.system, ...fragment.prompts.system].filter((s) => s && s.trim()).join('\n\n'),
      messages,
      tools: fragment,
      stream: this.options.stream ?? true,
      maxTokens: this.options.maxTokens ?? 4096,
    };
  }

  /**
   * toolman's count of the input tokens of the first request a turn with `text` would send now
   * (a suite's cost estimate before anything is sent); null when it cannot count. Nothing is sent
   * and the conversation is unchanged.
   */
  async estimateTurn(text: string): Promise<number | null> {
    const contributions = this.withContributions(text, 1, false);
    const { client, counts } = this.options;
    const request = this.request(1, [...this.messages, { role: 'user', text: contributions }]);
    if (!counts) return estimateInput(client, request);
    // A pure function of the request's body, the provider, the model and the build (the cache's key).
    const key = JSON.stringify(['estimate', client.provider, client.model, client.countBody?.(request) ?? client.body(request)]);
    const remembered = counts.get(key);
    if (typeof remembered === 'number' && Number.isSafeInteger(remembered) && remembered >= 0) return remembered;
    const counted = await estimateInput(client, request);
    if (counted !== null) counts.set(key, counted);
    return counted;
  }

  /** The user's text with the tools' prompt contributions: `user` texts once per conversation, reminders every turn. */
  private withContributions(text: string, round: number, deliver = true): string {
    const prompts = this.options.session.format(this.options.client.provider, round, this.format).prompts;
    const fresh = prompts.user.filter((t) => !this.deliveredUserTexts.has(t));
    if (deliver) for (const t of fresh) this.deliveredUserTexts.add(t);
    return [...fresh, text, ...prompts.reminders].join('\n\n');
  }
}

/** A turn's totals: the conversation's own usage with the side calls' added in, and listed apart. */
function withSideUsage(own: TurnUsage, side: SideUsage[]): SummaryUsage {
  const sum = (key: 'input' | 'output' | 'cached') => side.reduce((n, s) => n + s[key], own[key]);
  return { ...own, input: sum('input'), output: sum('output'), cached: sum('cached'), side };
}

function loopResponse(record: CallRecord, message: string): ToolResponse {
  return { id: record.id, name: record.name, tool: record.tool, ok: false, content: message, error: message, error_kind: 'over_limit', deduplicated: false, truncated: false, original_tokens: null, duration_ms: 0 };
}

/**
 * Per offered-tools fragment, then per provider and model: the tokens of a request holding only
 * those tools. A fragment is reused until the offer changes, and shared by the sessions of one
 * selection (session/tool-session.ts), whatever model each talks to: the count is the model's.
 */
const toolsOnlyCost = new WeakMap<object, Map<string, number>>();
/** Per provider and model: the tokens of an empty request (what every request costs anyway). */
const emptyCost = new Map<string, number>();

/**
 * toolman's count of the request's input tokens (exact where measured, else its estimate); null
 * if it cannot count. The tools are most of a request and the same round after round, so their
 * part is counted once per offer and the conversation each round (counts are sums of parts).
 */
async function estimateInput(client: ModelClient, request: ModelRequest): Promise<number | null> {
  try {
    const { countRequest } = await import('../tokens/count-request.js');
    const count = async (r: ModelRequest) => {
      const { stream: _stream, stream_options: _options, ...body } = client.countBody?.(r) ?? client.body(r);
      return (await countRequest(client.provider, body, client.model)).tokens;
    };
    const none = { ...request.tools, payload: {} };
    const key = `${client.provider}\u0000${client.model}`;
    let byModel = toolsOnlyCost.get(request.tools);
    if (!byModel) toolsOnlyCost.set(request.tools, (byModel = new Map()));
    let tools = byModel.get(key);
    if (tools === undefined) byModel.set(key, (tools = await count({ ...request, system: '', messages: [] })));
    let empty = emptyCost.get(key);
    if (empty === undefined) emptyCost.set(key, (empty = await count({ ...request, tools: none, system: '', messages: [] })));
    return tools + (await count({ ...request, tools: none })) - empty;
  } catch {
    return null;
  }
}
