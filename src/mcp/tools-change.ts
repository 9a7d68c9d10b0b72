/** What changed in one server's tools (list_changed, or a live list that differs from the cache). */
export interface McpToolsChange {
  server: string;
  added: string[];
  removed: string[];
  /** Tools whose definition (description, schema, annotations) changed. */
  changed: string[];
  /** Names that collide with other tools and were left out. */
  problems: string[];
}

/** `server "files": tools added a, b; removed c`: one line for a driver to show. */
export function describeToolsChange(change: McpToolsChange): string {
  const list = (names: string[]) => (names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', '));
  const parts = [
    change.added.length ? `added ${list(change.added)}` : '',
    change.removed.length ? `removed ${list(change.removed)}` : '',
    change.changed.length ? `changed ${list(change.changed)}` : '',
    ...change.problems,
  ].filter(Boolean);
  return `MCP server "${change.server}": tools ${parts.join('; ') || 'unchanged'}`;
}
