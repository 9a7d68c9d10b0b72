import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolResponse } from '../execute/types.js';
import { structuredContentOf } from '../manager/facts.js';
import { isRecord } from '../shared/is-record.js';

/**
 * The executor's answer as an MCP `CallToolResult`. A tool's failure (invalid arguments, a
 * declined approval, a timeout, the tool's own error) is `isError` with the text the model would
 * get, so the model can correct itself (spec 2025-11-25, "Error Handling": tool execution
 * errors). A proxied MCP server's `structuredContent` goes out as that server sent it (its own
 * shape: the model's text beside it may be the text alone); any other result that is a JSON object
 * also goes out as `structuredContent`, beside its text as the spec recommends for older clients
 * (2025-11-25, Server / Tools, "Structured Content").
 */
export function toCallToolResult(response: ToolResponse, options: { errorText?: string; anyJson?: boolean } = {}): CallToolResult {
  const { errorText } = options;
  const meta = {
    'toolman/duration_ms': response.duration_ms,
    ...(response.error_kind ? { 'toolman/error_kind': response.error_kind } : {}),
    ...(response.truncated ? { 'toolman/truncated': true, 'toolman/original_tokens': response.original_tokens } : {}),
    ...(response.job_id ? { 'toolman/job_id': response.job_id } : {}),
    ...(response.summarized ? { 'toolman/summarized': true } : {}),
    ...(response.evaluations?.length ? { 'toolman/evaluations': response.evaluations } : {}),
  };
  if (!response.ok) return { content: [{ type: 'text', text: errorText ?? response.error ?? response.content }], isError: true, _meta: meta };
  // A tool with an output schema promises structured results: in 2026-07-28 they may be any JSON
  // value (`basic/index.mdx` §JSON Schema Usage), so its arrays and scalars go out too.
  const structured = structuredContentOf(response) ?? (options.anyJson ? jsonIn(response.content) : objectIn(response.content));
  // The tool's sources (`references:`), cleaned and bounded by the executor, as MCP resource links (2025-11-25, Server / Tools, "Resource Links").
  const links = (response.references ?? []).map((r) => ({ type: 'resource_link' as const, uri: r.url, name: r.title ?? r.url, ...(r.snippet ? { description: r.snippet } : {}) }));
  return { content: [{ type: 'text', text: response.content }, ...links], ...(structured !== undefined ? { structuredContent: structured as CallToolResult['structuredContent'] } : {}), _meta: meta };
}

/** The content as any JSON value, when it parses as one (results are JSON text or plain text). */
function jsonIn(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The content as a JSON object, when it is one (results are JSON text or plain text). */
function objectIn(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
