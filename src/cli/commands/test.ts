import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { CliIO, ExitCode } from '../io.js';
import { checkFinishOptions, WHOLE_RUN_FLAGS } from './test-finish.js';
import { requireFolder, suitesHost, suitesRequest, type TestOptions } from './test-setup.js';

export type { TestOptions };

/**
 * `toolman test SUITE...`: runs each suite's cases with each provider through the live loop (or
 * a recording), checks the expectations, prints the report. Exit 1 when a case is under its
 * min_pass_rate, the whole run under --min-pass-rate, or a regression against --baseline; 2 when
 * runs could not run (no recording, the API failed): they are no verdict, not failures.
 */
export async function testCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  if (options.compare?.length) {
    const { compareCommand } = await import('./test-compare.js');
    return compareCommand(options, io);
  }
  if (options.suites.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'name at least one suite file', { hint: 'e.g. toolman -c catalogs/assistant.yaml test suites/assistant.yaml --replay suites/recordings' });
  if (options.coverage) {
    const { coverageCommand } = await import('./test-coverage.js');
    return coverageCommand(options, io);
  }
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  const request = await suitesRequest(options, io);
  if (request.shard) {
    if (!options.json) throw new ToolmanError(ErrorCode.USAGE, '--shard needs --json: a shard prints its runs for toolman test merge, and gives no verdict of its own', { hint: 'toolman test SUITE --shard 1/4 --json > shard-1.json' });
    for (const [flag, key] of WHOLE_RUN_FLAGS) if (options[key] !== undefined && options[key] !== false) throw new ToolmanError(ErrorCode.USAGE, `${flag} does not go with --shard: give it to toolman test merge, which sees every shard's runs`);
  }
  checkFinishOptions(options);
  if (options.replay) requireFolder(options.replay, io.cwd, '--replay');
  const host = suitesHost(io, true);
  const { preflight, runSuites } = await import('../../testing/run-suites.js');
  let outcomes;
  try {
    // A replay spends nothing and runSuites checks each suite against its catalog before its runs:
    // the preflight (keys, the cost estimate) is for live runs only.
    if (!request.replay) await preflight(request, host, [undefined]);
    outcomes = await runSuites(request, host);
  } finally {
    await host.close();
  }
  const { runPlan, reportOf } = await import('../../testing/results-document.js');
  const plan = runPlan(
    outcomes.map((o) => o.plan),
    { minPassRate: request.minPassRate, ...(request.sequential ? { sequential: request.sequential } : {}), ...(request.shard ? { shard: request.shard } : {}) },
  );
  // The report from the plan and the runs alone: what `toolman test merge` computes from the shards' runs.
  const results = { plan, suites: outcomes.map((o) => ({ plan: o.plan, report: reportOf(plan, o.plan, o.results), runs: o.results })) };
  const { finishResults } = await import('./test-finish.js');
  return finishResults(results, options, io, { interrupted: options.signal?.aborted === true, stopped: outcomes.reduce((n, o) => n + o.interrupted, 0) });
}

