import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatLoop } from '../../src/loop/chat-loop.js';
import type { GradedTurn, RubricGrader } from '../../src/loop/turn-evaluations.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { createModelClient } from '../../src/providers/model-clients.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

// A turn that reads a stateful job with job_next used the job's tool: the tool's answer checks
// run after it, and a rubric's grader sees what the model read, under the tool's name.

let server: ModelServer;
let manager: ToolManager;
const dir = mkdtempSync(join(tmpdir(), 'toolman-stateful-evaluations-'));
beforeAll(async () => {
  server = await startModelServer();
  writeFileSync(
    join(dir, 'toolman.yaml'),
    `toolman: 1
evaluations:
  reports_outcome: { description: The answer says how the run went., regex: "pass|fail" }
  grounded: { description: Only what the run reported., rubric: The answer states only what the test run reported. }
tools:
  - name: run_checks
    description: Run the checks one by one, reporting each as it finishes.
    effect: read
    mode: stateful
    evaluation: [reports_outcome, grounded]
    handler:
      mock: [{ yields: [{ check: 1, passed: true }, { check: 2, passed: true }], result: { passed: 2, failed: 0 } }]
`,
  );
  manager = await ToolManager.open({ catalogs: ['toolman.yaml'], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
});
afterAll(async () => {
  await server.close();
  await manager.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('answer checks of a stateful tool', () => {
  it('run after a later turn that only read its job with job_next, and the grader sees what was read', async () => {
    const seen: GradedTurn[] = [];
    const grade: RubricGrader = async (_definition, turn) => {
      seen.push(turn);
      return { verdict: 'pass' };
    };
    const client = await createModelClient('openai', 'test-model', { apiKey: 'test', baseUrl: `${server.url}/v1` });
    // Counted job ids, as a conversation's session has them.
    const loop = new ChatLoop({ client, session: await manager.session({ jobIds: 'counted' }), estimate: 'never', grade });
    server.script([{ toolCalls: [{ name: 'run_checks', arguments: {} }] }, { text: 'The checks are running.' }]);
    const first = await loop.run('Run the checks');
    expect(first.evaluations.map((v) => [v.name, v.verdict])).toEqual([
      ['reports_outcome', 'fail'],
      ['grounded', 'pass'],
    ]);
    server.script([{ toolCalls: [{ name: 'job_next', arguments: { job_id: 'job_1', until: 'end', wait_ms: 5000 } }] }, { text: 'Both checks pass.' }]);
    const second = await loop.run('How did they go?');
    expect(second.calls.map((c) => [c.tool, c.ok])).toEqual([['job_next', true]]);
    expect(second.evaluations).toEqual([
      { name: 'reports_outcome', verdict: 'pass', on: 'answer', tools: ['run_checks'] },
      { name: 'grounded', verdict: 'pass', on: 'answer', tools: ['run_checks'] },
    ]);
    expect(seen[1]!.results).toEqual([{ tool: 'run_checks', content: expect.stringContaining('"result":{"passed":2,"failed":0}') }]);
  });
});
