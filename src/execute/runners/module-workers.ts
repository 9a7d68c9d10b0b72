import type { RunContext, YieldStream } from '../runner.js';
import { ModuleWorkerEnded } from './module-errors.js';
import type { CallTarget } from './module-worker-protocol.js';
import { moduleUrl } from './module-url.js';
import { ModuleWorker, type StatefulCall, type WorkerCall } from './module-worker.js';

/** Which code a worker runs: a module handler's file, or a plugin's entry file. */
export interface WorkerSource {
  /** Absolute path of the file the worker imports (one worker per file). */
  file: string;
  /** How messages name it: `module ./handlers/x.mjs`, `plugin ./plugins/kv`. */
  label: string;
}

/**
 * The worker threads of one runner (module handlers, or plugins): one per file, started on its
 * first call (so module-level state lasts across calls) and replaced after the code crashes it.
 * Direct calls that were bystanders of another call's crash run once more; a stateful call
 * never does (what it yielded was read already), it fails instead.
 */
export class ModuleWorkers {
  private readonly workers = new Map<string, ModuleWorker>();
  private readonly urls = new Map<string, Promise<string>>();
  /** Host scratch stores by identity → the id their worker-side copies go by. */
  private readonly scratchIds = new WeakMap<Map<string, unknown>, number>();
  private readonly scratchGone = new FinalizationRegistry<number>((id) => {
    for (const worker of this.workers.values()) worker.forgetScratch(id);
  });
  private nextScratchId = 0;
  private closed = false;

  constructor(
    /** How messages name the owner: `module runner`, `plugin runner`. */
    private readonly owner: string,
    /** Gets what the code prints (to its console or standard output): never toolman's own stdout, which may carry JSON or a protocol. */
    private readonly output: (text: string) => void,
  ) {}

  /** Runs one call on the file's worker; a bystander of another call's crash runs once more. */
  async run(source: WorkerSource, target: CallTarget, args: Record<string, unknown>, context: RunContext): Promise<unknown> {
    const url = await this.urlOf(source.file);
    const worker = await this.readyWorker(source, url, context.signal);
    const call = this.call(target, args, context, false);
    try {
      return await worker.run(call);
    } catch (error) {
      // Another call in the same file ended the worker (it exited, or threw outside its result):
      // this one is run once more, on a fresh worker, so only the call that did it fails. When no
      // call could be blamed, each is run again on a worker of its own, so the guilty one cannot
      // take the others down a second time.
      if (!(error instanceof ModuleWorkerEnded) || !error.bystander || context.signal.aborted || this.closed) throw error;
      if (error.bystander === 'other') return this.workerFor(source, url).run(call);
      const alone = new ModuleWorker(source.label, url, this.output, () => undefined);
      try {
        return await alone.run(call);
      } finally {
        void alone.stop('its one call is over');
      }
    }
  }

  /**
   * A stateful call: its generator runs in the file's worker, one step per `next()`. Nothing
   * starts before the first `next()`; `stop()` (or `context.signal`) cancels it, returning the
   * generator so its finally blocks run (a worker that does not settle within the grace is stopped).
   */
  stream(source: WorkerSource, target: CallTarget, args: Record<string, unknown>, context: RunContext): YieldStream {
    const controller = new AbortController();
    const onAbort = () => controller.abort(context.signal.reason);
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
    let worker: ModuleWorker | undefined;
    return new WorkerYieldStream(
      async (onYield) => {
        const url = await this.urlOf(source.file);
        worker = await this.readyWorker(source, url, controller.signal);
        return worker.start({ ...this.call(target, args, { ...context, signal: controller.signal }, true), onYield });
      },
      async () => {
        controller.abort(new Error('the job was stopped'));
        context.signal.removeEventListener('abort', onAbort);
        // The generator's finally blocks run in the worker: wait until it settled (or was stopped).
        await worker?.cancelsSettled();
      },
    );
  }

