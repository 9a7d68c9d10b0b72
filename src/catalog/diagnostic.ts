import type { DiagnosticCode, Severity } from './diagnostic-codes.js';

/** A change of a file's text: replace [start, end) (character offsets) by `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The change a finding's hint names, as edits of the finding's file (`validate --fix`). */
export interface Fix {
  /** What it changes, in words: `rename "descripton" to "description"`. */
  description: string;
  edits: TextEdit[];
}

/** One finding about a catalog, pointing at the YAML node it concerns. */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** Path as given by the user (relative paths stay relative). */
  file: string;
  /** 1-based; 0 when the file could not be read at all. */
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  /** JSON Pointer into the file's document. */
  pointer: string;
  tool?: string;
  hint?: string;
  /** The mechanical fix the hint names, when there is one. */
  fix?: Fix;
}

export interface DiagnosticSummary {
  errors: number;
  warnings: number;
  infos: number;
}

export function summarize(diagnostics: readonly Diagnostic[]): DiagnosticSummary {
  const summary = { errors: 0, warnings: 0, infos: 0 };
  for (const d of diagnostics) {
    if (d.severity === 'error') summary.errors++;
    else if (d.severity === 'warning') summary.warnings++;
    else summary.infos++;
  }
  return summary;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Stable order: by file, then position, then severity and code. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}

/** JSON Pointer (RFC 6901) helpers. */
export function pointerOf(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function segmentsOf(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
