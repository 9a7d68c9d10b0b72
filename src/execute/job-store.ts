import { randomUUID } from 'node:crypto';

export interface Job {
  id: string;
  tool: string;
  status: 'running' | 'done' | 'failed';
  startedAt: number;
  finishedAt?: number;
  outcome?: { ok: boolean };
}

/** `mode: background` calls: started at once, collected later through job_status / job_result. */
export class JobStore {
  private readonly jobs = new Map<string, Job>();

  start(tool: string, run: (signal: AbortSignal) => Promise<{ ok: boolean }>): string {
    const id = `job_${randomUUID().slice(0, 8)}`;
    const job: Job = { id, tool, status: 'running', startedAt: performance.now() };
    this.jobs.set(id, job);
    void run(new AbortController().signal).then((outcome) => {
      job.outcome = outcome;
      job.status = outcome.ok ? 'done' : 'failed';
      job.finishedAt = performance.now();
    });
    return id;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Resolves when every job has finished (for one-shot drivers that must not exit early). */
  async settled(): Promise<void> {
    while ([...this.jobs.values()].some((j) => j.status === 'running')) await new Promise((r) => setTimeout(r, 10));
  }
}
