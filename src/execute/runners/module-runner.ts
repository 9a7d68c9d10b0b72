import type { Handler } from '../../catalog/types.js';
import type { RunContext, ToolRunner } from '../runner.js';
import { ModuleWorkers, type WorkerSource } from './module-workers.js';

/** What a module handler's function gets as its second argument, inside its worker thread. */
export interface ModuleContext {
  cwd: string;
  /** Aborted when toolman cancels the call (timeout, Ctrl-C) or stops a stateful job. */
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
 * owns one and closes it. A `mode: stateful` tool's export is an async generator: `start` reads
 * it one yield at a time.
 */
export function createModuleRunner(options: { output?: (text: string) => void } = {}): ModuleRunner {
  const workers = new ModuleWorkers('module runner', options.output ?? (() => undefined));
  const source = (handler: ModuleHandler): WorkerSource => ({ file: handler.file, label: `module ${handler.spec.split('#')[0]}` });
  return {
    kind: 'module',
    run: (handler: ModuleHandler, args: Record<string, unknown>, context: RunContext) => workers.run(source(handler), { export: handler.exportName }, args, context),
    start: (handler: ModuleHandler, args: Record<string, unknown>, context: RunContext) => workers.stream(source(handler), { export: handler.exportName }, args, context),
    close: () => workers.close(),
  };
}

type ModuleHandler = Extract<Handler, { kind: 'module' }>;
