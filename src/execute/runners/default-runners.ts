import { RunnerRegistry } from '../runner.js';
import { execRunner } from './exec-runner.js';
import { httpRunner } from './http-runner.js';
import { mockRunner } from './mock-runner.js';
import { moduleRunner } from './module-runner.js';

/** The runners for the handler kinds a catalog file can declare itself. */
export function defaultRunners(): RunnerRegistry {
  return new RunnerRegistry([mockRunner, execRunner, httpRunner, moduleRunner]);
}
