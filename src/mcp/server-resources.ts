import type { McpServerConfig } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { formatBytes } from '../shared/read-file.js';
import { base64Bytes, cleanLabel, cleanMediaType, cleanResourceContent, cleanText, ContentNotes, resourceText, type McpResourceContent } from './content-blocks.js';

/**
 * An MCP server's resources and resource templates (MCP 2026-07-28 `server/resources.mdx`) as
 * toolman holds them. A resource is addressed by its URI on its server (`server:uri`); its name
 * is the server entry's `prefix` + the server's name for it, as for tools and prompts. Every text
 * from the server is cleaned and bounded.
 */
export interface McpResource {
  server: string;
  uri: string;
  /** The entry's `prefix` + the server's name for it. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, as the server says (it may be wrong: nothing here relies on it). */
  size?: number;
}

export interface McpResourceTemplate {
  server: string;
  /** An RFC 6570 URI template (`file:///{path}`). */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What `resources/read` gave, cleaned. */
export interface McpResourceRead {
  server: string;
  uri: string;
  contents: McpResourceContent[];
  /** What was cut, removed or left out, in words. */
  notes: string[];
}

/** A server offering more resources (or templates) than this is cut here. */
export const MAX_RESOURCES_PER_SERVER = 10_000;
/** A read's parts past this many are left out. */
const MAX_CONTENTS = 100;
const MAX_DESCRIPTION_CHARS = 8_000;

type Entry<K extends 'uri' | 'uriTemplate'> = { [key in K]: string } & { server: string; name: string; title?: string; description?: string; mimeType?: string };

/** `resources/list` or `resources/templates/list` entries, cleaned; one whose address toolman would have to change is left out. */
function entries<K extends 'uri' | 'uriTemplate'>(config: McpServerConfig, listed: readonly unknown[], key: K, what: string): { entries: (Entry<K> & { raw: Record<string, unknown> })[]; notes: string[] } {
  const found: (Entry<K> & { raw: Record<string, unknown> })[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of listed.slice(0, MAX_RESOURCES_PER_SERVER).entries()) {
    const address = isRecord(raw) ? cleanLabel(raw[key]) : undefined;
    const name = isRecord(raw) ? cleanLabel(raw.name) : undefined;
    // Read by its exact URI, so one toolman would have to clean cannot be offered.
    if (!isRecord(raw) || !address?.trim() || address !== raw[key] || name === undefined) {
      notes.push(`${what} ${index} left out: ${!isRecord(raw) || raw[key] === undefined ? `it has no ${key}` : name === undefined ? 'it has no name' : `its ${key} holds control or invisible characters, or is longer than 2,000 characters`}`);
      continue;
    }
    if (seen.has(address)) continue;
    seen.add(address);
    const cleaning = new ContentNotes();
    const title = cleanLabel(raw.title);
    const description = typeof raw.description === 'string' ? cleanText(raw.description, cleaning, 'its description', MAX_DESCRIPTION_CHARS) : undefined;
    const mimeType = cleanMediaType(raw.mimeType);
    found.push({ [key]: address, server: config.name, name: config.prefix + name, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(mimeType ? { mimeType } : {}), raw } as Entry<K> & { raw: Record<string, unknown> });
    for (const note of cleaning.notes) notes.push(`${what} ${address}: ${note}`);
  }
  if (listed.length > MAX_RESOURCES_PER_SERVER) notes.push(`it offers ${listed.length} ${what}s; the first ${MAX_RESOURCES_PER_SERVER} are used`);
  return { entries: found, notes };
}

/** One server's `resources/list` entries as resources. */
export function serverResources(config: McpServerConfig, listed: readonly unknown[]): { resources: McpResource[]; notes: string[] } {
  const { entries: found, notes } = entries(config, listed, 'uri', 'resource');
  return {
    resources: found.map(({ raw, ...resource }) => ({ ...resource, ...(typeof raw.size === 'number' && Number.isSafeInteger(raw.size) && raw.size >= 0 ? { size: raw.size } : {}) })),
    notes,
  };
}

/** One server's `resources/templates/list` entries as templates. */
export function serverTemplates(config: McpServerConfig, listed: readonly unknown[]): { templates: McpResourceTemplate[]; notes: string[] } {
  const { entries: found, notes } = entries(config, listed, 'uriTemplate', 'resource template');
  return { templates: found.map(({ raw: _raw, ...template }) => template), notes };
}

/** A `resources/read` result, cleaned. */
export function resourceRead(server: string, uri: string, raw: Record<string, unknown>): McpResourceRead {
  const notes = new ContentNotes();
  const listed = Array.isArray(raw.contents) ? raw.contents : [];
  if (listed.length > MAX_CONTENTS) notes.add(`${listed.length - MAX_CONTENTS} of its ${listed.length} parts left out`);
  const contents: McpResourceContent[] = [];
  for (const part of listed.slice(0, MAX_CONTENTS)) {
    const content = cleanResourceContent(part, notes);
    if (content) contents.push(content);
    else notes.add('a malformed part left out');
  }
  return { server, uri, contents, notes: notes.notes };
}

/**
 * Whether `uri` could be an expansion of the RFC 6570 template: its literal parts in order, each
 * `{...}` expression standing for any text. Used only to route a read to the server that offers
 * the template (the server decides whether the URI exists). A literal scan, not a regular
 * expression: a template comes from a server, and `{a}{b}{c}...` must not cost exponential time.
 */
export function templateMatches(uriTemplate: string, uri: string): boolean {
  const literals = uriTemplate.split(/\{[^}]*\}/);
  if (literals.length === 1) return uri === uriTemplate;
  const first = literals[0]!;
  const last = literals.at(-1)!;
  if (uri.length < first.length + last.length || !uri.startsWith(first) || !uri.endsWith(last)) return false;
  let at = first.length;
  const end = uri.length - last.length;
  for (const literal of literals.slice(1, -1)) {
    const found = uri.indexOf(literal, at);
    if (found < 0 || found + literal.length > end) return false;
    at = found + literal.length;
  }
  return true;
}

/**
 * A read resource as text to attach to a message: each part under the server and URI it came
 * from, binary parts as a line that names their type and size.
 */
export function attachmentText(read: McpResourceRead): string {
  const parts = read.contents.length ? read.contents.map(resourceText) : [`[resource ${read.uri}: empty]`];
  return `<resource server="${read.server}" uri="${read.uri.replace(/"/g, '%22')}">\n${parts.join('\n\n')}\n</resource>`;
}

/** "1.2 KB of text/markdown": a read's size and kind, for a note. */
export function describeRead(read: McpResourceRead): string {
  const bytes = read.contents.reduce((sum, c) => sum + ('text' in c ? Buffer.byteLength(c.text) : base64Bytes(c.blob)), 0);
  const types = [...new Set(read.contents.map((c) => c.mimeType ?? ('text' in c ? 'text' : 'binary')))];
  return `${formatBytes(bytes)}${types.length ? ` of ${types.join(', ')}` : ''}`;
}
