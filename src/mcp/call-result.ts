import { isRecord } from '../shared/is-record.js';
import { formatBytes } from '../shared/read-file.js';

/**
 * A `tools/call` result as the tool's result for the model and the terminal:
 * - structured content (when the server sends it) is the result, as JSON;
 * - text blocks are the text, joined by blank lines;
 * - images and audio, which toolman's text results cannot carry, become a line naming the media
 *   type and size; resource links name the resource; embedded text resources give their text
 *   under their URI, binary ones a line like media.
 * `isError` results are the caller's to turn into a tool error (the same text is the message).
 */
export function renderCallResult(result: { content?: unknown; structuredContent?: unknown }): unknown {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(renderBlock).filter((part) => part !== '');
  if (isRecord(result.structuredContent)) {
    // The text is usually the same JSON restated (the spec asks servers to send both): keep only what adds.
    const restated = JSON.stringify(result.structuredContent);
    const extra = parts.filter((part) => !sameJson(part, restated));
    return extra.length ? { structured: result.structuredContent, content: extra.join('\n\n') } : result.structuredContent;
  }
  return parts.join('\n\n');
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
