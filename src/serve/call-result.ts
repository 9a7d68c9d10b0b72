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
  // Built field by field: six conditional spreads per call were a tenth of this function (issue 24).
  const meta: Record<string, unknown> = { 'toolman/duration_ms': response.duration_ms };
  if (response.error_kind) meta['toolman/error_kind'] = response.error_kind;
  if (response.truncated) {
    meta['toolman/truncated'] = true;
    meta['toolman/original_tokens'] = response.original_tokens;
  }
  if (response.job_id) meta['toolman/job_id'] = response.job_id;
  if (response.summarized) meta['toolman/summarized'] = true;
  if (response.evaluations?.length) meta['toolman/evaluations'] = response.evaluations;
  if (!response.ok) return { content: [{ type: 'text', text: errorText ?? response.error ?? response.content }], isError: true, _meta: meta };
  // A tool with an output schema promises structured results: in 2026-07-28 they may be any JSON
  // value (`basic/index.mdx` §JSON Schema Usage), so its arrays and scalars go out too.
  const structured = structuredContentOf(response) ?? (options.anyJson ? jsonIn(response.content) : objectIn(response.content));
  const content: CallToolResult['content'] = [{ type: 'text', text: response.content }];
  // The tool's sources (`references:`), cleaned and bounded by the executor, as MCP resource links (2025-11-25, Server / Tools, "Resource Links").
  for (const r of response.references ?? []) content.push({ type: 'resource_link', uri: r.url, name: r.title ?? r.url, ...(r.snippet ? { description: r.snippet } : {}) });
  // Keys in the order they always went out: content, structuredContent, _meta.
  const result: CallToolResult = { content };
  if (structured !== undefined) result.structuredContent = structured as CallToolResult['structuredContent'];
  result._meta = meta;
  return result;
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
