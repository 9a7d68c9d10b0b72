import { segmentsOf } from './diagnostic.js';
import type { DiagnosticCode } from './diagnostic-codes.js';
import { dottedPath, Reporter, type ReportOptions } from './reporter.js';
import type { Tool } from './types.js';
import { quoted } from './quoted-text.js';

/**
 * Reports findings about an MCP server's tool: the tool has no place in any file, so each finding
 * points at the server's entry (`mcp_servers: files:`), names the tool, and says where in the tool
 * (`parameters.properties.path`) the problem is. The checks use it as they use a file's reporter.
 */
export class ServerToolReporter extends Reporter {
  constructor(
    base: Reporter,
    private readonly tool: Tool & { source: { kind: 'mcp' } },
  ) {
    super(base.file, (base as ServerToolReporter).sink);
  }

  override report(code: DiagnosticCode, pointer: string, message: string, options: ReportOptions = {}): void {
    const entry = this.tool.source.pointer;
    const inside = pointer.startsWith(entry + '/') ? dottedPath(segmentsOf(pointer.slice(entry.length))) : '';
    const before = this.sink.length;
    const original = this.tool.source.tool === this.tool.name ? '' : ` (MCP name ${quoted(this.tool.source.tool)})`;
    // A server's tool has no text in the file to fix.
    const { fix: _fix, ...rest } = options;
    super.report(code, entry, inside ? `${inside}: ${message}` : message, { ...rest, part: 'key', subject: `mcp server ${quoted(this.tool.source.server)} tool ${quoted(this.tool.name)}${original}` });
    for (const diagnostic of this.sink.slice(before)) diagnostic.tool = this.tool.name;
  }
}
