import type { Handler } from '../../catalog/types.js';
import type { RunContext, ToolRunner } from '../runner.js';
import { ModuleWorkerEnded } from './module-errors.js';
import { moduleUrl } from './module-url.js';
import { ModuleWorker } from './module-worker.js';

/** What a module handler's function gets as its second argument, inside its worker thread. */
export interface ModuleContext {
  cwd: string;
  /** Aborted when toolman cancels the call (timeout, Ctrl-C). */
  signal: AbortSignal;
  progress(message: string): void;
  /** Per session and tool; lives in the worker, so it is lost if the worker is replaced. */
  scratch: Map<string, unknown>;
  tool: string;
}

/** Runs module handlers; `close()` stops their workers. */
export interface ModuleRunner extends ToolRunner<'module'> {
  close(): Promise<void>;
}

/**
 * A module runner with one worker thread per module file (so module-level state lasts across
 * calls), started on the first call and replaced after the module crashes it. A runner registry
 * owns one and closes it.
 */
export function createModuleRunner(options: { output?: (text: string) => void } = {}): ModuleRunner {
  return new WorkerModuleRunner(options.output ?? (() => undefined));
}

type ModuleHandler = Extract<Handler, { kind: 'module' }>;

class WorkerModuleRunner implements ModuleRunner {
  readonly kind = 'module' as const;
  private readonly workers = new Map<string, ModuleWorker>();
  private readonly urls = new Map<string, Promise<string>>();
  /** Host scratch stores by identity → the id their worker-side copies go by. */
  private readonly scratchIds = new WeakMap<Map<string, unknown>, number>();
  private readonly scratchGone = new FinalizationRegistry<number>((id) => {
    for (const worker of this.workers.values()) worker.forgetScratch(id);
  });
  private nextScratchId = 0;
  private closed = false;

  /** `output` gets what modules print (to its console or standard output): never toolman's own stdout, which may carry JSON or a protocol. */
  constructor(private readonly output: (text: string) => void) {}

  async run(handler: ModuleHandler, args: Record<string, unknown>, context: RunContext): Promise<unknown> {
    const url = await this.urlOf(handler.file);
    let worker = this.workerFor(handler, url);
    // After a cancel the worker may be blocked: wait (at most the grace) until it answered or was replaced.
    while (worker.mayBeBlocked && !context.signal.aborted) {
      await worker.cancelsSettled();
      worker = this.workerFor(handler, url);
    }
    const call = {
      request: { exportName: handler.exportName, args, scratchId: this.scratchId(context.scratch), cwd: context.cwd, tool: context.tool.name },
      signal: context.signal,
      progress: (message: string) => context.progress(message),
      name: `${context.callId} (${context.tool.name})`,
    };
    try {
      return await worker.run(call);
    } catch (error) {
      // Another call in the same module ended the worker (it exited, or threw outside its result):
      // this one is run once more, on a fresh worker, so only the call that did it fails. When no
      // call could be blamed, each is run again on a worker of its own, so the guilty one cannot
      // take the others down a second time.
      if (!(error instanceof ModuleWorkerEnded) || !error.bystander || context.signal.aborted || this.closed) throw error;
      if (error.bystander === 'other') return this.workerFor(handler, url).run(call);
      const alone = new ModuleWorker(`module ${handler.spec.split('#')[0]}`, url, this.output, () => undefined);
      try {
        return await alone.run(call);
      } finally {
        void alone.stop('its one call is over');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.stop('toolman closed its module runner')));
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

  private workerFor(handler: ModuleHandler, url: string): ModuleWorker {
    if (this.closed) throw new ModuleWorkerEnded('the module runner was closed');
    const { file } = handler;
    let worker = this.workers.get(file);
    if (!worker) {
      const label = `module ${handler.spec.split('#')[0]}`;
      worker = new ModuleWorker(label, url, this.output, (ended) => {
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
