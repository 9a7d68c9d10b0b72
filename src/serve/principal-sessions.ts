import type { ToolSession } from '../session/tool-session.js';
import { plainText } from '../shared/plain-text.js';
import { CallSlots } from './call-slots.js';

/**
 * What the 2026-07-28 era keeps for one principal (a verified token's subject, `anonymous`, or
 * the stdio client): a toolman session that runs its calls and holds its background jobs, and
 * its share of the call slots. The era has no connections to hang state on (spec
 * `basic/index.mdx` §Statelessness), so state is keyed by who asks; nothing in it changes what
 * `tools/list` answers.
 */
export interface PrincipalState {
  key: string;
  session: ToolSession;
  slots: CallSlots;
  lastSeen: number;
  /** Background jobs started for this principal, with the session that runs each (a retired one after a catalog change). */
  jobs: Map<string, ToolSession>;
  /** Sessions over an older catalog kept until their jobs end. */
  retired: ToolSession[];
}

export interface PrincipalSessionsOptions {
  open(): Promise<ToolSession>;
  /** Principals kept; at the limit only an idle one is dropped to make room (`--max-sessions`). */
  maxPrincipals: number;
  /** A principal with no request, call or job for this long is dropped (`--idle-timeout`). */
  idleTimeoutMs: number;
  maxCallsPerPrincipal: number;
  log(line: string): void;
  /** Called when a principal's state is dropped (its remembered approvals go with it). */
  onDrop(key: string): void;
}

/** Every principal is busy with calls or jobs, and the limit is reached: the request gets 503. */
export class PrincipalsFull extends Error {}

/**
 * The principals' states for the whole process, bounded like the 2025 sessions are: at most
 * `maxPrincipals`, the one idle longest dropped to make room (never one with a call or a job
 * running), and idle ones swept after the idle timeout.
 */
export class PrincipalSessions {
  private readonly states = new Map<string, PrincipalState>();
  private readonly opening = new Map<string, Promise<PrincipalState>>();
  /** Bumped when the catalog changes: states opened before it get a new session on their next call. */
  private generation = 0;
  private readonly generations = new WeakMap<ToolSession, number>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PrincipalSessionsOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(50, Math.floor(options.idleTimeoutMs / 4))));
    this.sweeper.unref();
  }

  get size(): number {
    return this.states.size;
  }

  /** The principal's state, opened on its first request. Throws `PrincipalsFull` when there is no room. */
  async get(key: string): Promise<PrincipalState> {
    const known = this.states.get(key);
    if (known) {
      known.lastSeen = Date.now();
      if (this.generations.get(known.session) !== this.generation) await this.renew(known);
      return known;
    }
    let pending = this.opening.get(key);
    if (!pending) {
      pending = this.open(key).finally(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  private async open(key: string): Promise<PrincipalState> {
    if (this.states.size >= this.options.maxPrincipals) {
      const idle = [...this.states.values()].filter((s) => !this.busy(s)).sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (!idle) throw new PrincipalsFull(`${this.states.size} clients are being served and each has a call or a job running; try again later`);
      this.options.log(`dropping the state of the client idle longest (${describe(idle.key)}): ${this.options.maxPrincipals} are kept`);
      this.drop(idle);
    }
    const session = await this.options.open();
    this.generations.set(session, this.generation);
    const state: PrincipalState = { key, session, slots: new CallSlots(this.options.maxCallsPerPrincipal, 'for this client'), lastSeen: Date.now(), jobs: new Map(), retired: [] };
    if (this.closed) {
      session.close();
      throw new PrincipalsFull('toolman serve is shutting down');
    }
    this.states.set(key, state);
    return state;
  }

  /** A new session over the current catalog; the old one stays while its jobs run, so they can still be collected. */
  private async renew(state: PrincipalState): Promise<void> {
    const old = state.session;
    const session = await this.options.open();
    this.generations.set(session, this.generation);
    if (state.session !== old) {
      // Another request renewed it meanwhile.
      session.close();
      return;
    }
    state.session = session;
    if ([...state.jobs.values()].includes(old) || state.slots.busy) state.retired.push(old);
    else old.close();
  }

  /** The catalog changed: every principal's next call opens a session over the new one. */
  retire(): void {
    this.generation++;
  }

  /** Remembers a background job and the session that runs it. */
  addJob(state: PrincipalState, jobId: string, session: ToolSession): void {
    state.jobs.set(jobId, session);
  }

  private busy(state: PrincipalState): boolean {
    return state.slots.busy || this.runningJobs(state) > 0;
  }

  private runningJobs(state: PrincipalState): number {
    let running = 0;
    for (const [id, session] of [...state.jobs]) {
      const status = session.executor.job(id)?.status;
      if (status === 'running') running++;
    }
    return running;
  }

  /** Closes retired sessions whose jobs are over, and drops principals idle past the timeout. */
  sweep(): void {
    const now = Date.now();
    for (const state of [...this.states.values()]) {
      for (const old of [...state.retired]) {
        const running = [...state.jobs].some(([id, s]) => s === old && old.executor.job(id)?.status === 'running');
        if (!running && now - state.lastSeen >= this.options.idleTimeoutMs) {
          state.retired.splice(state.retired.indexOf(old), 1);
          old.close();
        }
      }
      if (now - state.lastSeen < this.options.idleTimeoutMs || this.busy(state)) continue;
      this.options.log(`dropping the state of ${describe(state.key)}: idle for ${Math.round((now - state.lastSeen) / 1000)} s`);
      this.drop(state);
    }
  }

  private drop(state: PrincipalState): void {
    this.states.delete(state.key);
    state.session.close();
    for (const old of state.retired) old.close();
    this.options.onDrop(state.key);
  }

  /** Whether any principal has a call running or waiting. */
  get anyBusy(): boolean {
    return [...this.states.values()].some((s) => s.slots.busy);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const state of [...this.states.values()]) this.drop(state);
  }
}

/** A principal for the operator's log: a token's subject comes from the authorization server, shown cleaned and cut. */
function describe(key: string): string {
  return plainText(key).slice(0, 80);
}
