import { isRecord } from '../shared/is-record.js';
import { formatBytes } from '../shared/read-file.js';
import { StructuredResult } from '../execute/structured-result.js';

/**
 * A `tools/call` result as the tool's result for the model and the terminal, each part once:
 * - text blocks are the text, joined by blank lines;
 * - images and audio, which toolman's text results cannot carry, become a line naming the media
 *   type and size; resource links name the resource; embedded text resources give their text
 *   under their URI, binary ones a line like media;
 * - structured content (when the server sends it) is, for the model, whichever form says it
 *   once: the spec asks servers to restate it in a text block (MCP specification 2025-11-25,
 *   Server / Tools, "Structured Content": "a tool that returns structured content SHOULD also
 *   return the serialized JSON in a TextContent block"), so when the blocks restate it (as that
 *   JSON, or as the very strings it holds, like the filesystem server's `{content: text}` beside
 *   the same text) only one copy goes to the model. Only when the two say different things does
 *   the model get both, as `{structured, content}`.
 * With structured content the result is a `StructuredResult`: the server's own structured value
 * rides beside the model's copy, so `serve` can pass it on in the server's shape.
 * `isError` results are the caller's to turn into a tool error (the same text is the message).
 */
export function renderCallResult(result: { content?: unknown; structuredContent?: unknown }): unknown {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(renderBlock).filter((part) => part !== '');
  const structured = isRecord(result.structuredContent) ? result.structuredContent : undefined;
  if (!structured) return parts.join('\n\n');
  const serialized = JSON.stringify(structured);
  // Blocks that are the structured value's JSON add nothing; the rest may restate it in other words.
  const extra = parts.filter((part) => !sameJson(part, serialized));
  let forModel: unknown;
  if (extra.length === 0) forModel = structured;
  else if (carriesEveryValue(structured, blocks)) forModel = parts.join('\n\n');
  else forModel = { structured, content: extra.join('\n\n') };
  return new StructuredResult(forModel, structured);
}

/** The most values of a structured result compared against the blocks; past it, both are sent (never a wrong drop). */
const MAX_COMPARED_VALUES = 1_000;

/**
 * Whether the content blocks hold every value of the structured result: each string is a string
 * of a block (a text, an image's data, a URI...) or appears in a block's text; numbers and
 * booleans must be values of a block too (a number found inside some text may be another
 * number's digits, so text never counts for them). Keys are not compared: they name values, and
 * the blocks are what a client without structured content shows anyway.
 */
function carriesEveryValue(structured: Record<string, unknown>, blocks: readonly unknown[]): boolean {
  const blockValues = new Set<unknown>();
  const texts: string[] = [];
  if (!leaves(blocks, (value) => (blockValues.add(value), true))) return false;
  for (const block of blocks) if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  const text = texts.join('\n');
  return leaves(structured, (value) => blockValues.has(value) || (typeof value === 'string' && text.includes(value)));
}

/**
 * Calls `visit` on every string, number and boolean in `value` (nulls carry nothing), depth first
 * without recursion; false when `visit` says no or there are more than MAX_COMPARED_VALUES.
 */
function leaves(value: unknown, visit: (leaf: string | number | boolean) => boolean): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string' || typeof next === 'number' || typeof next === 'boolean') {
      if (++seen > MAX_COMPARED_VALUES || !visit(next)) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
    } else if (isRecord(next)) {
      for (const item of Object.values(next)) stack.push(item);
    }
  }
  return true;
}

function renderBlock(block: unknown): string {
  if (!isRecord(block)) return '';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio':
      return `[${block.type} ${text(block.mimeType, 'of unknown type')}, ${sizeOf(block.data)}]`;
    case 'resource_link':
      return `[resource link ${text(block.name, '')} ${text(block.uri, '')}${typeof block.description === 'string' ? `: ${block.description}` : ''}]`.replace(/ {2,}/g, ' ');
    case 'resource': {
      const resource = isRecord(block.resource) ? block.resource : {};
      const uri = text(resource.uri, 'resource');
      if (typeof resource.text === 'string') return `[resource ${uri}]\n${resource.text}`;
      return `[resource ${uri}: ${text(resource.mimeType, 'binary')}, ${sizeOf(resource.blob)}]`;
    }
    default:
      return `[${text(block.type, 'unknown')} content]`;
  }
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** The decoded size of base64 data. */
function sizeOf(data: unknown): string {
  if (typeof data !== 'string') return 'no data';
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return formatBytes(Math.max(0, Math.floor((data.length * 3) / 4) - padding));
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/** The text of an error result, for the tool error's message. */
export function errorText(result: { content?: unknown }): string {
  const rendered = renderCallResult({ content: result.content });
  return typeof rendered === 'string' && rendered.trim() !== '' ? rendered : 'the server reported an error without a message';
}
