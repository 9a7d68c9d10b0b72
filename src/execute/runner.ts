import type { Handler, HandlerKind, Tool } from '../catalog/types.js';
import type { SecretSet } from '../shared/secrets.js';
import type { Approver, SideUsage } from './types.js';

/** What a runner gets besides the handler and the arguments. */
export interface RunContext {
  callId: string;
  tool: Tool;
  /** Aborted on timeout and when the turn is cancelled. */
  signal: AbortSignal;
  progress(message: string, detail?: { progress?: number; total?: number }): void;
  /** Per-session storage shared by a tool's calls. */
  scratch: Map<string, unknown>;
  /** The catalog file's folder: relative paths in handlers resolve from here. */
  baseDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Secret values filled into requests; everything returned is scrubbed of them. */
  secrets: SecretSet;
  /**
   * Asks the driver whether a tool the tool itself runs may run (a sub-agent's destructive call).
   * Absent when nobody can ask: such calls are declined.
   */
  approve?: Approver;
  /**
   * Counts model calls the tool made on the conversation's behalf (a local sub-agent's loop) into
   * the turn's usage, as side usage. Absent where no conversation owns the call (`call`, `serve`).
   */
  countUsage?: (usage: readonly SideUsage[]) => void;
}

/**
 * One way a tool runs (mock, exec, http, module; MCP servers and agents too), registered by
 * handler kind. Returns the tool's result as any JSON value or text; a throw means the tool
 * failed, and the executor turns it into an error for the model.
 */
export interface ToolRunner<K extends HandlerKind = HandlerKind> {
  readonly kind: K;
  run(handler: Extract<Handler, { kind: K }>, args: Record<string, unknown>, context: RunContext): Promise<unknown>;
  /**
   * Runs a `mode: stateful` tool as a generator: nothing runs before the stream's first `next()`.
   * `context.signal` aborts when the job is stopped (job_stop, its time limit, the session's end).
   * A runner without it cannot run stateful tools.
   */
  start?(handler: Extract<Handler, { kind: K }>, args: Record<string, unknown>, context: RunContext): YieldStream;
  /** Stops what the runner started (worker threads, connections); called by the registry that owns it. */
  close?(): Promise<void>;
}

/**
 * A stateful tool's run, read as an async generator is: `next(send)` resumes it (`send` is what
 * its `yield` evaluates to) until it yields again or ends; a rejection is the tool's failure.
 * `stop()` ends it early (a generator returns: its finally blocks run) and resolves once it has.
 */
export interface YieldStream {
  next(send?: unknown): Promise<IteratorResult<unknown, unknown>>;
  stop(): Promise<void>;
}

/** A runner of any one kind. */
export type AnyToolRunner = { [K in HandlerKind]: ToolRunner<K> }[HandlerKind];

/** Runners by handler kind. `with()` layers more on top (a session's meta-tools, a manager's MCP servers). */
export class RunnerRegistry {
  private readonly runners = new Map<HandlerKind, AnyToolRunner>();

  constructor(runners: readonly AnyToolRunner[] = [], private readonly parent?: RunnerRegistry) {
    for (const runner of runners) this.register(runner);
  }

  register(runner: AnyToolRunner): this {
    this.runners.set(runner.kind, runner);
    return this;
  }

  get(kind: HandlerKind): AnyToolRunner | undefined {
    return this.runners.get(kind) ?? this.parent?.get(kind);
  }

  /** A registry with these runners added, falling back to this one. */
  with(...runners: AnyToolRunner[]): RunnerRegistry {
    return new RunnerRegistry(runners, this);
  }

  /** Closes the runners registered here, not the parent's (its owner closes those). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.runners.values()].map((runner) => runner.close?.()));
  }
}

/** Thrown by a runner to fail a call with exactly this message for the model (no "X failed:" prefix). */
export class ToolFailure extends Error {}
