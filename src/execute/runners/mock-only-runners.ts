import type { HandlerKind } from '../../catalog/types.js';
import { RunnerRegistry, ToolFailure, type AnyToolRunner } from '../runner.js';
import { mockRunner } from './mock-runner.js';

/** Every handler kind that runs something real: a program, a request, a server, an agent. */
const LIVE_KINDS: readonly HandlerKind[] = ['exec', 'http', 'module', 'plugin', 'mcp', 'agent'];

/**
 * Runners for a catalog the user did not choose (one a recording or a suite named): its mock
 * handlers answer, and every other kind fails the call, saying why, instead of running. No plugin
 * is ever resolved or loaded for such a catalog: its code would be the file's author's.
 */
export function mockOnlyRunners(namedBy: string): RunnerRegistry {
  const refusal = (kind: HandlerKind, tool: string) =>
    new ToolFailure(`not run: ${tool} has ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} handler, and this catalog was loaded because ${namedBy} names it, so only mock handlers answer; name the catalog with --catalog to run its tools`);
  const refuse = (kind: HandlerKind): AnyToolRunner =>
    ({
      kind,
      run: async (_handler: unknown, _args: unknown, context: { tool: { name: string } }) => {
        throw refusal(kind, context.tool.name);
      },
      start: (_handler: unknown, _args: unknown, context: { tool: { name: string } }) => ({
        next: async () => {
          throw refusal(kind, context.tool.name);
        },
        stop: async () => undefined,
      }),
    }) as unknown as AnyToolRunner;
  return new RunnerRegistry([mockRunner, ...LIVE_KINDS.map(refuse)]);
}
