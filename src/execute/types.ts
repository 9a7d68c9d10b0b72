import type { Tool } from '../catalog/types.js';

/** One call the model made. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** The answer to one call, in call order; tool failures are values, never throws. */
export interface ToolResponse {
  id: string;
  /** The name the model called (for invoke_tool, invoke_tool). */
  name: string;
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
