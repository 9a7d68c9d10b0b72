import type { Approver, CallEvent, ToolResponse } from '../execute/types.js';
import type { Tool } from '../catalog/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { SlotsFull, type CallSlots } from './call-slots.js';

export interface CallRun {
  session: ToolSession;
  /** The tool the call names, already found reachable for this client. */
  tool: Tool;
  arguments: unknown;
  /** The call's id for the executor and its events: the JSON-RPC request id. */
  id: string;
  /** The request's cancellation. */
  signal: AbortSignal;
  /** The server shutting down: ends the call too. Kept apart from `signal` (joining them per call costs more than the rest of serve's work, issue 24). */
  stop: AbortSignal;
  approve: Approver;
  progressToken?: string | number;
  /** Sends a notification related to the call's request (on its stream over HTTP). */
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
  /** A slot of the client's (its session's or principal's) and one of the server's: a call waits for both. */
  slots?: { session: CallSlots; total: CallSlots };
  log(line: string): void;
  verbose: boolean;
}

export type CallRunResult = { ran: true; response: ToolResponse } | { ran: false; busy: string };

/**
 * One `tools/call` through the session's executor, the same in both eras: a slot of the client's
 * and one of the server's first (a client cannot make toolman run more at once than it was told
 * to, whatever it sends), the tool's progress to the client when it asked for it, and every
 * progress notice written before the result (a client that drops progress once the result is in
 * would lose the last ones).
 */
export async function runCall(run: CallRun): Promise<CallRunResult> {
  // Two releases, not a list of them: this runs for every call (issue 24, garbage per call).
  let releaseSession: (() => void) | undefined;
  let releaseTotal: (() => void) | undefined;
  try {
    if (run.slots) {
      try {
        // A free slot is taken at once (no promise to wait on); only a full server queues.
        const live = !run.signal.aborted && !run.stop.aborted;
        releaseSession = (live ? run.slots.session.take() : undefined) ?? (await run.slots.session.acquire([run.signal, run.stop]));
        releaseTotal = (live ? run.slots.total.take() : undefined) ?? (await run.slots.total.acquire([run.signal, run.stop]));
      } catch (error) {
        if (error instanceof SlotsFull) {
          run.log(error.message);
          return { ran: false, busy: error.message };
        }
        throw error;
      }
    }
    const sent: Promise<unknown>[] | undefined = run.progressToken !== undefined || run.verbose ? [] : undefined;
    const turn = await run.session.runTurn([{ id: run.id, name: run.tool.name, arguments: run.arguments ?? {} }], {
      signal: [run.signal, run.stop],
      approve: run.approve,
      ...(sent ? { onEvent: onEvent(run, sent) } : {}),
    });
    if (sent?.length) await Promise.all(sent);
    const response = turn.responses[0]!;
    if (run.verbose) run.log(response.ok ? `✓ ${run.tool.name} ${response.duration_ms} ms${response.truncated ? ' (truncated)' : ''}` : `✗ ${run.tool.name} (${response.error_kind}): ${response.error}`);
    return { ran: true, response };
  } finally {
    releaseTotal?.();
    releaseSession?.();
  }
}

/** The executor's events: progress to the client when it asked for it, status to the log with --verbose. */
function onEvent(run: CallRun, sent: Promise<unknown>[]): (event: CallEvent) => void {
  const { progressToken } = run;
  let step = 0;
  return (event) => {
    if (event.type === 'tool_progress' && progressToken !== undefined) {
      // The spec wants progress to increase with every notification, with or without a total.
      step = Math.max(step + 1, event.progress ?? 0);
      sent.push(run.notify({ method: 'notifications/progress', params: { progressToken, progress: step, ...(event.total !== undefined ? { total: event.total } : {}), message: event.message } }).catch(() => undefined));
    }
    if (run.verbose && event.type === 'tool_status' && (event.status === 'running' || event.status === 'awaiting_approval' || event.status === 'cancelled')) {
      run.log(`${event.status === 'running' ? '→' : '·'} ${event.name} ${event.status.replace('_', ' ')} [${event.id}]`);
    }
  };
}

/** The answer to a call that found no free slot: a tool error the client can show, never a queue without end. */
export function busyResult(message: string) {
  return { isError: true, content: [{ type: 'text' as const, text: message }], _meta: { 'toolman/error_kind': 'busy' } };
}