  /**
   * What the file exports as a plugin (kinds and their config schemas, as JSON), from its
   * worker: its code runs there, never in toolman's thread. Gives up after `timeoutMs`.
   */
  async describe(source: WorkerSource, timeoutMs: number): Promise<unknown> {
    const url = await this.urlOf(source.file);
    const signal = AbortSignal.timeout(timeoutMs);
    const worker = await this.readyWorker(source, url, signal);
    return worker.run({ request: { target: { describe: true }, args: {}, scratchId: 0, cwd: '', tool: '', stateful: false }, signal, progress: () => undefined, name: 'describe' });
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.close(`toolman closed its ${this.owner}`)));
  }

  private call(target: CallTarget, args: Record<string, unknown>, context: RunContext, stateful: boolean): WorkerCall {
    return {
      request: { target, args, scratchId: this.scratchId(context.scratch), cwd: context.cwd, tool: context.tool.name, stateful },
      signal: context.signal,
      progress: (message: string) => context.progress(message),
      name: `${context.callId} (${context.tool.name})`,
    };
  }

  /** The file's worker; after a cancel it may be blocked: wait (at most the grace) until it answered or was replaced. */
  private async readyWorker(source: WorkerSource, url: string, signal: AbortSignal): Promise<ModuleWorker> {
    let worker = this.workerFor(source, url);
    while (worker.mayBeBlocked && !signal.aborted) {
      await worker.cancelsSettled();
      worker = this.workerFor(source, url);
    }
    return worker;
  }

  /** Compiled once per file; a failure (missing file, compile error) is retried on the next call. */
  private urlOf(file: string): Promise<string> {
    let url = this.urls.get(file);
    if (!url) {
      url = moduleUrl(file);
      this.urls.set(file, url);
      url.catch(() => this.urls.delete(file));
    }
    return url;
  }

  private workerFor(source: WorkerSource, url: string): ModuleWorker {
    if (this.closed) throw new ModuleWorkerEnded(`the ${this.owner} was closed`);
    const { file } = source;
    let worker = this.workers.get(file);
    if (!worker) {
      worker = new ModuleWorker(source.label, url, this.output, (ended) => {
        if (this.workers.get(file) === ended) this.workers.delete(file);
      });
      this.workers.set(file, worker);
    }
    return worker;
  }

  private scratchId(scratch: Map<string, unknown>): number {
    let id = this.scratchIds.get(scratch);
    if (id === undefined) {
      id = ++this.nextScratchId;
      this.scratchIds.set(scratch, id);
      this.scratchGone.register(scratch, id);
    }
    return id;
  }
}

/** A worker's stateful call read as an async iterator: one step asked for per `next()`. */
class WorkerYieldStream implements YieldStream {
  private call: Promise<StatefulCall> | undefined;
  private waiting: { resolve(result: IteratorResult<unknown, unknown>): void; reject(error: unknown): void } | undefined;
  private end: { done: true; value: unknown } | { failed: unknown } | undefined;

  constructor(
    private readonly open: (onYield: (value: unknown) => void) => Promise<StatefulCall>,
    private readonly cancel: () => Promise<void>,
  ) {}

  async next(send?: unknown): Promise<IteratorResult<unknown, unknown>> {
    this.call ??= this.open((value) => this.answer({ done: false, value })).then((call) => {
      // Listened to once, not per step: a job may yield thousands of times.
      call.result.then(
        (value) => this.finish({ done: true, value }),
        (error: unknown) => this.finish({ failed: error }),
      );
      return call;
    });
    const call = await this.call;
    if (this.end) return 'failed' in this.end ? Promise.reject(this.end.failed) : this.end;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      call.next(send === undefined ? undefined : JSON.stringify(send));
    });
  }

  async stop(): Promise<void> {
    await this.cancel();
  }

  private answer(result: IteratorResult<unknown, unknown>): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(result);
  }

  private finish(end: { done: true; value: unknown } | { failed: unknown }): void {
    this.end = end;
    const waiting = this.waiting;
    this.waiting = undefined;
    if ('failed' in end) waiting?.reject(end.failed);
    else waiting?.resolve(end);
  }
}
