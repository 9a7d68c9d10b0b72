import type { CallEvent, CallRecord, ErrorKind, EvaluationVerdict, SideUsage, ToolResponse } from '../execute/types.js';
import type { ModelUsage } from '../providers/model-client.js';
import type { ProviderName } from '../providers/types.js';
import type { ToolChoice } from '../select/tool-choice.js';
import type { TurnReference } from './turn-references.js';

export type { SideUsage, TurnReference };

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
  | { type: 'request'; round: number; provider: ProviderName; model: string; tools: string[]; tool_choice: ToolChoice; stream: boolean }
  | { type: 'text'; round: number; delta: string }
  /** The round's calls, each decoded once (catalog tool, parsed arguments, how it came). */
  | { type: 'tool_calls'; round: number; calls: CallRecord[] }
  | (CallEvent & { round: number })
  | { type: 'tool_result'; round: number; response: ToolResponse }
  /** The API's own count for the request, next to toolman's count of it (null when not counted: ChatLoopOptions.estimate). */
  | { type: 'usage'; round: number; usage: ModelUsage | null; estimated_input: number | null }
  /** Deferred tools that became callable (found by tool_search, or by the provider's own search). */
  | { type: 'search'; round: number; activated: string[] }
  | { type: 'retry'; round: number; attempt: number; status?: number; wait_ms: number; reason: string }
  | { type: 'warning'; message: string }
  | { type: 'round_end'; round: number }
  | { type: 'error'; kind: string; message: string; hint?: string }
  /** The verdicts of the checks the turn's tools list (`evaluation:`), once the answer is in (after its last round); only when there are any. */
  | { type: 'evaluations'; round: number; verdicts: EvaluationVerdict[] }
  /**
   * `took_control`: the tool whose result is the answer (stop took_control), else null.
   * `references`: the turn's numbered sources (what `[n]` in the answer points at), when it had any.
   * `usage`: the turn's tokens, side calls included (the summary's `usage`): `usage` events are per request of the conversation's own model only.
   */
  | { type: 'done'; stop: StopReason; answer: string; rounds: number; took_control: string | null; message?: string; references?: TurnReference[]; usage: SummaryUsage };

/** One tool call of a turn: its record and how it went (the one-shot JSON and the test runner read it). */
export interface TurnCall extends CallRecord {
  round: number;
  ok: boolean;
  /** Why it failed; a kind in REFUSED_KINDS means it was refused before it ran. */
  error_kind: ErrorKind | null;
  content: string;
  error: string | null;
  approval: 'approved' | 'declined' | null;
}

/** The tokens of the conversation's own requests in a turn, as its API reported them (`usage` events add up to it). */
export interface TurnUsage {
  input: number;
  output: number;
  cached: number;
  /** toolman's count of the requests it counted (ChatLoopOptions.estimate); null when it counted none. */
  estimated_input: number | null;
}

/**
 * A finished turn's tokens: `input`, `output` and `cached` count every request the turn made as
 * the APIs reported them, the side calls' included; `side` is their part, per provider and model;
 * `estimated_input` is toolman's count of the conversation's own requests (side calls it does not count).
 */
export interface SummaryUsage extends TurnUsage {
  side: SideUsage[];
}

/** A finished turn. */
export interface TurnSummary {
  answer: string;
  stop: StopReason;
  rounds: number;
  calls: TurnCall[];
  usage: SummaryUsage;
  /** The tool whose result is the answer when the turn stopped with took_control. */
  took_control: string | null;
  message?: string;
  /** The turn's sources, numbered as the model was given them (`[n]`). */
  references: TurnReference[];
  /** The verdicts of the checks its tools list (`evaluation:`). */
  evaluations: EvaluationVerdict[];
}

/** One event of a nested loop, with the agent and the parent's call it belongs to. */
export interface AgentLoopEvent {
  agent: string;
  /** The parent's call id: the section of the parent's transcript this event belongs to. */
  call_id: string;
  /** 1 for an agent the parent called, 2 for one that agent called... */
  depth: number;
  event: LoopEvent;
}
