import { randomBytes } from 'node:crypto';
import type { Tool } from '../catalog/types.js';
import type { YieldStream } from './runner.js';
import { StatefulJob, type JobShaping, type JobUpdate } from './stateful-job.js';

/**
 * How a session names its jobs. `random` (the default): 128 random bits, for a session whose job
 * ids reach other parties (`serve`). `counted` (job_1, job_2...): for a session whose only caller
 * is its own model or user (a conversation, `call`), where a session replayed from a recording
 * must give the ids the recorded model used.
 */
export type JobIds = 'random' | 'counted';

export interface Job<T> {
  id: string;
  tool: string;
  status: 'running' | 'done' | 'failed';
  startedAt: number;
  finishedAt?: number;
  outcome?: T;
}

/**
 * `mode: background` calls: started at once, collected later through job_status / job_result; and
 * `mode: stateful` ones, generators read yield by yield (job_next, job_stop). Jobs belong to a
 * session, not to the turn that started them; `close()` stops those still running.
 */
export class JobStore<T extends { ok: boolean }> {
  private readonly jobs = new Map<string, Job<T>>();
  /** Each running background job's own stop (a served task's `tasks/cancel`), joined to the session's. */
  private readonly stops = new Map<string, AbortController>();
  private readonly statefulJobs = new Map<string, StatefulJob>();
  private readonly controller = new AbortController();
  private readonly listeners = new Set<(update: JobUpdate) => void>();
  private count = 0;

  constructor(private readonly ids: JobIds = 'random') {}

  start(tool: string, run: (signal: AbortSignal) => Promise<T>): string {
    const id = this.newId();
    const job: Job<T> = { id, tool, status: 'running', startedAt: performance.now() };
    this.jobs.set(id, job);
    const stop = new AbortController();
    const session = this.controller.signal;
    const onSessionEnd = () => stop.abort(session.reason);
    if (session.aborted) onSessionEnd();
    else session.addEventListener('abort', onSessionEnd, { once: true });
    this.stops.set(id, stop);
    void run(stop.signal).then((outcome) => {
      job.outcome = outcome;
      job.status = outcome.ok ? 'done' : 'failed';
      job.finishedAt = performance.now();
      this.stops.delete(id);
      session.removeEventListener('abort', onSessionEnd);
    });
    return id;
  }

  /**
   * Stops one running background job (its runner's signal aborts: a program's process group is
   * killed, a request is aborted); it ends `failed` with kind `cancelled`. False when there is no
   * such job running.
   */
  cancel(id: string): boolean {
    const stop = this.stops.get(id);
    if (!stop) return false;
    stop.abort(new Error('the job was cancelled'));
    return true;
  }

  get(id: string): Job<T> | undefined {
    return this.jobs.get(id);
  }

  /**
   * Starts a stateful job: `open` gets the signal that stops it (job_stop, its time limit, the
   * session's end) and gives the runner's stream; nothing of it runs before the job pumps it.
   */
  startStateful(tool: Tool, open: (signal: AbortSignal) => YieldStream, shaping: JobShaping): StatefulJob {
    const controller = new AbortController();
    if (this.controller.signal.aborted) controller.abort(this.controller.signal.reason);
    const job = new StatefulJob(this.newId(), tool, open(controller.signal), controller, shaping, (update) => {
      for (const listener of this.listeners) listener(update);
    });
    this.statefulJobs.set(job.id, job);
    return job;
  }

  stateful(id: string): StatefulJob | undefined {
    return this.statefulJobs.get(id);
  }

  /** Every stateful job's changes (a yield, its end), for displays; returns the unsubscribe. */
  onUpdate(listener: (update: JobUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private newId(): string {
    // A bearer handle (`toolman serve` answers the job tools to whoever names the id): 128 random bits, so no one reaches a job by guessing.
    return this.ids === 'counted' ? `job_${++this.count}` : `job_${randomBytes(16).toString('base64url')}`;
  }

  close(): void {
    this.controller.abort(new Error('the session ended'));
    for (const job of this.statefulJobs.values()) void job.stop('closed');
  }
}
