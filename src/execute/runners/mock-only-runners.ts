import type { HandlerKind } from '../../catalog/types.js';
import { RunnerRegistry, ToolFailure, type AnyToolRunner } from '../runner.js';
import { mockRunner } from './mock-runner.js';

/** Every handler kind that runs something real: a program, a request, a server, an agent. */
const LIVE_KINDS: readonly HandlerKind[] = ['exec', 'http', 'module', 'mcp', 'agent'];

/**
 * Runners for a catalog the user did not choose (one a recording or a suite named): its mock
 * handlers answer, and every other kind fails the call, saying why, instead of running.
 */
export function mockOnlyRunners(namedBy: string): RunnerRegistry {
  const refuse = (kind: HandlerKind): AnyToolRunner =>
    ({
      kind,
      run: async (_handler: unknown, _args: unknown, context: { tool: { name: string } }) => {
        throw new ToolFailure(`not run: ${context.tool.name} has ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} handler, and this catalog was loaded because ${namedBy} names it, so only mock handlers answer; name the catalog with --catalog to run its tools`);
      },
    }) as unknown as AnyToolRunner;
  return new RunnerRegistry([mockRunner, ...LIVE_KINDS.map(refuse)]);
}
