import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../../package-root.js';
import { runStrictJob, type StrictJob, type StrictResult } from './strict-compile.js';

/** Below this many schemas, starting a worker (about 40 ms) costs more than it saves. */
export const PARALLEL_THRESHOLD = 400;
const MAX_WORKERS = 4;

/**
 * Compiles every job's schema with ajv (strict) and validates its examples. ajv's code generation
 * is the most expensive check (about 0.2 ms a schema), so large catalogs spread it over worker
 * threads while the main thread takes a share too. Results come back in job order.
 */
export async function runStrictJobs(jobs: StrictJob[], options: { workers?: number } = {}): Promise<StrictResult[]> {
  const workerFile = join(packageRoot(), 'dist', 'strict-compile-worker.js');
  const workers = options.workers ?? Math.min(MAX_WORKERS, availableParallelism() - 1);
  const parallel = workers >= 1 && jobs.length >= PARALLEL_THRESHOLD && existsSync(workerFile);
  if (!parallel) return jobs.map(runStrictJob);

  // Equal shares by schema size, the main thread's last: it starts while workers boot.
  const shares: StrictJob[][] = Array.from({ length: workers + 1 }, () => []);
  const weights = new Array<number>(workers + 1).fill(0);
  for (const job of jobs) {
    const size = JSON.stringify(job.schema).length + 200;
    let lightest = 0;
    for (let i = 1; i < weights.length; i++) if (weights[i]! < weights[lightest]!) lightest = i;
    shares[lightest]!.push(job);
    weights[lightest]! += size;
  }
  const pending = shares.slice(0, workers).map(
    (share) =>
      new Promise<StrictResult[]>((resolve) => {
        const worker = new Worker(workerFile);
        worker.once('message', (results: StrictResult[]) => {
          resolve(results);
          void worker.terminate();
        });
        // A worker that cannot start or crashes must not lose findings: do its share here.
        worker.once('error', () => resolve(share.map(runStrictJob)));
        worker.postMessage(share);
      }),
  );
  const own = shares[workers]!.map(runStrictJob);
  const results = [...(await Promise.all(pending)).flat(), ...own];
  return results.sort((a, b) => a.id - b.id);
}
