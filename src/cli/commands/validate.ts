import type { Diagnostic } from '../../catalog/diagnostic.js';
import { sortDiagnostics, summarize } from '../../manager/facts.js';
import type { SourceFile } from '../../catalog/source-file.js';
import { ErrorCode, isToolmanError, ToolmanError } from '../../shared/errors.js';
import { closest } from '../../shared/did-you-mean.js';
import { catalogPaths } from '../catalog-paths.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { clientDiagnostics, CLIENTS, parseRuleOptions, UNDOCUMENTED_CLIENTS } from '../../manager/lint.js';
import type { CatalogQuality, ToolQuality } from '../../validate/description-quality.js';
import { formatDiagnosticsText, formatJudge, formatQuality, formatSummary } from '../output/diagnostics-text.js';
import { toolmanVersion } from '../../shared/package-root.js';
import { jsonDocument } from '../output/json-document.js';

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
  /** MCP clients to check the catalog against (`--client vscode`), besides the catalog's `lint.clients`. */
  client?: string[];
  /** Exit 1 when there are more warnings than this (ESLint's --max-warnings). */
  maxWarnings?: string;
  /** Apply the fixes findings name, to the files, and report what remains. */
  fix?: boolean;
  /** Turn the description-quality rules (TM1101-TM1105, off by default) on for this run. */
  quality?: boolean;
  /** `PROVIDER:MODEL`: a model grades each tool's description with its siblings in view. */
  judge?: string;
  /** The judge's conversation, written to this file (as `chat --record`). */
  record?: string;
  /** The judge answered from this recording: no network, no key. */
  replay?: string;
}

const QUALITY_RULES = ['TM1101', 'TM1102', 'TM1103', 'TM1104', 'TM1105'] as const;

