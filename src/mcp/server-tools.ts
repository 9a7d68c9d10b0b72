import { buildTool } from '../catalog/build-tool.js';
import { matchesPattern, parsePattern, type ParsedPattern } from '../catalog/tool-patterns.js';
import type { McpServerConfig, Tool } from '../catalog/types.js';
import { importTools } from '../import/import-tools.js';
import { isRecord } from '../shared/is-record.js';
import { plainText, plainValue } from '../shared/plain-text.js';

/** Longer descriptions are cut: a server must not make every request pay for a novel. */
export const MAX_MCP_DESCRIPTION_CHARS = 8_000;
const MAX_MCP_TITLE_CHARS = 200;

/** Something about one server tool worth telling the user (skipped, cut), for TM0804. */
export interface ServerToolNote {
  tool: string;
  message: string;
}

export interface ServerTools {
  tools: Tool[];
  notes: ServerToolNote[];
}


/**
 * One server's tools (as `tools/list` gave them) as catalog tools, through the importer's MCP
 * conversion: provider-safe names (after the server's `prefix`), annotations mapped with the MCP
 * specification's defaults, schemas normalised and bounded. Text is untrusted: titles and
 * descriptions lose control sequences and are cut to a size. The server's `defaults` fill what
 * the tool does not say (an explicit readOnlyHint or destructiveHint wins over `defaults.effect`;
 * with neither, `defaults.effect`, else MCP's default: destructive). `include` / `exclude` match
 * the catalog name or the server's own name. Catalog overrides and name collisions are the
 * caller's (they need the whole catalog).
 */
export function serverTools(config: McpServerConfig, listed: readonly unknown[], catalogFile: string): ServerTools {
  const notes: ServerToolNote[] = [];
  const entries: Record<string, unknown>[] = [];
  const originals: string[] = [];
  listed.forEach((raw, index) => {
    if (!isRecord(raw) || typeof raw.name !== 'string' || raw.name.trim() === '') {
      notes.push({ tool: `#${index}`, message: `tools/list entry ${index} is not a tool with a name; skipped` });
      return;
    }
    const { entry, note } = cleanListedTool(raw as Record<string, unknown> & { name: string });
    if (note) notes.push({ tool: entry.name as string, message: note });
    entries.push({ ...entry, name: config.prefix + (entry.name as string) });
    originals.push(raw.name);
  });
  const imported = importTools(entries, { from: 'mcp' });
  for (const skipped of imported.skipped) notes.push({ tool: originals[skipped.index] ?? `#${skipped.index}`, message: `skipped: ${skipped.reason}` });
  const byPrefixed = new Map(entries.map((entry, i) => [entry.name as string, { original: originals[i]!, annotations: entry.annotations }]));

  const include = patterns(config.include);
  const exclude = patterns(config.exclude);
  const tools: Tool[] = [];
  for (const { entry, original: prefixed } of imported.tools) {
    const { original, annotations } = byPrefixed.get(prefixed) ?? { original: prefixed, annotations: undefined };
    const explicit = isRecord(annotations) && (typeof annotations.readOnlyHint === 'boolean' || typeof annotations.destructiveHint === 'boolean');
    const raw: Record<string, unknown> = { ...entry, aliases: undefined };
    if (!explicit) raw.effect = config.defaults.effect ?? 'destructive';
    const hintTags = Array.isArray(entry.tags) ? (entry.tags as string[]) : [];
    raw.tags = [...new Set([...(config.defaults.tags ?? []), ...hintTags])];
    const tool = buildTool(raw, config.defaults, { kind: 'mcp', server: config.name, tool: original, file: config.file, pointer: config.pointer }, catalogFile);
    tool.handler = { kind: 'mcp', server: config.name, tool: original };
    if (isRecord(annotations)) {
      const hints = { ...(typeof annotations.openWorldHint === 'boolean' ? { openWorld: annotations.openWorldHint } : {}), ...(typeof annotations.idempotentHint === 'boolean' ? { idempotent: annotations.idempotentHint } : {}) };
      if (Object.keys(hints).length) tool.mcpHints = hints;
    }
    const named = (list: ParsedPattern[]) => list.some((p) => matchesPattern(tool, p) || matchesPattern({ ...tool, name: original }, p));
    if (include.length > 0 && !named(include)) continue;
    if (named(exclude)) continue;
    tools.push(tool);
  }
  return { tools, notes };
}

/**
 * One `tools/list` entry with its text made safe: name, titles and description without control
 * sequences or invisible characters (zero-width, directional marks, Unicode tags: text the model
 * reads and the user cannot see), and the same for every string of its schema and annotations;
 * the description cut to MAX_MCP_DESCRIPTION_CHARS. `note` says what was removed or cut. Only the
 * fields toolman reads are kept (name, title, description, inputSchema, outputSchema, annotations).
 */
export function cleanListedTool(raw: Record<string, unknown> & { name: string }): { entry: Record<string, unknown>; note?: string } {
  const notes: string[] = [];
  const texts = [raw.name, raw.title, raw.description, isRecord(raw.annotations) ? raw.annotations.title : undefined];
  const schema = plainValue(raw.inputSchema);
  const annotations = isRecord(raw.annotations) ? plainValue(raw.annotations) : undefined;
  if (texts.some((t) => typeof t === 'string' && plainText(t) !== t) || schema.changed || annotations?.changed) {
    notes.push('invisible or control characters (zero-width, directional marks, Unicode tags, escapes) removed from its text');
  }
  const output = raw.outputSchema !== undefined ? plainValue(raw.outputSchema) : undefined;
  if (output?.changed && !notes.length) notes.push('invisible or control characters (zero-width, directional marks, Unicode tags, escapes) removed from its text');
  const entry: Record<string, unknown> = { name: plainText(raw.name).trim(), inputSchema: schema.value, ...(output ? { outputSchema: output.value } : {}) };
  if (typeof raw.title === 'string') entry.title = plainText(raw.title).slice(0, MAX_MCP_TITLE_CHARS);
  if (annotations) entry.annotations = typeof annotations.value.title === 'string' ? { ...annotations.value, title: annotations.value.title.slice(0, MAX_MCP_TITLE_CHARS) } : annotations.value;
  if (typeof raw.description === 'string') {
    const description = plainText(raw.description);
    entry.description = description.slice(0, MAX_MCP_DESCRIPTION_CHARS);
    if (description.length > MAX_MCP_DESCRIPTION_CHARS) notes.push(`its description has ${description.length} characters; cut to ${MAX_MCP_DESCRIPTION_CHARS}`);
  }
  return notes.length ? { entry, note: notes.join('; ') } : { entry };
}

function patterns(texts: readonly string[]): ParsedPattern[] {
  return texts.map(parsePattern).flatMap((p) => (p.ok ? [p.pattern] : []));
}
