import type { Diagnostic, DiagnosticSummary } from '../../catalog/diagnostic.js';
import type { SourceFile } from '../../catalog/source-file.js';
import type { Palette } from '../color.js';
import type { DiagnosticCode } from '../../catalog/diagnostic-codes.js';
import { DIAGNOSTIC_CODES, escapeInvisible } from '../../manager/facts.js';
import type { CatalogQuality } from '../../validate/description-quality.js';

export interface TextOptions {
  colors: Palette;
  /** Show a code frame under errors. */
  frames: boolean;
  sources: Map<string, SourceFile>;
  /**
   * Infos of one code past this many are counted instead of listed (description-quality advice
   * can be one per tool); --json and SARIF list them all. Default: all listed.
   */
  infosPerCode?: number;
  /** Which codes' infos may be counted instead of listed (default: all). */
  collapsible?: (code: string) => boolean;
}

/** `file:line:col severity CODE message`, one line per finding (Spectral/eslint-compact style). */
export function formatDiagnosticLine(d: Diagnostic, c: Palette): string {
  const severity = d.severity === 'error' ? c.red('error') : d.severity === 'warning' ? c.yellow('warning') : c.blue('info');
  return `${c.bold(`${d.file}:${d.line}:${d.column}`)} ${severity} ${c.dim(d.code)} ${d.message}`;
}

export function formatCodeFrame(source: SourceFile, d: Diagnostic, c: Palette): string[] {
  if (d.line < 1) return [];
  const out: string[] = [];
  const first = Math.max(1, d.line - 1);
  const width = String(d.line + 1).length;
  for (let line = first; line <= d.line + 1; line++) {
    const text = source.lineText(line);
    if (line > d.line && text.trim() === '') break;
    const marker = line === d.line ? c.red('>') : ' ';
    out.push(`  ${marker} ${c.dim(String(line).padStart(width) + ' |')} ${text}`);
    if (line === d.line) {
      const span = d.endLine === d.line && d.endColumn !== undefined ? Math.max(1, d.endColumn - d.column) : 1;
      const caretWidth = Math.min(span, Math.max(1, text.length - d.column + 1));
      out.push(`    ${' '.repeat(width)} ${c.dim('|')} ${' '.repeat(Math.max(0, d.column - 1))}${c.red('^'.repeat(caretWidth))}`);
    }
  }
  return out;
}

export function formatDiagnosticsText(diagnostics: readonly Diagnostic[], options: TextOptions): string {
  const lines: string[] = [];
  const shown = new Map<string, number>();
  const held = new Map<string, number>();
  for (const d of diagnostics) {
    if (d.severity === 'info' && options.infosPerCode !== undefined && (options.collapsible?.(d.code) ?? true)) {
      const count = (shown.get(d.code) ?? 0) + 1;
      shown.set(d.code, count);
      if (count > options.infosPerCode) {
        held.set(d.code, (held.get(d.code) ?? 0) + 1);
        continue;
      }
    }
    lines.push(formatDiagnosticLine(d, options.colors));
    const source = options.sources.get(d.file);
    // A file that is not a catalog (an include may name any file) is never quoted.
    if (options.frames && d.severity === 'error' && source?.quotable) lines.push(...formatCodeFrame(source, d, options.colors));
    if (d.hint) lines.push(`    ${options.colors.dim('hint:')} ${d.hint}`);
  }
  for (const [code, count] of held) lines.push(options.colors.dim(`… and ${count} more ${code} ${DIAGNOSTIC_CODES[code as DiagnosticCode]?.name ?? ''} (--json lists every finding; --rule ${code}=off hides them)`));
  return lines.length ? lines.join('\n') + '\n' : '';
}

export function formatSummary(summary: DiagnosticSummary, files: number, tools: number, c: Palette): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const counts = `${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')}, ${plural(summary.infos, 'info')}`;
  const scope = `${plural(tools, 'tool')} in ${plural(files, 'file')}`;
  if (summary.errors > 0) return `${c.red('✖')} ${counts} (${scope})\n`;
  if (summary.warnings > 0 || summary.infos > 0) return `${c.yellow('!')} ${counts} (${scope})\n`;
  return `${c.green('✔')} no problems (${scope})\n`;
}

/**
 * `description quality 68/100 over 126 tools; lowest: a 20, b 35, c 40`, for the summary. Names
 * tie-break by code unit: localeCompare would load ICU's collator, about 10 ms of a validate run.
 */
export function formatQuality(quality: CatalogQuality, c: Palette, suggestFlag = false): string {
  if (quality.score === null) return '';
  const lowest = [...quality.tools].sort((a, b) => a.score - b.score || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0)).filter((t) => t.score < 100).slice(0, 3);
  const colour = quality.score >= 80 ? c.green : quality.score >= 60 ? c.yellow : c.red;
  return `  description quality ${colour(`${quality.score}/100`)} over ${quality.tools.length} tool${quality.tools.length === 1 ? '' : 's'}${lowest.length ? `; lowest: ${lowest.map((t) => `${escapeInvisible(t.tool)} ${t.score}`).join(', ')}` : ''}${suggestFlag && lowest.length ? c.dim(' (--quality says what each lacks)') : ''}\n`;
}
