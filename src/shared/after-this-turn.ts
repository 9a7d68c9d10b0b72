/**
 * Work for calls still running once the event loop has turned: one `setImmediate` for all the
 * work queued in a turn, run in queue order. The executor arms a call's timeout and links its
 * turn to the driver's signals this way (src/execute/executor.ts), and `serve` starts the SSE
 * answer of a 2025-11-25 request that runs on (src/serve/session-transport.ts). Most calls `serve` and scripts
 * run (a mock, a cached answer, a quick in-process tool) end within the turn they started in, and
 * for them a timer and listeners on two AbortSignals, made and taken down again, were a third of
 * the executor's CPU per call (in process, 2026-11-24, issue 24). Nothing is lost for a call that
 * runs on: whatever would cancel it (a client's cancellation, a closed connection, a stopped
 * server, a timer) is an event of a later turn, and the work queued here looks at what happened
 * meanwhile (a signal already aborted is followed at once) before it starts listening.
 */
let queued: (() => void)[] = [];

/**
 * A loop that runs many calls without letting the event loop turn (in process, awaiting calls
 * that are done already) would keep every call's work here until it does: past this many, what is
 * queued runs at once. Work for a call that has ended does nothing; a call still running is armed
 * then, as it was before this queue existed.
 */
export const MOST_QUEUED = 256;

export function afterThisTurn(work: () => void): void {
  if (queued.length === 0) setImmediate(runQueued);
  queued.push(work);
  if (queued.length >= MOST_QUEUED) runQueued();
}

function runQueued(): void {
  const batch = queued;
  queued = [];
  for (const work of batch) {
    try {
      work();
    } catch {
      // one call's failure must not keep the others from being armed
    }
  }
}
