import { parentPort } from 'node:worker_threads';
import { runStrictJob, type StrictJob } from './strict-compile.js';

/** Worker side of runStrictJobs: compiles the jobs it is sent and answers with the results. */
parentPort?.on('message', (jobs: StrictJob[]) => {
  parentPort?.postMessage(jobs.map(runStrictJob));
});
