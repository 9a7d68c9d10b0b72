import type { Tool } from '../catalog/types.js';

/** One call the model made. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * One call, decoded once (by the session) into the catalog's terms: everything downstream (the
 * executor, the loop's repeat guard and events, transcripts, the test runner) reads this record
 * and never decodes the provider's form again.
 */
export interface CallRecord {
  id: string;
  /** The name as called: the provider-safe name the model sent, an alias, or invoke_tool. */
  name: string;
  /**
   * The catalog tool (or meta-tool) the call stands for, by its catalog name: aliases, provider
   * renames and invoke_tool resolved. When no tool has the name, the name that was asked for.
   */
  tool: string;
  /** Parsed once, and decoded for the provider whose model made the call; text that is not JSON stays text. */
  arguments: unknown;
  /** How it came: named directly, or wrapped in invoke_tool. */
  via: 'direct' | 'invoke_tool';
  /** A meta-tool (tool_search, discover_tools, get_tool_schema, job tools): finding tools, not using one. */
  meta: boolean;
  /** Refused while decoding, before any rule of the turn (arguments nested too deep, a broken invoke_tool). */
  refused?: { kind: ErrorKind; message: string };
}

/** Kinds of failure that mean the call was refused before it ran: it was not a usable call of the tool. */
export const REFUSED_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['unknown_tool', 'not_available', 'invalid_arguments']);

/**
 * Kinds of failure that mean toolman did not run the call, by its own rules or the call's fault:
 * refused, past the turn's cap, or a take-control tool not called alone. (A declined call was a
 * good call the user said no to; a cancelled one was stopped by the user.)
 */
export const NOT_RUN_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([...REFUSED_KINDS, 'over_limit', 'must_run_alone']);

/** The answer to one call, in call order; tool failures are values, never throws. */
export interface ToolResponse {
  id: string;
  /** The name as called (the provider's name, an alias, or invoke_tool). */
  name: string;
  /** The catalog tool it ran as (see CallRecord.tool). */
  tool: string;
  ok: boolean;
  /** What the model gets back (the result, or the error text for the model). */
  content: string;
  error: string | null;
  /** Why it failed, for drivers and tests. */
  error_kind: ErrorKind | null;
  deduplicated: boolean;
  truncated: boolean;
  /** Estimated tokens before truncation, when truncated. */
  original_tokens: number | null;
  duration_ms: number;
  /** Set on a background call's immediate answer. */
  job_id?: string;
  /** The result was over its limit and a model summarised it (`truncation: summarize`); `original_tokens` says how long it was. */
  summarized?: true;
  /** Why a result over its limit was cut with smart truncation instead of summarised (no model reachable, an error). */
  summary_error?: string;
  /** The citable sources the tool's `references:` found in its result, cleaned and bounded; the loop numbers them per turn (`n`). */
  references?: Reference[];
  /** Verdicts of the tool's `evaluation` checks that look at its result (`on: result`), run on the whole result. */
  evaluations?: EvaluationVerdict[];
}

/** A citable source found in a result (`references:`): text from the tool, cleaned (no control or invisible characters) and bounded. */
export interface Reference {
  url: string;
  title?: string;
  snippet?: string;
  /** Its number in the turn (`[n]`), given by the loop; absent where no loop numbers them (`call`, `serve`). */
  n?: number;
}

/** How one evaluation check went: `error` means it could not be decided (no grading model, a result that is not JSON). */
export interface EvaluationVerdict {
  name: string;
  verdict: 'pass' | 'fail' | 'error';
  /** What was checked: the turn's answer, or one call's result. */
  on: 'answer' | 'result';
  /** The tools that listed the check and were used (for a result check, the one whose result it was). */
  tools: string[];
  /** The call whose result was checked (`on: result`). */
  call_id?: string;
  /** Why it failed or could not be decided (the grader's reason, the schema's complaint). */
  reason?: string;
}

/** A result over its limit, for `truncation: summarize`. */
export interface SummaryRequest {
  /** The catalog tool whose result it is. */
  tool: string;
  /** The result as the model would get it (secrets already redacted). */
  text: string;
  /** The most (estimated) tokens the summary may have. */
  maxTokens: number;
}

/**
 * Summarises results over their limit (`truncation: summarize`). The executor never talks to a
 * model: the conversation (or, for `call` and `serve`, the manager) supplies this, as it supplies
 * the approver. A failure is a value, and the executor then cuts the result with `smart`.
 */
export type Summariser = (request: SummaryRequest, signal: AbortSignal) => Promise<{ ok: true; text: string } | { ok: false; reason: string }>;

/**
 * The tokens of the model calls a turn made beside the conversation's own (a long result's
 * summary, a rubric's grade, a local sub-agent's loop), for one provider and model: what that
 * model's price applies to.
 */
export interface SideUsage {
  provider: string;
  model: string;
  /** Calls answered (one that failed before its answer reported nothing to count). */
  calls: number;
  input: number;
  output: number;
  cached: number;
  /** Calls whose answer carried no usage (a server that reports none): their tokens are in no count. */
  unreported: number;
}

export type ErrorKind =
  | 'unknown_tool'
  | 'not_available'
  | 'invalid_arguments'
  | 'over_limit'
  | 'must_run_alone'
  | 'declined'
  | 'timeout'
  | 'cancelled'
  | 'tool_error'
  /** The tool ran, but its result does not match its output schema (`output_schema`). */
  | 'invalid_output'
  | 'native_tool';

export interface TurnResult {
  responses: ToolResponse[];
  /** The take-control tool that ran alone this turn: its result goes to the user and the loop stops. */
  took_control: string | null;
}

/** A call's life, in order; it ends in done, error or cancelled. */
export type CallStatus = 'queued' | 'validating' | 'awaiting_approval' | 'running' | 'done' | 'error' | 'cancelled';

/** What the executor tells drivers while a turn runs (the REPL's panels, `call --verbose`, the loop's events). */
export type CallEvent =
  | { type: 'tool_status'; id: string; name: string; status: 'queued' | 'validating' | 'running' }
  | { type: 'tool_status'; id: string; name: string; status: 'awaiting_approval'; arguments: unknown; reason: string }
  | { type: 'tool_status'; id: string; name: string; status: 'done' | 'cancelled'; duration_ms: number }
  | { type: 'tool_status'; id: string; name: string; status: 'error'; duration_ms: number; error: string; error_kind: ErrorKind }
  | { type: 'tool_approval'; id: string; name: string; decision: ApprovalDecision }
  | { type: 'tool_progress'; id: string; name: string; message: string; progress?: number; total?: number };

/** Asked before a destructive (or confirm: always) tool runs; answered by whichever driver runs. */
export interface ApprovalRequest {
  callId: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  reason: string;
}

/** `always`: approve, and do not ask again for this tool in this session. */
export type ApprovalDecision = 'approve' | 'decline' | 'always';

/**
 * Answers approval requests. The turn's signal is passed so a driver can stop waiting for the
 * user when the turn is cancelled.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
