/**
 * The messages between toolman and a module handler's worker thread. The worker's side is the
 * plain JavaScript in `module-worker-script.ts`, which must keep to these shapes.
 */

/** Runs `exportName(args, context)` in the worker; `scratchId` names the session's scratch store. */
export interface CallMessage {
  type: 'call';
  id: number;
  exportName: string;
  args: Record<string, unknown>;
  scratchId: number;
  cwd: string;
  tool: string;
}

/** toolman → worker. */
export type ToWorker =
  | CallMessage
  /** Aborts the signal the call's function got. */
  | { type: 'cancel'; id: number }
  /** The host's scratch store is gone (its session ended): drop the worker's copy. */
  | { type: 'forget'; scratchId: number };

/** worker → toolman. */
export type FromWorker =
  | { type: 'progress'; id: number; message: string }
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
      return typeof message.id === 'number' && typeof message.json === 'string';
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
