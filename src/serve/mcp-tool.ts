import type { Tool as McpTool, ToolAnnotations } from '@modelcontextprotocol/server';
import type { HandlerKind, Tool } from '../catalog/types.js';

/**
 * Handler kinds whose world is closed: a mock answers from the catalog, a meta-tool from the
 * session. Every other kind (programs, HTTP, modules, MCP servers, agents) may reach anything.
 */
const CLOSED_WORLD: ReadonlySet<HandlerKind> = new Set(['mock', 'meta']);

/** The two protocol eras `serve` answers: 2025-11-25 sessions (`initialize`) and stateless 2026-07-28 requests. */
export type Era = 'legacy' | 'modern';

/**
 * A catalog tool as an MCP `tools/list` entry (spec revision 2025-11-25, "Tools" and the
 * schema's `ToolAnnotations`; unchanged in 2026-07-28 `server/tools.mdx`). The hints are the
 * spec's, whose defaults assume the worst (readOnlyHint false, destructiveHint true,
 * idempotentHint false, openWorldHint true), so toolman states each one it knows and leaves out
 * what it does not (idempotency). toolman's own terms travel in `_meta` for clients that want them.
 */
export function toMcpTool(tool: Tool, era: Era = 'legacy'): McpTool {
  const annotations: ToolAnnotations = {
    ...(tool.title ? { title: tool.title } : {}),
    readOnlyHint: tool.effect === 'read',
    // Meaningful only when not read-only; `write` is the catalog's word for additive changes.
    ...(tool.effect === 'read' ? {} : { destructiveHint: tool.effect === 'destructive' }),
    // An MCP server's own word on its tool's world and idempotency is passed on; toolman cannot know better.
    openWorldHint: tool.mcpHints?.openWorld ?? !(tool.handler && CLOSED_WORLD.has(tool.handler.kind)),
    ...(tool.mcpHints?.idempotent !== undefined ? { idempotentHint: tool.mcpHints.idempotent } : {}),
  };
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description ?? tool.summary ?? '',
    inputSchema: inputSchema(tool.parameters),
    // 2025-11-25's schema takes only `type: object` at the root (validate says so: TM0331);
    // 2026-07-28 takes any JSON Schema there (schema/2026-07-28/schema.ts `Tool.outputSchema`).
    ...(tool.outputSchema && (era === 'modern' || tool.outputSchema.type === 'object') ? { outputSchema: tool.outputSchema as McpTool['outputSchema'] } : {}),
    annotations,
    _meta: { 'toolman/effect': tool.effect, 'toolman/confirm': needsConfirmation(tool) ? 'ask' : 'no', ...(tool.category ? { 'toolman/category': tool.category } : {}) },
  };
}

/** Whether a call asks the user first, as the executor decides it. */
export function needsConfirmation(tool: Tool): boolean {
  return tool.confirm === 'always' || (tool.confirm === 'auto' && tool.effect === 'destructive');
}

/** MCP requires an object schema at the root; the catalog guarantees one, and this keeps it so. */
function inputSchema(parameters: Tool['parameters']): McpTool['inputSchema'] {
  return parameters.type === 'object' ? (parameters as McpTool['inputSchema']) : { ...parameters, type: 'object' };
}
