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
}
