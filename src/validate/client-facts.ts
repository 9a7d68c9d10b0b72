/**
 * What MCP clients accept, as their makers document it: the most tools a client offers a model at
 * once, and the schema quirks that make a client drop or change a tool. Only facts with a source
 * are here; docs/diagnostics.md ("Client limits") lists each with its source and the date read,
 * and the clients left out for want of a documented figure.
 */
export interface ClientFacts {
  /** The name `--client` and `lint.clients` take. */
  name: string;
  label: string;
  /** Tools offered to the model at once; more are refused or dropped. */
  maxTools?: number;
  /** What happens past the cap, and where it is documented. */
  maxToolsSource?: string;
  /** VS Code: a tool without a description is sent as "<empty>" (source: microsoft/vscode mcpServer.ts). */
  emptyDescription?: string;
}

export const CLIENTS: readonly ClientFacts[] = [
  {
    name: 'vscode',
    label: 'VS Code (GitHub Copilot Chat)',
    maxTools: 128,
    maxToolsSource: '"A chat request can have a maximum of 128 tools enabled at a time" (code.visualstudio.com/learn/agents/1-using-tools-with-agents, approved 2026-05-21, read 2026-11-24)',
    emptyDescription: 'VS Code sends a tool without a description as "<empty>" (microsoft/vscode, src/vs/workbench/contrib/mcp/common/mcpServer.ts, _normalizeTool, read 2026-11-24)',
  },
  {
    name: 'windsurf',
    label: 'Windsurf (Cascade)',
    maxTools: 100,
    maxToolsSource: '"Cascade has a limit of 100 total tools that it has access to at any given time" (docs.windsurf.com/windsurf/cascade/mcp, now docs.devin.ai/desktop/cascade/mcp, read 2026-11-24)',
  },
];

/**
 * Clients toolman knows but has no documented figure for, and why: `--client` with one of these
 * names says so instead of guessing.
 */
export const UNDOCUMENTED_CLIENTS: Record<string, string> = {
  cursor:
    "Cursor's documentation once said it sends only the first 40 tools (docs.cursor.com, 2025); its current MCP page (cursor.com/docs/mcp) gives no figure since agents load MCP tools on demand (Cursor 2.4, 2026-01-22), so toolman checks no cap",
  jetbrains: "JetBrains AI Assistant's MCP documentation gives no tool cap that toolman could find",
  'claude-desktop': "Claude Desktop's documentation gives no tool cap that toolman could find",
};

export function clientFacts(name: string): ClientFacts | undefined {
  return CLIENTS.find((c) => c.name === name);
}
