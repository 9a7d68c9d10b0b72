import type { Tool } from '../catalog/types.js';
import type { SecretSet } from '../shared/secrets.js';
import type { RunContext } from './runner.js';
import type { Approver, SideUsage } from './types.js';

/**
 * What a runner gets for one call (or one stateful job) besides the handler and the arguments.
 * A class rather than an object literal: V8 makes a literal with a getter (`get signal()`, the
 * signal made lazily, see the executor's runTool) in dictionary mode, its properties in a hash
 * table (`%HasFastProperties` false on Node 20.20), built by a runtime call for every call and
 * read by hash lookups in every runner. An instance of this class has fast properties and one
 * hidden class, its getter on the prototype: in process, a mock call through the executor went
 * from about 11.4 to 7.1 µs of CPU (2026-11-24, issue 24).
 *
 * `signal` is an own, enumerable accessor (one shared descriptor, defined in the constructor), not
 * a getter on the prototype: `RunContext` is public (src/index.ts, `wrapRunners`), and a wrapper
 * that spreads a context (`{ ...context, progress }`) must not lose the signal, which a prototype
 * getter did (a2a-agent.ts does that itself). A spread reads the getter, so it makes the signal;
 * the per-instance descriptor costs about 90 ns a call (review, 2026-11-24).
 */
export class CallContext implements RunContext {
  readonly progress: RunContext['progress'];
  approve?: Approver;
  countUsage?: (usage: readonly SideUsage[]) => void;

  constructor(
    readonly callId: string,
    readonly tool: Tool,
    private readonly readSignal: () => AbortSignal,
    progress: RunContext['progress'],
    readonly scratch: Map<string, unknown>,
    readonly baseDir: string,
    readonly cwd: string,
    readonly env: Record<string, string | undefined>,
    readonly secrets: SecretSet,
    approve: Approver | undefined,
    countUsage: ((usage: readonly SideUsage[]) => void) | undefined,
  ) {
    // An own property, not a method: runners hand it on unbound (`limitProgress(context.progress)`).
    this.progress = progress;
    if (approve) this.approve = approve;
    if (countUsage) this.countUsage = countUsage;
    Object.defineProperty(this, 'signal', CallContext.SIGNAL);
  }

  declare readonly signal: AbortSignal;

  /** The accessor every context's `signal` is: made when first read (most calls never read it). */
  private static readonly SIGNAL: PropertyDescriptor = {
    enumerable: true,
    get(this: CallContext): AbortSignal {
      return this.readSignal();
    },
  };
}
