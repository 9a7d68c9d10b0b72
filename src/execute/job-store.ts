import { randomBytes } from 'node:crypto';

export interface Job<T> {
  id: string;
  tool: string;
  status: 'running' | 'done' | 'failed';
  startedAt: number;
  finishedAt?: number;
  outcome?: T;
}

/**
 * `mode: background` calls: started at once, collected later through job_status / job_result.
 * Jobs belong to a session, not to the turn that started them; `close()` stops those still running.
 */
export class JobStore<T extends { ok: boolean }> {
  private readonly jobs = new Map<string, Job<T>>();
  private readonly controller = new AbortController();

  start(tool: string, run: (signal: AbortSignal) => Promise<T>): string {
    // A job id is a bearer handle (`toolman serve` answers job_status to whoever names it): 128
    // random bits, so no one collects a job by guessing its id.
    const id = `job_${randomBytes(16).toString('base64url')}`;
    const job: Job<T> = { id, tool, status: 'running', startedAt: performance.now() };
    this.jobs.set(id, job);
    void run(this.controller.signal).then((outcome) => {
      job.outcome = outcome;
      job.status = outcome.ok ? 'done' : 'failed';
      job.finishedAt = performance.now();
    });
    return id;
  }

  get(id: string): Job<T> | undefined {
    return this.jobs.get(id);
  }

  close(): void {
    this.controller.abort(new Error('the session ended'));
  }
}
