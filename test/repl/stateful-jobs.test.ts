// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { describe, expect, it } from 'vitest';
import { replTestbed, type Harness } from './harness.js';

// The REPL shows a stateful tool's running job on its status line, each yield as it comes,
// between turns too, and drops it when the job ends.

const repl = replTestbed();
const flat = (h: Harness) => h.frame().replace(/\s+/g, ' ');

describe('a running stateful job', () => {
  it('is on the status line with its yields as they come, and leaves it when it ends', async () => {
    repl.server.script([
      { toolCalls: [{ name: 'run_tests', arguments: { count: 3, pause_ms: 250 } }], usage: { input: 100, output: 10 } },
      { text: 'The tests are running; the first file passed.', usage: { input: 150, output: 9 } },
    ]);
    const h = await repl.start({ catalog: 'test/fixtures/catalogs/stateful.yaml' });
    await h.send('run the tests');
    await h.idle();
    // The turn is over; the job goes on, and the status line follows it.
    expect(flat(h)).toMatch(/job_1 run_tests running: 1 yield/);
    await h.waitFor(() => /job_1 run_tests running: 2 yields \(1 unread\), latest \{"test":2,"passed":true\}/.test(flat(h)));
    await h.waitFor(() => !flat(h).includes('job_1 run_tests'), 3000);
  });
});
