import type { McpServerConfig, Tool } from '../catalog/types.js';
import { serverTools } from '../mcp/server-tools.js';
import { describeChange, definitionChanges } from './definition-changes.js';
import { identityDrift, type Drift } from './lock-drift.js';
import type { ToolLock } from './lock-file.js';
import type { ServerInfo } from './server-identity.js';
import { definitionHash, listedTool, toolDefinition, type ToolDefinition } from './tool-definition.js';

/**
 * How a lock applies when a catalog opens. `enforce`: a server tool whose definition, server entry
 * or reported version differs from the lock (or that the lock lacks) is left out, with why.
 * `accept-drift` (`--accept-drift`): every tool as the server offers it now, each difference said.
 * `pinned` (`lock --gate`'s old side): the lock's own copies of the definitions instead of the
 * servers' lists; calls still go to the servers.
 */
export type LockMode = 'enforce' | 'accept-drift' | 'pinned';

/** A server tool the lock kept out (or, accepted, let in): catalog name, MCP name, why. */
export interface PinNote {
  tool: string;
  mcpName: string;
  reason: string;
}

export interface PinContext {
  /** The server's list as it answered. */
  listed: readonly unknown[];
  serverInfo?: ServerInfo;
  /** The catalog file of the server's entry (tools built from the lock's copies need it). */
  catalogFile: string;
  /** The definition as the lock stores it: secrets redacted, as `toolman lock` wrote it. */
  redact: (definition: ToolDefinition) => ToolDefinition;
}

const HINT = 'review it with `toolman lock --update` (`toolman validate --locked` lists each change), or pass --accept-drift to use it as it is now';

/**
 * Which of one server's tools join the catalog under the lock. The check is the hash of each
 * tool's pinned fields (title, description, schemas, annotations) against the lock's, after the
 * server's entry and its reported name and version; a reason names the fields that changed.
 */
export function pinServerTools(lock: ToolLock, mode: LockMode, config: McpServerConfig, tools: Tool[], context: PinContext): { tools: Tool[]; refused: PinNote[]; accepted: PinNote[] } {
  const pinned = lock.servers.get(config.name);
  if (mode === 'pinned') {
    const definitions = [...(pinned?.tools.values() ?? [])].map((t) => t.definition);
    return { tools: serverTools(config, definitions, context.catalogFile).tools, refused: [], accepted: [] };
  }
  const notes: PinNote[] = [];
  const mine = tools.filter((t): t is Tool & { source: { kind: 'mcp'; tool: string } } => t.source.kind === 'mcp');
  const inCatalog = new Map(mine.map((t) => [t.source.tool, t.name]));
  if (!pinned) {
    for (const t of mine) notes.push({ tool: t.name, mcpName: t.source.tool, reason: `MCP server "${config.name}" is not in toolman.lock` });
  } else {
    const server = identityDrift(pinned, { config, ...(context.serverInfo ? { serverInfo: context.serverInfo } : {}), inCatalog });
    const serverReason = server.map(describeIdentity).join('; ');
    const listed = new Map<string, ToolDefinition>();
    for (const entry of context.listed) {
      const tool = listedTool(entry);
      if (tool && !listed.has(tool.name)) listed.set(tool.name, context.redact(toolDefinition(tool)));
    }
    for (const t of mine) {
      const locked = pinned.tools.get(t.source.tool);
      const now = listed.get(t.source.tool);
      let reason: string | undefined;
      if (serverReason) reason = serverReason;
      else if (!locked) reason = 'not in toolman.lock (the server added it since)';
      else if (!now || definitionHash(now) !== locked.hash) {
        const changed = now ? [...new Set(definitionChanges(locked.definition, now).map((c) => describeChange(c)))] : [];
        reason = `its definition differs from toolman.lock${changed.length ? `: ${changed.join('; ')}` : ''}`;
      }
      if (reason) notes.push({ tool: t.name, mcpName: t.source.tool, reason });
    }
  }
  const withHint = notes.map((n) => ({ ...n, reason: `${n.reason}; ${HINT}` }));
  if (mode === 'accept-drift') return { tools, refused: [], accepted: notes };
  const out = new Set(notes.map((n) => n.mcpName));
  return { tools: tools.filter((t) => !(t.source.kind === 'mcp' && out.has(t.source.tool))), refused: withHint, accepted: [] };
}

function describeIdentity(drift: Drift): string {
  if (drift.code !== 'TM0854') return '';
  return drift.what === 'entry' ? `the server's entry changed since toolman.lock (was \`${drift.before}\`, now \`${drift.after}\`)` : `the server now reports ${drift.after}; toolman.lock pinned ${drift.before}`;
}
