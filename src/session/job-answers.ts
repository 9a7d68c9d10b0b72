import type { Executor, Outcome } from '../execute/executor.js';
import type { JobStore } from '../execute/job-store.js';
import type { CallRecord } from '../execute/types.js';
import { STATEFUL_LIMITS } from '../execute/stateful-job.js';
import type { MetaToolOutcome } from './tool-session.js';

/**
 * The job meta-tools' answers, from a session's jobs: job_status and job_result collect a
 * background job (and say where a stateful one is); job_next and job_stop read and stop a
 * stateful one, job_next waiting for news when there is none.
 */
export function jobAnswer(jobs: JobStore<Outcome>, executor: Executor, name: 'job_status' | 'job_result', args: Record<string, unknown>): MetaToolOutcome {
  const id = typeof args.job_id === 'string' ? args.job_id : '';
  const stateful = jobs.stateful(id);
  if (stateful) {
    const summary = stateful.summary();
    return name === 'job_status' ? { ok: true, content: summary, activated: [] } : { ok: false, error: `${id} is a stateful job: read it with job_next (it is ${summary.status}, ${summary.unread} unread)` };
  }
  const job = executor.job(id);
  if (!job) return { ok: false, error: `no job with id ${JSON.stringify(id)}` };
  const status = { job_id: id, tool: job.tool, status: job.status, running_ms: job.running_ms };
  if (name === 'job_status' || !job.outcome) return { ok: true, content: status, activated: [] };
  return job.outcome.ok ? { ok: true, content: job.outcome.value, activated: [] } : { ok: false, error: job.outcome.message };
}

/** job_next and job_stop: a stateful job's yields since the last read (waiting for one), or its stop. */
export async function jobStep(jobs: JobStore<Outcome>, executor: Executor, name: 'job_next' | 'job_stop', args: Record<string, unknown>, signal: AbortSignal): Promise<MetaToolOutcome> {
  const id = typeof args.job_id === 'string' ? args.job_id : '';
  const job = jobs.stateful(id);
  if (!job) return { ok: false, error: executor.job(id) ? `${id} is a background job: collect it with job_status and job_result` : `no running or finished job with id ${JSON.stringify(id)}` };
  if (name === 'job_stop') return { ok: true, content: await job.stop(), activated: [] };
  if (Object.hasOwn(args, 'send')) {
    const refused = job.send(args.send);
    if (refused) return { ok: false, error: refused };
  }
  const wait = typeof args.wait_ms === 'number' && Number.isFinite(args.wait_ms) ? Math.min(Math.max(0, args.wait_ms), STATEFUL_LIMITS.maxWaitMs) : STATEFUL_LIMITS.defaultWaitMs;
  return { ok: true, content: await job.read(wait, signal, args.until === 'end' ? 'end' : 'next'), activated: [] };
}

/**
 * The stateful tool a job_next or job_stop call read: a turn that read a job used its tool (its
 * answer checks run, a rubric's grader sees what was read), though the model called a meta-tool.
 */
export function jobToolRead(jobs: JobStore<Outcome>, record: Pick<CallRecord, 'tool' | 'arguments' | 'meta'>): string | undefined {
  if (!record.meta || (record.tool !== 'job_next' && record.tool !== 'job_stop')) return undefined;
  const args = record.arguments as Record<string, unknown> | null;
  return typeof args?.job_id === 'string' ? jobs.stateful(args.job_id)?.tool.name : undefined;
}
