import type { Diagnostic } from '../../catalog/diagnostic.js';
import { summarize } from '../../manager/facts.js';
import type { SourceFile } from '../../catalog/source-file.js';
import { isToolmanError } from '../../shared/errors.js';
import { catalogPaths } from '../catalog-paths.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { parseRuleOptions } from '../../manager/documents.js';
import '../../manager/preload-checks.js';
import { formatDiagnosticsText, formatSummary } from '../output/diagnostics-text.js';
import { toolmanVersion } from '../version.js';

export interface ValidateOptions {
  files: string[];
  catalog?: string[];
  json?: boolean;
  format?: string;
  strict?: boolean;
  quiet?: boolean;
  frames?: boolean;
  rule?: string[];
  /** Also check the MCP servers' tools against toolman.lock (asking each server for its list). */
  locked?: boolean;
}

/**
 * `toolman validate [FILE...]`: each file is checked as its own root catalog (with everything it
 * includes), so example catalogs that reuse tool names can be checked in one run.
 */
export async function validateCommand(options: ValidateOptions, io: CliIO): Promise<ExitCode> {
  const format = options.json ? 'json' : (options.format ?? 'text');
  // Positional files are separate roots; --catalog files (or ./toolman.yaml) form one catalog,
  // as they do for every other command.
  const roots = options.files.length > 0 ? options.files.map((file) => [file]) : [catalogPaths(io.cwd, options.catalog)];
  const rules = parseRuleOptions(options.rule ?? []);
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const sources = new Map<string, SourceFile>();
  let tools = 0;
  // Shaped as every command's --json error ({code, message, hint, exit}), with the file it is about.
  let unreadable: { code: string; file: string; message: string; hint?: string; exit: ExitCode } | undefined;
  for (const root of roots) {
    try {
      await withManager(io, root, async (manager) => {
        if (options.locked) {
          const [{ addLockFindings }, { parameterChanges }] = await Promise.all([import('../../manager/lock.js'), import('../../testing/parameter-changes.js')]);
          addLockFindings(manager, parameterChanges);
        }
        // Plugins load only here (and when their tools run): their configs are checked against the schemas they export.
        await manager.checkPlugins();
        diagnostics.push(...(await manager.validate(rules)));
        for (const file of manager.catalog.files) if (!files.includes(file)) files.push(file);
        for (const [path, source] of manager.loaded.sources) sources.set(path, source);
        tools += manager.catalog.tools.length;
      }, { requireValid: false, lock: 'off', ...(options.locked ? { refreshMcp: true } : {}) });
    } catch (error) {
      if (!isToolmanError(error)) throw error;
      unreadable ??= { code: error.code, file: root.join(', '), message: error.message, ...(error.hint ? { hint: error.hint } : {}), exit: EXIT.USAGE };
    }
  }
  const summary = summarize(diagnostics);
  const failed = summary.errors > 0 || (options.strict === true && summary.warnings > 0);
  const ok = !failed && unreadable === undefined;

  if (format === 'json') {
    const document: Record<string, unknown> = { ok, files, diagnostics, summary };
    if (unreadable) document.error = unreadable;
    io.stdout.write(JSON.stringify(document, null, 2) + '\n');
  } else if (format === 'sarif') {
    const { toSarif } = await import('../output/diagnostics-sarif.js');
    io.stdout.write(JSON.stringify(toSarif(diagnostics, toolmanVersion()), null, 2) + '\n');
  } else {
    const colors = palette(colorEnabled(io, io.stdout));
    const shown = options.quiet ? diagnostics.filter((d) => d.severity === 'error') : diagnostics;
    io.stdout.write(formatDiagnosticsText(shown, { colors, frames: options.frames !== false, sources }));
    if (files.length > 0) io.stdout.write(formatSummary(summary, files.length, tools, colors));
  }
  if (unreadable) {
    if (format === 'text') {
      const c = palette(colorEnabled(io, io.stderr));
      io.stderr.write(`${c.red('toolman: error:')} ${unreadable.message}\n${unreadable.hint ? `  hint: ${unreadable.hint}\n` : ''}`);
    }
    return EXIT.USAGE;
  }
  return failed ? EXIT.FAILURE : EXIT.OK;
}
