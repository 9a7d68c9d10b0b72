import type { CallEvent, ToolResponse } from '../execute/types.js';
import type { ModelUsage } from '../providers/model-client.js';
import type { ProviderName } from '../providers/types.js';

/** Why a turn ended. */
export type StopReason = 'done' | 'max_rounds' | 'took_control' | 'repeats' | 'error' | 'cancelled';

/**
 * What happens in a turn, in order, as data: the REPL draws it, the one-shot mode prints it, the
 * test runner checks it, the transcript keeps it. Executor events (tool status, approvals,
 * progress) come through as they are, with the round they belong to.
 */
export type LoopEvent =
  | { type: 'turn_start'; turn: number; text: string }
  | { type: 'round_start'; round: number }
  /** A request was sent: what was offered, and how the tool choice stood. */
  | { type: 'request'; round: number; provider: ProviderName; model: string; tools: string[]; tool_choice: unknown; stream: boolean }
  | { type: 'text'; round: number; delta: string }
  | { type: 'tool_calls'; round: number; calls: { id: string; name: string; arguments: unknown }[] }
  | (CallEvent & { round: number })
  | { type: 'tool_result'; round: number; response: ToolResponse }
  /** The API's own count for the request, next to toolman's estimate of it. */
  | { type: 'usage'; round: number; usage: ModelUsage | null; estimated_input: number | null }
  /** Deferred tools that became callable (found by tool_search, or by the provider's own search). */
  | { type: 'search'; round: number; activated: string[] }
  | { type: 'retry'; round: number; attempt: number; status?: number; wait_ms: number; reason: string }
  | { type: 'warning'; message: string }
  | { type: 'round_end'; round: number }
  | { type: 'error'; kind: string; message: string; hint?: string }
  | { type: 'done'; stop: StopReason; answer: string; rounds: number; message?: string };

/** One tool call of a turn, as the one-shot JSON reports it. */
export interface TurnCall {
  round: number;
  id: string;
  name: string;
  arguments: unknown;
  ok: boolean;
  content: string;
  error: string | null;
  approval: 'approved' | 'declined' | null;
}

export interface TurnUsage {
  input: number;
  output: number;
  cached: number;
  estimated_input: number;
}

/** A finished turn. */
export interface TurnSummary {
  answer: string;
  stop: StopReason;
  rounds: number;
  calls: TurnCall[];
  usage: TurnUsage;
  message?: string;
}
