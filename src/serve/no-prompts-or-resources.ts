import { ProtocolError, ResourceNotFoundError, type Server, type ServerCapabilities } from '@modelcontextprotocol/server';

/**
 * What every toolman server declares besides tools. Prompts and resources come with empty lists:
 * toolman serves tools, and a client (or a cache, `server/utilities/caching.mdx` 2026-07-28,
 * which names all four lists as cacheable results) gets a definite "none" instead of -32601.
 * Logging is declared so a client can set its level (2025-11-25 `logging/setLevel`; in 2026-07-28
 * the level rides in each request's `_meta`): toolman tells the client, as a warning, when it
 * declines a call the client could not be asked about or turns a call away as busy.
 */
export const SERVER_CAPABILITIES: ServerCapabilities = { tools: { listChanged: true }, prompts: {}, resources: {}, logging: {} };

export function serveNoPromptsOrResources(server: Server): void {
  server.setRequestHandler('prompts/list', () => ({ prompts: [] }));
  server.setRequestHandler('prompts/get', (request) => {
    throw new ProtocolError(-32602, `Unknown prompt: ${request.params.name} (toolman serve has no prompts)`);
  });
  server.setRequestHandler('resources/list', () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', (request) => {
    // -32602 with the URI: "resource not found" in both revisions (2026-07-28 `server/resources.mdx`).
    throw new ResourceNotFoundError(request.params.uri);
  });
}
