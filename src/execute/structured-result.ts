import type { ToolResponse } from './types.js';

/**
 * A runner's result with a structured value beside it: `value` is what the model gets (as any
 * result: text or JSON), `structuredContent` is the tool's own structured result (an MCP server's
 * `structuredContent`), which the model never gets twice but an MCP driver (`serve`) passes on
 * in the server's own shape.
 */
export class StructuredResult {
  constructor(
    readonly value: unknown,
    readonly structuredContent: Record<string, unknown>,
  ) {}
}

/**
 * The structured content of a response, kept beside it rather than in it: a field would be
 * written into every `--json` document, transcript line and event, doubling what a result costs
 * everywhere it is recorded (the defect this exists to fix). Only `serve` reads it.
 */
const structured = new WeakMap<ToolResponse, Record<string, unknown>>();

export function setStructuredContent(response: ToolResponse, value: Record<string, unknown>): void {
  structured.set(response, value);
}

/**
 * The tool's own structured result for this response, when it gave one. None once the result was
 * truncated (by the tool's limit or the turn's results budget): it would carry what the cut removed.
 */
export function structuredContentOf(response: ToolResponse): Record<string, unknown> | undefined {
  return response.truncated ? undefined : structured.get(response);
}
