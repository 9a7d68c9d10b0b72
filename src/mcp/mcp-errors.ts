/** A request the server answered with a JSON-RPC error (unknown tool, invalid params...), with its code when it gave one. */
export class McpCallError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** An error's message without the SDK's "MCP error -32602: " prefix (toolman says which server and request itself). */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^MCP error -?\d+: /, '');
  return String(error);
}
