import type { Diagnostic, Fix } from './diagnostic.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode, type Severity } from './diagnostic-codes.js';
import type { SourceFile } from './source-file.js';
import { quoted } from './quoted-text.js';

export interface ReportOptions {
  /** Point at the key of a mapping entry rather than its value. */
  part?: 'key' | 'value';
  hint?: string;
  severity?: Severity;
  /** Overrides the subject prefix derived from the pointer. */
  subject?: string;
  /** The fix the hint names (edits of this file's text). */
  fix?: Fix;
}

/**
 * Turns (code, pointer, message) into located diagnostics for one file, prefixing each message
 * with what it is about (`tools[3] "search": ...`).
 */
export class Reporter {
  constructor(
    readonly file: SourceFile,
    protected readonly sink: Diagnostic[],
  ) {}

  report(code: DiagnosticCode, pointer: string, message: string, options: ReportOptions = {}): void {
    const span = this.file.locate(pointer, options.part);
    const { subject, tool } = this.subjectOf(pointer);
    const prefix = options.subject === undefined ? subject : options.subject || undefined;
    const diagnostic: Diagnostic = {
      code,
      severity: options.severity ?? DIAGNOSTIC_CODES[code].severity,
      message: prefix ? `${prefix}: ${message}` : message,
      file: this.file.path,
      line: span.line,
      column: span.column,
      endLine: span.endLine,
      endColumn: span.endColumn,
      pointer,
    };
    if (tool !== undefined) diagnostic.tool = tool;
    if (options.hint !== undefined) diagnostic.hint = options.hint;
    // Only text the author wrote is fixed: not a server's tool (reported at its entry), not a file that is not a catalog.
    if (options.fix !== undefined && this.file.quotable) diagnostic.fix = options.fix;
    this.sink.push(diagnostic);
  }

  private subjectOf(pointer: string): { subject?: string; tool?: string } {
    const data = this.file.data as Record<string, unknown> | null;
    let match = /^\/tools\/(\d+)(?:\/|$)/.exec(pointer);
    if (match) {
      const index = Number(match[1]);
      const entry = Array.isArray(data?.tools) ? (data.tools[index] as Record<string, unknown> | undefined) : undefined;
      const name = typeof entry?.name === 'string' ? entry.name : undefined;
      return name === undefined ? { subject: `tools[${index}]` } : { subject: `tools[${index}] ${quoted(name)}`, tool: name };
    }
    match = /^\/(profiles|agents|mcp_servers)\/([^/]+)(?:\/|$)/.exec(pointer);
    if (match) {
      const name = match[2]!.replace(/~1/g, '/').replace(/~0/g, '~');
      const kind = { profiles: 'profile', agents: 'agent', mcp_servers: 'mcp server' }[match[1] as 'profiles'];
      return match[1] === 'agents' ? { subject: `${kind} ${quoted(name)}`, tool: name } : { subject: `${kind} ${quoted(name)}` };
    }
    match = /^\/policies\/(\d+)(?:\/|$)/.exec(pointer);
    if (match) {
      const entry = Array.isArray(data?.policies) ? (data.policies[Number(match[1])] as Record<string, unknown> | undefined) : undefined;
      const label = typeof entry?.label === 'string' ? ` ${quoted(entry.label)}` : '';
      return { subject: `policies[${match[1]}]${label}` };
    }
    return {};
  }
}

/** Display path of a pointer inside a tool: `/tools/3/parameters/required/0` -> `parameters.required[0]`. */
export function dottedPath(segments: readonly string[]): string {
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  return out;
}
