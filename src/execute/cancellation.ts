import { setMaxListeners } from 'node:events';
import { afterThisTurn } from '../shared/after-this-turn.js';

/**
 * A turn's (or a call's) cancellation inside the executor: a flag, a reason and listeners, with an
 * `AbortSignal` made only when something outside the executor needs one (a runner's context, an
 * approval question, a summary, a stateful job's first answer). On Node 20 every signal costs a
 * few µs and about a kilobyte (it is made transferable), and its listeners go through EventTarget:
 * for a call that needs none of that (a mock, an MCP server's tool, most calls `serve` runs) it
 * was a large part of what the executor cost (issue 24).
 */
export class Cancellation {
  /** Never cancelled: a turn without a signal. Listeners given to it are not kept. */
  static readonly NEVER = new Cancellation(true);

  private done = false;
  private why: unknown;
  private listeners: Set<() => void> | undefined;
  private controller: AbortController | undefined;

  private constructor(private readonly never = false) {}

  /**
   * Cancelled when any of `signals` aborts, with its reason; `unlink` takes the listeners off
   * them again (call it when the work is done: the signals may outlive it).
   */
  static linked(signals: readonly AbortSignal[], cancel = new Cancellation()): { cancel: Cancellation; unlink: () => void } {
    const links = signals.map((signal) => {
      const onAbort = () => cancel.abort(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      return () => signal.removeEventListener('abort', onAbort);
    });
    return {
      cancel,
      unlink: () => {
        for (const unlink of links) unlink();
      },
    };
  }

  /**
   * As `linked`, but listening to `signals` only from the next turn of the event loop (on for
   * calls that still run then, see shared/after-this-turn.ts); a signal aborted by then cancels at once
   * when linking starts, and one aborted already cancels now. For a turn's calls, not for waits
   * that always outlast a turn (those use `linked`).
   */
  static linkedLater(signals: readonly AbortSignal[]): { cancel: Cancellation; unlink: () => void } {
    const cancel = new Cancellation();
    for (const signal of signals) {
      if (!signal.aborted) continue;
      cancel.abort(signal.reason);
      return { cancel, unlink: noop };
    }
    let ended = false;
    let unlink = noop;
    afterThisTurn(() => {
      if (!ended) unlink = Cancellation.linked(signals, cancel).unlink;
    });
    return {
      cancel,
      unlink: () => {
        ended = true;
        unlink();
      },
    };
  }

  get aborted(): boolean {
    return this.done;
  }

  get reason(): unknown {
    return this.why;
  }

  /** An AbortSignal that aborts with this, made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // A turn of many calls hands it to as many listeners (each call's question, each stateful job).
      setMaxListeners(0, this.controller.signal);
      if (this.done) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  /** Calls `listener` once, when cancelled; returns what removes it. Not called when already cancelled: check `aborted` first. */
  onAbort(listener: () => void): () => void {
    if (this.never || this.done) return noop;
    (this.listeners ??= new Set()).add(listener);
    return () => void this.listeners?.delete(listener);
  }

  abort(reason: unknown): void {
    if (this.never || this.done) return;
    this.done = true;
    this.why = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    this.controller?.abort(reason);
    if (listeners) for (const listener of listeners) listener();
  }
}

function noop(): void {}
