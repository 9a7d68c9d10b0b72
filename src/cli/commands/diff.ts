import { join, resolve } from 'node:path';
import { ToolManager } from '../../manager/tool-manager.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { CompareOverall } from '../../testing/compare-runs.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';

export interface DiffOptions {
  old: string;
  new: string;
  json?: boolean;
  format?: 'text' | 'json' | 'markdown';
  /** Suites to replay on both versions: recordings under DIR/A (old) and DIR/B (new), as `test --compare OLD NEW --record DIR` makes them. */
  suite?: string[];
  replay?: string;
  strict?: boolean;
  signal?: AbortSignal;
}

/**
 * `toolman diff OLD NEW`: what changed between two versions of a catalog, as text, JSON or a
 * Markdown comment for a pull request. Exit 0; with --strict, exit 1 on a breaking change; with
 * --suite, exit 2 when some run could not be replayed (told on stderr).
 */
export async function diffCommand(options: DiffOptions, io: CliIO): Promise<ExitCode> {
  const format = options.json ? 'json' : (options.format ?? 'text');
  if (options.suite?.length && !options.replay) throw new ToolmanError(ErrorCode.USAGE, '--suite needs --replay DIR (recordings of both versions, under DIR/A and DIR/B)', { hint: 'make them with: toolman test SUITE --compare OLD NEW --record DIR' });
  const open = (file: string) => ToolManager.open({ catalogs: [file], cwd: io.cwd, env: io.env });
  const [before, after] = await Promise.all([open(options.old), open(options.new)]);
  try {
    const { diffCatalogs } = await import('../../testing/catalog-diff.js');
    const diff = await diffCatalogs(before, after);
    let passRates: CompareOverall[] | undefined;
    let errored = false;
    if (options.suite?.length) {
      const { requireFolder, suitesHost, suitesRequest } = await import('./test-setup.js');
      const { preflight, runSuites } = await import('../../testing/run-suites.js');
      const { compareRuns, parseVariant } = await import('../../testing/compare-runs.js');
      const a = parseVariant(resolve(io.cwd, options.old), 'A');
      const b = parseVariant(resolve(io.cwd, options.new), 'B');
      const request = await suitesRequest({ suites: options.suite, replay: options.replay!, ...(options.signal ? { signal: options.signal } : {}) }, io);
      for (const label of ['', 'A', 'B']) requireFolder(join(options.replay!, label), io.cwd, '--replay');
      await preflight(request, suitesHost(io), [a, b]);
      // Progress lines stay out of a diff's output; errors are told below.
      const quiet = suitesHost({ ...io, stderr: { write: () => true } });
      const [ra, rb] = [await runSuites(request, quiet, a), await runSuites(request, quiet, b)];
      const comparison = compareRuns(a, b, ra.map((o) => ({ suite: o.suite.name, results: o.results })), rb.map((o) => ({ suite: o.suite.name, results: o.results })));
      passRates = comparison.overall;
      const { reportErrors } = await import('./test-compare.js');
      errored = reportErrors(comparison, io);
    }
    if (format === 'json') io.stdout.write(JSON.stringify({ ...diff, ...(passRates ? { pass_rate: passRates } : {}) }, null, 2) + '\n');
    else {
      const { renderDiff } = await import('../output/diff-report.js');
      io.stdout.write(renderDiff(diff, passRates, format === 'markdown'));
    }
    // Runs that could not run are no verdict, as in `test` and `test --compare`.
    if (errored) return EXIT.USAGE;
    return options.strict && diff.breaking ? EXIT.FAILURE : EXIT.OK;
  } finally {
    await Promise.all([before.close(), after.close()]);
  }
}
