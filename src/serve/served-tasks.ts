import { randomBytes } from 'node:crypto';
import type { ToolSession } from '../session/tool-session.js';

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, modelcontextprotocol/ext-tasks
 * `specification/draft/tasks.md` at e434597, read 2026-11-24): a 2026-07-28 client that declares
 * it in a request's capabilities may get a task handle instead of a `CallToolResult`, and polls it
 * with `tasks/get`, answers it with `tasks/update` and stops it with `tasks/cancel`.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface TaskLimits {
  /** How long a task is kept from its creation (its `ttlMs`); then it is forgotten. */
  ttlMs: number;
  /** The `pollIntervalMs` hint. */
  pollIntervalMs: number;
  /** Tasks one principal keeps; past it, its oldest finished task is forgotten, or no task is made. */
  maxPerPrincipal: number;
  /** Tasks kept over all principals. */
  maxTotal: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = { ttlMs: 3_600_000, pollIntervalMs: 1_000, maxPerPrincipal: 64, maxTotal: 1_024 };

/** One task: a background job of a principal's session. */
export interface ServedTask {
  id: string;
  principal: string;
  /** The job it reads, and the session that runs it. */
  jobId: string;
  session: ToolSession;
  tool: string;
  createdAt: number;
  lastUpdatedAt: number;
  /** The client asked to cancel it (`tasks/cancel`). */
  cancelRequested: boolean;
  /** The final `CallToolResult`, made once, when the job has ended and the task was first read. */
  result?: Record<string, unknown>;
}

export type TaskStatus = 'working' | 'completed' | 'cancelled';

/**
 * The tasks of every 2026-07-28 principal, in this process. A task belongs to the principal whose
 * call made it and is found only by that principal: another's `tasks/get` gets the same "not
 * found" as an id that never existed, so no one learns that a task exists (the spec's §Security
 * Considerations, "Auth binding"). Ids are 128 random bits ("Task ID unguessability"). Bounded:
 * each task lives at most `ttlMs` from creation (the spec lets a server discard a task after its
 * TTL), a principal keeps at most `maxPerPrincipal` and the process `maxTotal`; a principal's
 * tasks go when its state is dropped.
 */
export class ServedTasks {
  private readonly tasks = new Map<string, ServedTask>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly limits: TaskLimits = DEFAULT_TASK_LIMITS) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(50, Math.floor(limits.ttlMs / 4))));
    this.sweeper.unref();
  }

  get size(): number {
    return this.tasks.size;
  }

  /**
   * A task for a background job just started, or undefined when the bounds leave no room (the
   * caller then answers the call as before, with its `toolman/job_id`: the spec leaves it to the
   * server whether a call becomes a task).
   */
  create(principal: string, jobId: string, session: ToolSession, tool: string): ServedTask | undefined {
    this.sweep();
    const own = [...this.tasks.values()].filter((t) => t.principal === principal);
    if (own.length >= this.limits.maxPerPrincipal && !this.evictFinished(own)) return undefined;
    if (this.tasks.size >= this.limits.maxTotal && !this.evictFinished([...this.tasks.values()])) return undefined;
    const now = Date.now();
    const task: ServedTask = { id: `task_${randomBytes(16).toString('base64url')}`, principal, jobId, session, tool, createdAt: now, lastUpdatedAt: now, cancelRequested: false };
    this.tasks.set(task.id, task);
    return task;
  }

  /** The principal's task by its id; undefined for an unknown id, another principal's task, or an expired one. */
  find(principal: string, id: unknown): ServedTask | undefined {
    if (typeof id !== 'string') return undefined;
    const task = this.tasks.get(id);
    if (!task || task.principal !== principal) return undefined;
    if (this.expired(task, Date.now())) {
      this.tasks.delete(id);
      return undefined;
    }
    return task;
  }

  /** Where the task's job is: running, ended, or ended because the client cancelled it. */
  status(task: ServedTask): TaskStatus {
    const job = task.session.executor.job(task.jobId);
    if (!job || job.status === 'running') return job ? 'working' : 'cancelled';
    if (task.cancelRequested && job.outcome && !job.outcome.ok && job.outcome.kind === 'cancelled') return 'cancelled';
    return 'completed';
  }

  /** A principal's state was dropped (idle, or room for another): its tasks go with its session. */
  forget(principal: string): void {
    for (const [id, task] of this.tasks) if (task.principal === principal) this.tasks.delete(id);
  }

  sweep(): void {
    const now = Date.now();
    for (const [id, task] of this.tasks) if (this.expired(task, now)) this.tasks.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.tasks.clear();
  }

  private expired(task: ServedTask, now: number): boolean {
    return now - task.createdAt >= this.limits.ttlMs;
  }

  /** Forgets the oldest finished task among `tasks`; false when every one still runs. */
  private evictFinished(tasks: ServedTask[]): boolean {
    const finished = tasks.filter((t) => this.status(t) !== 'working').sort((a, b) => a.lastUpdatedAt - b.lastUpdatedAt)[0];
    if (!finished) return false;
    this.tasks.delete(finished.id);
    return true;
  }
}
