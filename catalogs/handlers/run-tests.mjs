// catalogs/coding.yaml's run_tests: a stateful tool (mode: stateful). It runs the demo workspace's
// tests (catalogs/workspace/test) with Node's own test runner, one file at a time, and yields each
// file's results as soon as that file has finished, so the model can react to a failure while the
// rest still runs (job_next), or stop the run (job_stop: the test process is killed). Its return
// value sums the run up.

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WORKSPACE = fileURLToPath(new URL('../workspace/', import.meta.url));
const REPORTER = pathToFileURL(fileURLToPath(new URL('./test-events.mjs', import.meta.url))).href;
/** What one test file may print before it is cut off (the reporter prints a line per test). */
const MAX_OUTPUT = 1024 * 1024;

export async function* runTests({ filter } = {}, { signal }) {
  const files = readdirSync(join(WORKSPACE, 'test'))
    .filter((name) => /\.test\.m?js$/.test(name))
    .sort()
    .map((name) => `test/${name}`)
    .filter((file) => !filter || file.includes(filter));
  if (files.length === 0) return { files: 0, passed: 0, failed: 0, failures: [], note: filter ? `no test file matches "${filter}"` : 'no test files' };
  const total = { files: files.length, passed: 0, failed: 0, failures: [] };
  for (const [index, file] of files.entries()) {
    const tests = await runFile(file, signal);
    const failures = tests.filter((t) => !t.ok).map((t) => ({ test: t.name, message: t.message }));
    const passed = tests.length - failures.length;
    total.passed += passed;
    total.failed += failures.length;
    total.failures.push(...failures.map((f) => ({ file, ...f })));
    yield { file, done: index + 1, of: files.length, passed, failed: failures.length, ...(failures.length ? { failures } : {}) };
  }
  return total;
}

/** One file's top-level tests, from its own `node --test` process (killed if the job is stopped). */
function runFile(file, signal) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', file], {
      cwd: WORKSPACE,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'ignore'],
      signal,
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      if (output.length < MAX_OUTPUT) output += chunk;
    });
    child.on('error', reject);
    child.on('close', () => {
      const tests = [];
      for (const line of output.split('\n')) {
        try {
          const event = JSON.parse(line);
          if (event.nesting === 0) tests.push(event);
        } catch {
          // not one of the reporter's lines
        }
      }
      resolve(tests);
    });
  });
}
