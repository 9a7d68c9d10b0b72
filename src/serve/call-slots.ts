/** The limits `toolman serve` keeps on what clients can make it do at once (all settable from the command line). */
export interface ServeLimits {
  /** Calls running at once for one client session; more wait their turn. */
  maxCallsPerSession: number;
  /** Calls running at once over every session together. */
  maxCalls: number;
  /** HTTP sessions kept; at the limit a new client closes the session idle longest, never one with a call in flight. */
  maxSessions: number;
  /** How long an HTTP client may take to send a whole request (headers and body). */
  bodyTimeoutMs: number;
  /** An HTTP session with no request and no call in flight for this long is closed. */
  idleTimeoutMs: number;
}

export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  maxCallsPerSession: 8,
  maxCalls: 32,
  maxSessions: 64,
  bodyTimeoutMs: 30_000,
  idleTimeoutMs: 30 * 60_000,
};

/** How many calls may wait for a slot, per slot: past that a call is refused at once, not queued without end. */
const WAITING_PER_SLOT = 4;

/** Too many calls are running and waiting: refused, with a message for the client. */
export class SlotsFull extends Error {}

/**
 * A counting semaphore for calls: `acquire` resolves with a release once fewer than `limit` hold
 * a slot, in arrival order; a waiting call leaves the queue when any of its signals aborts; past
 * `limit * 4` waiting, `acquire` throws `SlotsFull` at once.
 */
export class CallSlots {
  private held = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(
    readonly limit: number,
    private readonly what: string,
  ) {}

  get busy(): boolean {
    return this.held > 0 || this.waiting.length > 0;
  }

  /** A slot now, when one is free and nobody waits for one (its release), or undefined. */
  take(): (() => void) | undefined {
    if (this.held >= this.limit || this.waiting.length > 0) return undefined;
    this.held++;
    return this.releaser();
  }

  acquire(signal: AbortSignal | readonly AbortSignal[]): Promise<() => void> {
    const signals: readonly AbortSignal[] = Array.isArray(signal) ? signal : [signal as AbortSignal];
    const aborted = signals.find((s) => s.aborted);
    if (aborted) return Promise.reject(aborted.reason);
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.limit * WAITING_PER_SLOT) {
      return Promise.reject(new SlotsFull(`toolman serve is busy: ${this.held} calls are running ${this.what} (the most it runs at once) and ${this.waiting.length} more are waiting; try again when one has finished`));
    }
    return new Promise((resolve, reject) => {
      const listeners = signals.map((s) => [s, () => entry.onAbort(s.reason)] as const);
      const unlisten = () => {
        for (const [s, listener] of listeners) s.removeEventListener('abort', listener);
      };
      const entry = {
        grant: () => {
          unlisten();
          resolve(this.releaser());
        },
        onAbort: (reason: unknown) => {
          unlisten();
          const at = this.waiting.indexOf(entry);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(reason);
        },
      };
      for (const [s, listener] of listeners) s.addEventListener('abort', listener, { once: true });
      this.waiting.push(entry);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so the count never dips and lets a newcomer jump the queue.
      if (next) next.grant();
      else this.held--;
    };
  }
}
