import { Worker } from 'node:worker_threads';
import { ModuleCallError, ModuleWorkerEnded } from './module-errors.js';
import { isFromWorker, type CallMessage, type FromWorker, type ToWorker } from './module-worker-protocol.js';
import { MODULE_WORKER_URL } from './module-worker-script.js';

/** How long a cancelled call may take to settle before its worker is presumed blocked and stopped. */
export const CANCEL_GRACE_MS = 100;

/** How long a closing worker waits for its plugin runners' close() before it is stopped. */
export const CLOSE_GRACE_MS = 1000;

/** One call, as the host side of a worker sees it. */
export interface WorkerCall {
  request: Omit<CallMessage, 'type' | 'id'>;
  /** Aborting it cancels the call: the promise rejects with its reason at once. */
  signal: AbortSignal;
  progress(message: string): void;
  /** How messages about other calls name this one ("c1 (spins)"). */
  name: string;
  /** A stateful call's yields, each once the host asked for it (`StatefulCall.next`). */
  onYield?(value: unknown): void;
}

/** A stateful call in flight: `result` settles with the generator's return value (or its failure). */
export interface StatefulCall {
  result: Promise<unknown>;
  /** Asks for the generator's next step; `json` is the value its `yield` evaluates to. */
  next(json?: string): void;
}

interface InFlight {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  progress(message: string): void;
  onYield?(value: unknown): void;
  /** Stops listening to the call's signal and clears its grace timer. */
  release(): void;
}

/**
 * One worker thread running one module file's functions, for as long as that thread lives. Calls
 * may run concurrently in it. Whatever ends the thread (the module throwing outside a call,
 * exiting its thread, a cancelled call that does not settle in time, `stop()`) fails the calls
 * in flight with a `ModuleWorkerEnded`, which says whether the call was a bystander (another
 * call's code ended the thread: the worker script tells which, through AsyncLocalStorage), and
 * tells the owner through `onEnd`, which starts a new worker for later calls. The thread keeps
 * toolman alive only while calls are in flight.
 */
export class ModuleWorker {
  private readonly thread: Worker;
  private readonly inFlight = new Map<number, InFlight>();
  /** Calls cancelled but not settled yet: until they settle, the thread may be blocked. */
  private readonly cancelled = new Set<number>();
  private whenCancelsSettle: { promise: Promise<void>; resolve(): void } | undefined;
  private nextId = 0;
  private readonly printed: LineBuffer;
  /** Set once the worker has ended: resolves when its thread has stopped. */
  private stopped: Promise<void> | undefined;

  constructor(
    /** How messages name the module: "module ./handlers/x.mjs". */
    private readonly label: string,
    moduleUrl: string,
    output: (text: string) => void,
    private readonly onEnd: (worker: ModuleWorker) => void,
  ) {
    this.thread = new Worker(MODULE_WORKER_URL, { workerData: { moduleUrl, label } });
    this.printed = new LineBuffer(output);
    this.thread.unref();
    this.thread.on('message', (message: unknown) => {
      if (isFromWorker(message)) this.receive(message);
    });
    // Errors the worker's own handlers did not catch (a module that removed them, running out of memory).
    this.thread.on('error', (error) => this.end(`${label} threw outside the call: ${describe(error)}`, 'unknown'));
    // Not preceded by an error, `exiting` or stop(): the module ended its thread in a way the worker could not see.
    this.thread.on('exit', (code) => this.end(`${label} exited with code ${code}`, 'unknown'));
  }

  get ended(): boolean {
    return this.stopped !== undefined;
  }

  /** True while a cancelled call has not settled: the thread may be blocked, so new calls wait. */
  get mayBeBlocked(): boolean {
    return this.cancelled.size > 0 && !this.ended;
  }

  /** Resolves once no cancelled call is pending: they settled, or the worker was stopped. */
  cancelsSettled(): Promise<void> {
    if (!this.mayBeBlocked) return Promise.resolve();
    if (!this.whenCancelsSettle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.whenCancelsSettle = { promise, resolve };
    }
    return this.whenCancelsSettle.promise;
  }

  run(call: WorkerCall): Promise<unknown> {
    return this.begin(call).result;
  }

  /**
   * A stateful call (`request.stateful`): its generator advances one step per `next()`, each
   * answered through `call.onYield`, or by `result` settling when it ends.
   */
  start(call: WorkerCall): StatefulCall {
    const { id, result } = this.begin(call);
    return {
      result,
      next: (json) => {
        if (!this.ended && this.inFlight.has(id) && !this.cancelled.has(id)) this.post(json === undefined ? { type: 'next', id } : { type: 'next', id, json });
      },
    };
  }

