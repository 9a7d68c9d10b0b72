import { RunnerRegistry } from '../runner.js';
import { createExecRunner } from './exec-runner.js';
import { httpRunner } from './http-runner.js';
import { mockRunner } from './mock-runner.js';
import { createModuleRunner } from './module-runner.js';

/** The runners for the handler kinds a catalog file can declare itself; `close()` stops module workers. */
export function defaultRunners(options: { output?: (text: string) => void } = {}): RunnerRegistry {
  return new RunnerRegistry([mockRunner, createExecRunner(), httpRunner, createModuleRunner(options)]);
}
