import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';

/**
 * The fields of an MCP tool that toolman.lock pins: what a model is shown (name, title,
 * description, input schema) and what toolman and MCP clients decide by (output schema,
 * annotations). A server that changes any of them changes the tool under its users; other fields
 * (`_meta`, `execution`, icons) change neither what a model reads nor how toolman runs it.
 */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** One tool as its server listed it, reduced to the pinned fields, values as the server sent them. */
export type ToolDefinition = { name: string } & Partial<Record<Exclude<PinnedField, 'name'>, unknown>>;

/** The pinned fields of one `tools/list` entry (absent ones stay absent). */
export function toolDefinition(listed: Record<string, unknown> & { name: string }): ToolDefinition {
  const definition: ToolDefinition = { name: listed.name };
  for (const field of PINNED_FIELDS) if (field !== 'name' && listed[field] !== undefined) definition[field] = listed[field];
  return definition;
}

/** `sha256:<hex>` of the definition's canonical JSON (sorted keys), so key order never counts as a change. */
export function definitionHash(definition: ToolDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
}

/** A `tools/list` entry with a name, or undefined (an entry that is not a tool is no tool to pin). */
export function listedTool(entry: unknown): (Record<string, unknown> & { name: string }) | undefined {
  return isRecord(entry) && typeof entry.name === 'string' && entry.name.trim() !== '' ? (entry as Record<string, unknown> & { name: string }) : undefined;
}
