import type { HandlerKind } from '../catalog/types.js';
import { fillValue, scriptedStream, ToolFailure, type AnyToolRunner, type RunContext, type RunnerRegistry, type ToolRunner, type YieldStream } from '../manager/runner-kit.js';
import { withCallAsker, type CallAsker } from '../manager/mcp-client.js';
import type { Stub } from './suite-types.js';
import { mismatch } from './value-matchers.js';

/** Handler kinds a test may reach; `meta` is the session's own and always runs. */
const KINDS: HandlerKind[] = ['mock', 'exec', 'http', 'module', 'plugin', 'agent', 'mcp'];

/**
 * Runners for one test case: a call is answered by the first of the case's stubs whose tool and
 * `when` match its arguments; otherwise, in `mock` mode, by the tool's mock handler, and a tool
 * without one fails (so a test never sends mail or deletes files); in `live` mode, by its handler.
 * A stateful tool (`start`) is answered the same way: a stub's `yields`, then its result. A live
 * MCP call runs with `asker` answering what its server asks (the case's `elicitation:`).
 */
export function stubRunners(stubs: readonly Stub[], mode: 'mock' | 'live', liveWithheld = false, asker?: CallAsker): (registry: RunnerRegistry) => RunnerRegistry {
  // What would run the tool: the suite already asks for its real handlers, and only the flag is missing; or it asks for mocks.
  const howLive = liveWithheld ? 'or pass --live-tools (the suite says tools: live, which runs real handlers only with the flag)' : 'or add tools: live to the suite and pass --live-tools';
  const stubFor = (args: Record<string, unknown>, context: RunContext) => stubs.find((s) => s.tool === context.tool.name && Object.entries(s.when ?? {}).every(([arg, m]) => mismatch(Object.hasOwn(args, arg) ? args[arg] : undefined, m, arg) === null));
  return (registry) =>
    registry.with(
      ...KINDS.map((kind) => {
        const inner = (context: RunContext): ToolRunner => {
          const runner = registry.get(kind) as ToolRunner | undefined;
          if (!runner || (mode === 'mock' && kind !== 'mock')) {
            throw new ToolFailure(`toolman test: ${context.tool.name} has ${article(kind)} ${kind} handler and no mock; give the case a stub for it, ${howLive}`);
          }
          return runner;
        };
        return {
          kind,
          async run(handler: never, args: Record<string, unknown>, context: RunContext) {
            const stub = stubFor(args, context);
            if (stub) {
              if (stub.error !== undefined) throw new ToolFailure(String(fillValue(stub.error, args)));
              return fillValue(stub.result ?? null, args);
            }
            const runner = inner(context);
            // What a live MCP tool's server asks during the call: the case's `elicitation:` answers.
            return kind === 'mcp' && asker ? withCallAsker(asker, async () => runner.run(handler, args, context)) : runner.run(handler, args, context);
          },
          start(handler: never, args: Record<string, unknown>, context: RunContext): YieldStream {
            const stub = stubFor(args, context);
            if (stub) {
              const yields = (stub.yields ?? []).map((value) => fillValue(value, args));
              return scriptedStream({ yields, result: fillValue(stub.result ?? null, args), ...(stub.error !== undefined ? { error: String(fillValue(stub.error, args)) } : {}) }, context.signal);
            }
            let runner: ToolRunner;
            try {
              runner = inner(context);
            } catch (error) {
              return scriptedStream({ yields: [], error: error instanceof Error ? error.message : String(error) }, context.signal);
            }
            if (!runner.start) return scriptedStream({ yields: [], error: `${context.tool.name}'s ${kind} handler cannot run as a generator` }, context.signal);
            return runner.start(handler, args, context);
          },
        } as unknown as AnyToolRunner;
      }),
    );
}

/** Kinds said with "an" (as read aloud: an exec, an HTTP, an MCP, an agent); the rest take "a" (a mock, a module). */
const SAID_WITH_AN: ReadonlySet<string> = new Set(['exec', 'http', 'mcp', 'agent']);

function article(kind: HandlerKind): string {
  return SAID_WITH_AN.has(kind) ? 'an' : 'a';
}
