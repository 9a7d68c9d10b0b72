import type { CliIO, ExitCode } from '../io.js';
import { checkFinishOptions, type FinishOptions } from './test-finish.js';

export interface MergeOptions extends FinishOptions {
  files: string[];
}

/**
 * `toolman test merge RESULTS...`: the `--json` of every shard of one run (`toolman test --shard
 * I/N --json`) joined into the results the unsharded run would have given, and reported like it:
 * text or --json, --junit, --html, --baseline (and --update-baseline), --history and
 * --quarantine-flaky. Exit codes as `toolman test`.
 */
export async function mergeCommand(options: MergeOptions, io: CliIO): Promise<ExitCode> {
  await checkFinishOptions(options, io.cwd);
  const { mergeResults } = await import('../../testing/results-document.js');
  const results = await mergeResults(options.files, io.cwd);
  const { finishResults } = await import('./test-finish.js');
  return finishResults(results, options, io);
}