  private begin(call: WorkerCall): { id: number; result: Promise<unknown> } {
    const { signal } = call;
    const id = ++this.nextId;
    if (signal.aborted) return { id, result: Promise.reject(signal.reason) };
    if (this.ended) return { id, result: Promise.reject(new ModuleWorkerEnded(`${this.label}'s worker has ended`)) };
    const result = new Promise((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const onAbort = () => {
        reject(signal.reason);
        this.cancelled.add(id);
        this.post({ type: 'cancel', id });
        // A cooperative function settles quickly; one that does not is presumed to block its thread.
        grace = setTimeout(() => this.end(`${this.label} was stopped: its worker did not respond within ${CANCEL_GRACE_MS} ms after call ${call.name} was cancelled`, id), CANCEL_GRACE_MS);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.inFlight.set(id, {
        resolve,
        reject,
        progress: call.progress,
        ...(call.onYield ? { onYield: call.onYield } : {}),
        release: () => {
          signal.removeEventListener('abort', onAbort);
          clearTimeout(grace);
        },
      });
      // toolman waits for this call: the thread must keep the process alive until it settles.
      if (this.inFlight.size === 1) this.thread.ref();
      try {
        this.post({ type: 'call', id, ...call.request });
      } catch (error) {
        this.settle(id)?.reject(new ModuleCallError(`cannot send the call to ${this.label}: ${describe(error)}`));
      }
    });
    return { id, result };
  }

  /** The session that owned this scratch store is gone. */
  forgetScratch(scratchId: number): void {
    if (!this.ended) this.post({ type: 'forget', scratchId });
  }

  /** Ends the worker, failing its calls in flight; resolves once the thread has stopped. */
  stop(why: string): Promise<void> {
    this.end(`${this.label} was stopped: ${why}`, 'all');
    return this.stopped!;
  }

  /**
   * Lets the plugin runners created in the worker close what they opened (at most
   * `CLOSE_GRACE_MS`), then stops it. A module handler's worker has none: it answers at once.
   */
  async close(why: string): Promise<void> {
    if (!this.ended) {
      const closed = new Promise<void>((resolve) => (this.whenClosed = resolve));
      const timer = setTimeout(() => this.whenClosed?.(), CLOSE_GRACE_MS);
      try {
        this.post({ type: 'close' });
        await closed;
      } catch {
        // a worker that cannot take the message is stopped as it is
      } finally {
        clearTimeout(timer);
      }
    }
    await this.stop(why);
  }

  private whenClosed: (() => void) | undefined;

  private post(message: ToWorker): void {
    this.thread.postMessage(message);
  }

  private receive(message: FromWorker): void {
    switch (message.type) {
      case 'crashed':
        this.end(`${this.label} threw outside the call${message.how === 'rejected' ? ' (a promise rejection nobody handled)' : ''}: ${message.message}`, message.id ?? 'unknown');
        return;
      case 'exiting':
        this.end(`${this.label} exited with code ${message.code}`, message.id ?? 'unknown');
        return;
      case 'progress':
        this.inFlight.get(message.id)?.progress(message.message);
        return;
      case 'yield': {
        // A yield after a cancel belongs to a job already stopped: nobody reads it.
        const call = this.cancelled.has(message.id) ? undefined : this.inFlight.get(message.id);
        if (!call?.onYield) return;
        let value: unknown;
        try {
          value = JSON.parse(message.json);
        } catch {
          this.settle(message.id)?.reject(new ModuleCallError(`${this.label} sent a yield that is not JSON`));
          return;
        }
        call.onYield(value);
        return;
      }
      case 'closed':
        this.whenClosed?.();
        return;
      case 'output':
        this.printed.add(message.text);
        return;
      case 'failed':
        this.settle(message.id)?.reject(new ModuleCallError(message.message));
        return;
      case 'done': {
        const call = this.settle(message.id);
        if (!call) return;
        try {
          call.resolve(JSON.parse(message.json));
        } catch {
          call.reject(new ModuleCallError(`${this.label} sent a result that is not JSON`));
        }
      }
    }
  }

  /** Takes a call out of flight; an idle worker no longer keeps toolman alive. */
  private settle(id: number): InFlight | undefined {
    const call = this.inFlight.get(id);
    if (!call) return undefined;
    this.inFlight.delete(id);
    call.release();
    if (this.cancelled.delete(id) && this.cancelled.size === 0) this.wakeWaiters();
    if (this.inFlight.size === 0 && !this.ended) {
      this.thread.unref();
      this.printed.flush(); // nothing else is printing: a last line without its newline is complete
    }
    return call;
  }

  /**
   * Ends the worker and fails its calls in flight. `culprit` is the call whose code ended it, when
   * known: the others are bystanders, told so (`ModuleWorkerEnded.bystander`) so the runner can run
   * them again on a fresh worker. `unknown`: nobody can be blamed, so with one call in flight it is
   * that call's, and with several each is an `unknown` bystander. `all`: toolman stopped the worker.
   */
  private end(reason: string, culprit: number | 'unknown' | 'all'): void {
    if (this.stopped) return;
    this.printed.flush();
    this.stopped = this.thread.terminate().then(
      () => undefined,
      () => undefined,
    );
    const calls = [...this.inFlight];
    this.inFlight.clear();
    for (const [id, call] of calls) {
      const guilty = culprit === 'all' || culprit === id || (culprit === 'unknown' && calls.length === 1);
      call.release();
      call.reject(new ModuleWorkerEnded(reason, guilty ? undefined : culprit === 'unknown' ? 'unknown' : 'other'));
    }
    this.cancelled.clear();
    this.onEnd(this);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    this.whenCancelsSettle?.resolve();
    this.whenCancelsSettle = undefined;
  }
}

function describe(value: unknown): string {
  try {
    return value instanceof Error ? value.message : String(value);
  } catch {
    return 'a value that cannot be shown';
  }
}

/** The most of one line held back waiting for its end. */
const MAX_PENDING_LINE = 64 * 1024;

/**
 * Passes on what a module prints, whole lines at a time: redaction downstream must see a secret
 * in one piece, not cut between two writes.
 */
class LineBuffer {
  private pending = '';

  constructor(private readonly output: (text: string) => void) {}

  add(text: string): void {
    this.pending += text;
    const end = this.pending.lastIndexOf('\n');
    if (end >= 0) {
      this.output(this.pending.slice(0, end + 1));
      this.pending = this.pending.slice(end + 1);
    }
    if (this.pending.length > MAX_PENDING_LINE) this.flush();
  }

  flush(): void {
    if (this.pending) this.output(`${this.pending}\n`);
    this.pending = '';
  }
}
