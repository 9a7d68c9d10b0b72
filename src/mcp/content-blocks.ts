import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import { formatBytes } from '../shared/read-file.js';

/**
 * Content from an MCP server's prompt or resource, made safe to show, to send to a model and to
 * pass on (`serve` as a gateway): every text cleaned of control sequences and invisible
 * characters (`plainText`), every text cut to MAX_CONTENT_CHARS, binary data kept only when it is
 * base64 of at most MAX_BINARY_BYTES, media types and URIs checked. The shapes are MCP's
 * (2026-07-28 `schema/2026-07-28/schema.ts`: `ContentBlock`, `TextResourceContents`,
 * `BlobResourceContents`); what does not fit becomes a text block that names it.
 */
export type McpContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; mimeType: string; data: string }
  | { type: 'resource'; resource: McpResourceContent }
  | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string };

/** One part of a resource: text, or base64 data (`blob`). */
export type McpResourceContent = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

/** A text longer than this (after cleaning) is cut, and said to be. */
export const MAX_CONTENT_CHARS = 100_000;
/** Binary data (an image, a blob) larger than this, decoded, is left out, and said to be. */
export const MAX_BINARY_BYTES = 2 * 1024 * 1024;
/** Names, titles, URIs and media types longer than this are cut. */
const MAX_LABEL_CHARS = 2_000;

const MEDIA_TYPE = /^[\w.+-]{1,100}\/[\w.+-]{1,100}(?:\s*;[\w\s.=+"-]{0,100})?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What cleaning changed, for a note to the user (`cut`, `left out`, `removed`). */
export class ContentNotes {
  readonly notes: string[] = [];
  add(note: string): void {
    if (!this.notes.includes(note) && this.notes.length < 20) this.notes.push(note);
  }
}

/** A text from a server, cleaned and cut to `max` characters. */
export function cleanText(text: string, notes: ContentNotes, what: string, max = MAX_CONTENT_CHARS): string {
  const clean = plainText(text);
  if (clean !== text) notes.add(`control or invisible characters removed from ${what}`);
  if (clean.length <= max) return clean;
  notes.add(`${what} cut to ${max.toLocaleString('en-US')} of ${clean.length.toLocaleString('en-US')} characters`);
  return `${clean.slice(0, max)}\n[cut: ${(clean.length - max).toLocaleString('en-US')} more characters]`;
}

/** A name, title or URI: one line, cleaned, cut. */
export function cleanLabel(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return plainText(value).replace(/[\r\n]+/g, ' ').slice(0, MAX_LABEL_CHARS);
}

/** A `mimeType` as given when it is one (`text/plain; charset=utf-8`), else undefined. */
export function cleanMediaType(value: unknown): string | undefined {
  return typeof value === 'string' && MEDIA_TYPE.test(value) ? value : undefined;
}

/** The decoded size of base64 data. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** Base64 data when it is base64 within MAX_BINARY_BYTES; otherwise undefined, and why in `notes`. */
function cleanBinary(data: unknown, notes: ContentNotes, what: string): string | undefined {
  if (typeof data !== 'string' || data.length % 4 === 1 || !BASE64.test(data)) {
    notes.add(`${what} left out: its data is not base64`);
    return undefined;
  }
  const bytes = base64Bytes(data);
  if (bytes > MAX_BINARY_BYTES) {
    notes.add(`${what} left out: ${formatBytes(bytes)}, more than ${formatBytes(MAX_BINARY_BYTES)}`);
    return undefined;
  }
  return data;
}

/** A content block of a prompt message, cleaned; a block toolman cannot keep becomes a text naming it. */
export function cleanBlock(raw: unknown, notes: ContentNotes): McpContentBlock {
  const kind = isRecord(raw) && typeof raw.type === 'string' ? raw.type.replace(/[^\w.-]/g, '').slice(0, 40) || 'unknown' : 'unknown';
  if (!isRecord(raw)) return { type: 'text', text: '[malformed content]' };
  switch (raw.type) {
    case 'text':
      return typeof raw.text === 'string' ? { type: 'text', text: cleanText(raw.text, notes, 'a text') } : { type: 'text', text: '[malformed text content]' };
    case 'image':
    case 'audio': {
      const mimeType = cleanMediaType(raw.mimeType);
      const data = cleanBinary(raw.data, notes, `an ${raw.type}`);
      if (!mimeType || data === undefined) return { type: 'text', text: `[${raw.type} content${mimeType ? ` ${mimeType}` : ''} left out]` };
      return { type: raw.type, mimeType, data };
    }
    case 'resource': {
      const resource = cleanResourceContent(raw.resource, notes);
      return resource ? { type: 'resource', resource } : { type: 'text', text: '[malformed embedded resource]' };
    }
    case 'resource_link': {
      const uri = cleanLabel(raw.uri);
      const name = cleanLabel(raw.name);
      if (!uri || name === undefined) return { type: 'text', text: '[malformed resource link]' };
      const title = cleanLabel(raw.title);
      const description = typeof raw.description === 'string' ? cleanText(raw.description, notes, 'a description', 8_000) : undefined;
      const mimeType = cleanMediaType(raw.mimeType);
      return { type: 'resource_link', uri, name, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(mimeType ? { mimeType } : {}) };
    }
    default:
      return { type: 'text', text: `[${kind} content]` };
  }
}

/** One entry of `resources/read`'s `contents` (or an embedded resource), cleaned; undefined when it is not one. */
export function cleanResourceContent(raw: unknown, notes: ContentNotes): McpResourceContent | undefined {
  if (!isRecord(raw)) return undefined;
  const uri = cleanLabel(raw.uri);
  if (!uri) return undefined;
  const mimeType = cleanMediaType(raw.mimeType);
  const base = { uri, ...(mimeType ? { mimeType } : {}) };
  if (typeof raw.text === 'string') return { ...base, text: cleanText(raw.text, notes, uri) };
  if (typeof raw.blob === 'string') {
    const blob = cleanBinary(raw.blob, notes, uri);
    return blob === undefined ? { ...base, text: `[binary content of ${uri} left out]` } : { ...base, blob };
  }
  return undefined;
}

/**
 * A content block as text for a model or a terminal: text as it is; an embedded text resource
 * under its URI; media, binary data and links as a line that names them.
 */
export function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
    case 'resource':
      return resourceText(block.resource);
    case 'resource_link':
      return `[resource link ${block.name} ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
  }
}

/** A resource's part as text: its text under its URI, or a line naming binary data. */
export function resourceText(content: McpResourceContent): string {
  if ('text' in content) return `[resource ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}]\n${content.text}`;
  return `[resource ${content.uri}: ${content.mimeType ?? 'binary'}, ${formatBytes(base64Bytes(content.blob))}]`;
}
