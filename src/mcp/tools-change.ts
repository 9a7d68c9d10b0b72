import type { Tool } from '../catalog/types.js';

/** What changed in one server's tools (list_changed, a live list that differs from the cached one, or a refreshed list). */
export interface McpToolsChange {
  server: string;
  added: string[];
  removed: string[];
  /** Tools whose definition (title, description, schema, annotations) changed. */
  changed: string[];
  /** For each changed tool, which of its parts did: what a model reads and acts on. */
  how: { tool: string; parts: ChangedPart[] }[];
  /** Names that collide with other tools and were left out. */
  problems: string[];
}

export type ChangedPart = 'title' | 'description' | 'schema' | 'annotations';

/** Which parts of a tool differ between two versions of it (a server's tool before and after). */
export function changedParts(before: Tool, after: Tool): ChangedPart[] {
  const parts: ChangedPart[] = [];
  if (before.title !== after.title) parts.push('title');
  if (before.description !== after.description) parts.push('description');
  if (JSON.stringify(before.parameters) !== JSON.stringify(after.parameters)) parts.push('schema');
  // Annotations become the effect, tags and hints: what the server says a tool does.
  if (before.effect !== after.effect || JSON.stringify(before.mcpHints ?? null) !== JSON.stringify(after.mcpHints ?? null) || JSON.stringify(before.tags) !== JSON.stringify(after.tags)) parts.push('annotations');
  return parts;
}

/** The change from `before` to `after` (a server's tools, by catalog name). */
export function toolsChange(server: string, before: ReadonlyMap<string, Tool>, after: ReadonlyMap<string, Tool>, problems: string[] = []): McpToolsChange {
  const how = [...after.keys()].flatMap((name) => {
    const old = before.get(name);
    const parts = old ? changedParts(old, after.get(name)!) : [];
    return parts.length ? [{ tool: name, parts }] : [];
  });
  return {
    server,
    added: [...after.keys()].filter((n) => !before.has(n)),
    removed: [...before.keys()].filter((n) => !after.has(n)),
    changed: how.map((h) => h.tool),
    how,
    problems,
  };
}

/** Whether a change says anything. */
export function isChange(change: McpToolsChange): boolean {
  return change.added.length + change.removed.length + change.changed.length + change.problems.length > 0;
}

/** `MCP server "files": tools added a, b; removed c; changed d (description, schema)`: one line for a driver to show. */
export function describeToolsChange(change: McpToolsChange): string {
  const list = (names: string[]) => (names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', '));
  const how = new Map((change.how ?? []).map((h) => [h.tool, h.parts]));
  const changed = change.changed.map((name) => (how.get(name)?.length ? `${name} (${how.get(name)!.join(', ')})` : name));
  const parts = [
    change.added.length ? `added ${list(change.added)}` : '',
    change.removed.length ? `removed ${list(change.removed)}` : '',
    changed.length ? `changed ${list(changed)}` : '',
    ...change.problems,
  ].filter(Boolean);
  return `MCP server "${change.server}": tools ${parts.join('; ') || 'unchanged'}`;
}
