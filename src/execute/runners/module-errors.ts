/** A module handler's function failed: it threw (its message crosses), or its result was not JSON. */
export class ModuleCallError extends Error {
  override readonly name = 'ModuleCallError';
}

/**
 * The worker running a module ended while calls were in flight: the module threw outside a call,
 * exited its thread, was stopped after a cancelled call did not settle, or toolman closed it.
 */
export class ModuleWorkerEnded extends Error {
  override readonly name = 'ModuleWorkerEnded';

  constructor(
    message: string,
    /**
     * Set when this call did not end the worker: `other`, another call did (it threw outside its
     * result, exited, or was cancelled and did not stop); `unknown`, the worker ended for a reason
     * no call can be blamed for while several were running. Such a call may be run again.
     */
    readonly bystander?: 'other' | 'unknown',
  ) {
    super(message);
  }
}