/** Description-quality infos listed per code in text output before the rest are counted. */
const QUALITY_INFOS_SHOWN = 5;

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
  // --quality: every description-quality rule the run did not set otherwise, as an info.
  if (options.quality) for (const code of QUALITY_RULES) if (!rules.has(code)) rules.set(code, 'info');
  const clients = parseClients(options.client ?? []);
  const qualityShown = format !== 'text' || !options.quiet || options.judge !== undefined || options.record !== undefined || options.replay !== undefined;
  const maxWarnings = parseMaxWarnings(options.maxWarnings);
  // The judge's flags are checked (and a --replay read) before anything is opened or paid for.
  const judge = options.judge !== undefined || options.record !== undefined || options.replay !== undefined ? (await import('./validate-judge.js')).judgeSetup(options, roots, io) : undefined;
  // Fixes first, then the run that reports what remains.
  const fixed = options.fix ? await (await import('./validate-fix.js')).fixCatalogs(roots, rules, io) : undefined;
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const sources = new Map<string, SourceFile>();
  const graded: (ToolQuality & { catalog: string })[] = [];
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
        // Plugins load only here (and when their tools run): their configs are checked against the
        // schemas they export. Their workers start now; validate() waits for what they find.
        manager.checkPlugins();
        // `--quiet` text shows no quality: not graded then (about 5% of a run at 50,000 tools).
        const rootGraded = qualityShown ? (await manager.qualityGrades()).map((tool) => ({ ...tool, catalog: root.join(', ') })) : [];
        diagnostics.push(...(await manager.validate(rules)));
        // Clients the catalog already names were checked with it.
        const named = new Set(manager.catalog.lintClients.map((c) => c.name));
        diagnostics.push(...(await clientDiagnostics(manager.loaded, clients.filter((c) => !named.has(c)), rules)));
        for (const file of manager.catalog.files) if (!files.includes(file)) files.push(file);
        for (const [path, source] of manager.loaded.sources) sources.set(path, source);
        tools += manager.catalog.tools.length;
        await judge?.grade(manager, rootGraded);
        graded.push(...rootGraded);
      }, { requireValid: false, lock: 'off', ...(options.locked ? { refreshMcp: true } : {}) });
    } catch (error) {
      if (!isToolmanError(error)) throw error;
      unreadable ??= { code: error.code, file: root.join(', '), message: error.message, ...(error.hint ? { hint: error.hint } : {}), exit: EXIT.USAGE };
    }
  }
  sortDiagnostics(diagnostics);
  const summary = summarize(diagnostics);
  const judged = judge?.summary(graded);
  const quality: CatalogQuality = { score: graded.length ? Math.round(graded.reduce((sum, t) => sum + t.score, 0) / graded.length) : null, tools: graded, ...(judged ? { judge: judged } : {}) };
  const tooManyWarnings = maxWarnings !== undefined && summary.warnings > maxWarnings;
  const failed = summary.errors > 0 || (options.strict === true && summary.warnings > 0) || tooManyWarnings;
  const ok = !failed && unreadable === undefined;

  if (format === 'json') {
    const document: Record<string, unknown> = { ok, files, diagnostics, summary, quality };
    if (fixed) Object.assign(document, { fixed: fixed.applied, not_fixed: fixed.refused });
    if (unreadable) document.error = unreadable;
    io.stdout.write(jsonDocument(document) + '\n');
  } else if (format === 'sarif') {
    const { toSarif } = await import('../output/diagnostics-sarif.js');
    io.stdout.write(jsonDocument(toSarif(diagnostics, toolmanVersion(), quality)) + '\n');
  } else {
    const colors = palette(colorEnabled(io, io.stdout));
    if (fixed) {
      for (const f of fixed.applied) io.stdout.write(`${colors.bold(`${f.file}:${f.line}:${f.column}`)} ${colors.green('fixed')} ${colors.dim(f.code)} ${f.description}\n`);
      for (const r of fixed.refused) io.stdout.write(`${colors.bold(r.file)} ${colors.yellow('not fixed')}: ${r.reason}\n`);
      io.stdout.write(`${fixed.applied.length} fix${fixed.applied.length === 1 ? '' : 'es'} applied${fixed.refused.length ? `, ${fixed.refused.length} file${fixed.refused.length === 1 ? '' : 's'} not written` : ''}\n`);
    }
    const shown = options.quiet ? diagnostics.filter((d) => d.severity === 'error') : diagnostics;
    io.stdout.write(formatDiagnosticsText(shown, { colors, frames: options.frames !== false, sources, infosPerCode: QUALITY_INFOS_SHOWN, collapsible: (code) => code.startsWith('TM11') }));
    if (files.length > 0) {
      io.stdout.write(formatSummary(summary, files.length, tools, colors));
      if (!options.quiet) io.stdout.write(formatQuality(quality, colors, !options.quality) + formatJudge(quality, colors));
      if (tooManyWarnings) io.stdout.write(`${colors.red('✖')} ${summary.warnings} warnings, more than --max-warnings ${maxWarnings}\n`);
    }
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

/** `--client NAME` (repeatable): a client with documented limits; any other name is a usage error that says why. */
function parseClients(names: readonly string[]): string[] {
  const known = CLIENTS.map((c) => c.name);
  for (const name of names) {
    if (known.includes(name)) continue;
    const undocumented = UNDOCUMENTED_CLIENTS[name.toLowerCase()];
    if (undocumented) throw new ToolmanError(ErrorCode.USAGE, `--client ${name}: toolman has no documented limits for it: ${undocumented}`, { hint: `clients with documented limits: ${known.join(', ')} (docs/diagnostics.md, "Client limits")` });
    const suggestion = closest(name, [...known, ...Object.keys(UNDOCUMENTED_CLIENTS)]);
    throw new ToolmanError(ErrorCode.USAGE, `--client ${JSON.stringify(name)} is not a client toolman knows` + (suggestion ? `; did you mean "${suggestion}"?` : ''), { hint: `clients: ${known.join(', ')}` });
  }
  return [...new Set(names)];
}

function parseMaxWarnings(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ToolmanError(ErrorCode.USAGE, `--max-warnings ${JSON.stringify(value)} is not a number of warnings (0 or more)`);
  return n;
}
