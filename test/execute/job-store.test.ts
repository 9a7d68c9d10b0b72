import { describe, expect, it } from 'vitest';
import { JobStore } from '../../src/execute/job-store.js';

type Outcome = { ok: boolean; why?: string };

/** A job that ends when its signal aborts (with why), or after `ms`. */
function waiting(ms: number) {
  return (signal: AbortSignal) =>
    new Promise<Outcome>((resolve) => {
      if (signal.aborted) return resolve({ ok: false, why: String((signal.reason as Error).message) });
      const timer = setTimeout(() => resolve({ ok: true }), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve({ ok: false, why: String((signal.reason as Error).message) });
      });
    });
}

async function settled(store: JobStore<Outcome>, id: string) {
  for (let i = 0; i < 100 && store.get(id)?.status === 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return store.get(id)!;
}

describe('JobStore: stopping one background job', () => {
  it('cancel stops that job only; the others run on', async () => {
    const store = new JobStore<Outcome>();
    const a = store.start('a', waiting(60_000));
    const b = store.start('b', waiting(50));
    expect(store.cancel(a)).toBe(true);
    expect(await settled(store, a)).toMatchObject({ status: 'failed', outcome: { ok: false, why: 'the job was cancelled' } });
    expect(await settled(store, b)).toMatchObject({ status: 'done' });
    // Nothing runs by those ids any more, and an id never given is no job.
    expect(store.cancel(a)).toBe(false);
    expect(store.cancel(b)).toBe(false);
    expect(store.cancel('job_guessed')).toBe(false);
  });

  it('the session\'s end still stops every running job', async () => {
    const store = new JobStore<Outcome>();
    const a = store.start('a', waiting(60_000));
    store.close();
    expect(await settled(store, a)).toMatchObject({ status: 'failed', outcome: { why: 'the session ended' } });
    // A job started after the end is stopped at once.
    const late = store.start('late', waiting(60_000));
    expect(await settled(store, late)).toMatchObject({ status: 'failed' });
  });
});
