import type { Diagnostic, DiagnosticSummary } from '../../catalog/diagnostic.js';
import type { SourceFile } from '../../catalog/source-file.js';
import type { Palette } from '../color.js';

export interface TextOptions {
  colors: Palette;
  /** Show a code frame under errors. */
  frames: boolean;
  sources: Map<string, SourceFile>;
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
  for (const d of diagnostics) {
    lines.push(formatDiagnosticLine(d, options.colors));
    const source = options.sources.get(d.file);
    // A file that is not a catalog (an include may name any file) is never quoted.
    if (options.frames && d.severity === 'error' && source?.quotable) lines.push(...formatCodeFrame(source, d, options.colors));
    if (d.hint) lines.push(`    ${options.colors.dim('hint:')} ${d.hint}`);
  }
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
