import type { ToolManager } from '../../manager/tool-manager.js';
import { colorEnabled, palette } from '../color.js';
import type { CliIO } from '../io.js';
import { plainText } from './terminal-text.js';
import { describeAge, describeToolsChange } from '../../manager/facts.js';
import type { McpToolsChange } from '../../mcp/tools-change.js';

/** One line per MCP server worth a word on stderr: unavailable (with why), or tools from a stale cache (with its age). */
export function reportMcpServers(io: CliIO, manager: ToolManager): void {
  const statuses = manager.mcpServers();
  if (statuses.length === 0) return;
  const c = palette(colorEnabled(io, io.stderr));
  for (const { tool, reason } of manager.leftOut) {
    io.stderr.write(`${c.yellow('toolman: warning:')} ${plainText(manager.secrets.redact(`MCP tool ${JSON.stringify(tool)} left out: ${reason}`))}\n  ${c.dim('toolman validate shows it; the rest of the catalog works')}\n`);
  }
  for (const { tool, reason } of manager.driftAccepted) {
    io.stderr.write(`${c.yellow('toolman: warning:')} ${plainText(manager.secrets.redact(`MCP tool ${JSON.stringify(tool)} is used as the server offers it now (--accept-drift): ${reason}`))}\n`);
  }
  for (const status of statuses) {
    if (status.source === 'unavailable') {
      io.stderr.write(`${c.yellow('toolman: warning:')} ${plainText(manager.secrets.redact(status.error ?? `MCP server "${status.name}" is unavailable`))}\n  ${c.dim(status.hint ? `its tools are missing until then: ${plainText(status.hint)}` : 'its tools are missing; the rest of the catalog works')}\n`);
    } else if (status.stale && status.ageMs !== undefined) {
      io.stderr.write(`${c.dim(`toolman: MCP server "${status.name}": tools from a cached list ${describeAge(status.ageMs)} old; --refresh asks the server again`)}\n`);
    }
  }
}


/** A server's tools changed since toolman last saw them: which, and how (a "rug pull" is never silent). */
export function reportMcpToolsChange(io: CliIO, change: McpToolsChange): void {
  const c = palette(colorEnabled(io, io.stderr));
  io.stderr.write(`${c.yellow('toolman: warning:')} ${plainText(describeToolsChange(change))}\n  ${c.dim('the new definitions are used from now on; check them with toolman show')}\n`);
}
