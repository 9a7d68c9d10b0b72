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
  attempts: number;
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

/** A call's progress, for displays (the REPL's spinner, `call`'s log). */
export type CallEvent =
  | { type: 'queued'; id: string; name: string }
  | { type: 'awaiting_approval'; id: string; name: string; arguments: unknown }
  | { type: 'running'; id: string; name: string }
  | { type: 'progress'; id: string; name: string; message: string }
  | { type: 'done'; id: string; name: string; duration_ms: number }
  | { type: 'error'; id: string; name: string; duration_ms: number; error: string }
  | { type: 'cancelled'; id: string; name: string; duration_ms: number };

/** Asked before a destructive (or confirm: always) tool runs; answered by whichever driver runs. */
export interface ApprovalRequest {
  callId: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  reason: string;
}

/** What a handler gets besides the arguments. */
export interface HandlerContext {
  tool: Tool;
  /** The catalog file's folder: relative paths in handlers resolve from here. */
  baseDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  progress(message: string): void;
  /** Per-session storage shared by a tool's calls. */
  scratch: Map<string, unknown>;
}

/** A handler's result: any JSON value or text; throwing means the tool failed. */
export type HandlerResult = unknown;
