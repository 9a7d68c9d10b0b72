/**
 * The messages between toolman and a module handler's worker thread. The worker's side is the
 * plain JavaScript in `module-worker-script.ts`, which must keep to these shapes.
 */

/**
 * What a call runs: a module's export; a plugin kind's runner, created once per config in the
 * worker (`configKey` names the config); or nothing, describing the plugin (its kinds and their
 * config schemas, as JSON).
 */
export type CallTarget =
  | { export: string }
  | { plugin: string; configKey: string; config: Record<string, unknown>; catalogDir: string }
  | { describe: true };

/**
 * Runs a call in the worker; `scratchId` names the session's scratch store. `stateful`: the
 * function returns an async iterator (an async generator), which the worker advances one step per
 * `next` message, answering each with a `yield` (and the end with `done`).
 */
export interface CallMessage {
  type: 'call';
  id: number;
  target: CallTarget;
  args: Record<string, unknown>;
  scratchId: number;
  cwd: string;
  tool: string;
  stateful: boolean;
}

/** toolman → worker. */
export type ToWorker =
  | CallMessage
  /** Aborts the signal the call's function got (a stateful call's generator is also returned, so its finally blocks run). */
  | { type: 'cancel'; id: number }
  /** Advances a stateful call's generator one step; `json`: the value its `yield` evaluates to (absent: undefined). */
  | { type: 'next'; id: number; json?: string }
  /** The host's scratch store is gone (its session ended): drop the worker's copy. */
  | { type: 'forget'; scratchId: number }
  /** toolman is stopping this worker: close the plugin runners created here, then say `closed`. */
  | { type: 'close' };

/** worker → toolman. */
export type FromWorker =
  | { type: 'progress'; id: number; message: string }
  /** A stateful call's generator yielded this value (JSON text). */
  | { type: 'yield'; id: number; json: string }
  /** The plugin runners were closed (after `close`). */
  | { type: 'closed' }
  /** Text the module printed (to its console, standard output or standard error). */
  | { type: 'output'; text: string }
  /** The function's result, as JSON text (`undefined` sent as `null`). */
  | { type: 'done'; id: number; json: string }
  /** The function threw, its result was not JSON, or the module could not be loaded. */
  | { type: 'failed'; id: number; message: string }
  /** Something the module started threw, or rejected with nobody listening, outside a result; `id`: the call whose code it was, when known. */
  | { type: 'crashed'; how: 'threw' | 'rejected'; message: string; id?: number }
  /** The module is ending its thread (it called exit); `id`: the call whose code did it, when known. */
  | { type: 'exiting'; code: number; id?: number };

/** What the host accepts from a worker: the module runs in there too, so nothing is trusted. */
export function isFromWorker(value: unknown): value is FromWorker {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'progress':
      return typeof message.id === 'number' && typeof message.message === 'string';
    case 'done':
    case 'yield':
      return typeof message.id === 'number' && typeof message.json === 'string';
    case 'closed':
      return true;
    case 'output':
      return typeof message.text === 'string';
    case 'failed':
      return typeof message.id === 'number' && typeof message.message === 'string';
    case 'crashed':
      return (message.how === 'threw' || message.how === 'rejected') && typeof message.message === 'string' && (message.id === undefined || typeof message.id === 'number');
    case 'exiting':
      return typeof message.code === 'number' && (message.id === undefined || typeof message.id === 'number');
    default:
      return false;
  }
}
