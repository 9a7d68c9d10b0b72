import type { McpServerConfig } from '../catalog/types.js';
import { definitionChanges, type FieldChange, type SchemaChanges } from './definition-changes.js';
import type { LockedServer, ToolLock } from './lock-file.js';
import { describeEntry, launchIdentity, type ServerInfo } from './server-identity.js';
import { definitionHash, listedTool, toolDefinition, type ToolDefinition } from './tool-definition.js';

/** One MCP server of the catalog as it is now: what it listed and which of its tools joined the catalog. */
export interface CurrentServer {
  config: McpServerConfig;
  /** Its `tools/list` (secrets redacted); undefined when it could not be listed. */
  listed?: readonly unknown[];
  serverInfo?: ServerInfo;
  /** Why it could not be listed. */
  unavailable?: string;
  /** Its tools that joined the catalog: MCP name → catalog name (include/exclude and collisions applied). */
  inCatalog: ReadonlyMap<string, string>;
}

/**
 * One way the servers differ from toolman.lock. `code` is the finding `validate --locked`
 * reports for it (docs/diagnostics.md, 085x).
 */
export type Drift =
  | { code: 'TM0851'; server: string; tool: string; catalogName: string; changes: FieldChange[] }
  | { code: 'TM0852'; server: string; tool: string; catalogName: string }
  | { code: 'TM0853'; server: string; tool: string; stillListed: boolean }
  | { code: 'TM0854'; server: string; what: 'entry' | 'server_info'; before: string; after: string; catalogNames: string[] }
  | { code: 'TM0855'; server: string; catalogNames: string[] }
  | { code: 'TM0856'; server: string }
  | { code: 'TM0857'; server: string; reason: string };

/** The definition of each tool of a server that joined the catalog, by MCP name. */
export function currentDefinitions(server: CurrentServer): Map<string, ToolDefinition> {
  const out = new Map<string, ToolDefinition>();
  for (const entry of server.listed ?? []) {
    const tool = listedTool(entry);
    if (tool && server.inCatalog.has(tool.name) && !out.has(tool.name)) out.set(tool.name, toolDefinition(tool));
  }
  return out;
}

/** toolman.lock for the servers as they are now (none may be unlisted: the caller refuses that first). */
export function buildLock(servers: readonly CurrentServer[]): ToolLock {
  const lock: ToolLock = { servers: new Map() };
  for (const server of servers) {
    const tools = new Map([...currentDefinitions(server)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, definition]) => [name, { hash: definitionHash(definition), definition }] as const));
    lock.servers.set(server.config.name, { launch: launchIdentity(server.config), entry: describeEntry(server.config), ...(server.serverInfo ? { serverInfo: server.serverInfo } : {}), tools });
  }
  return lock;
}

/**
 * Everything that differs between a lock and the servers now, server by server in the catalog's
 * order, tools by name: each pinned tool whose definition changed (field by field), each new and
 * each missing tool, a server whose entry or reported name/version changed, servers the lock
 * lacks or has beyond the catalog, and servers that could not be listed (so were not checked).
 */
export function lockDrift(lock: ToolLock, servers: readonly CurrentServer[], schemaChanges?: SchemaChanges): Drift[] {
  const drift: Drift[] = [];
  const names = new Set<string>();
  for (const server of servers) {
    const name = server.config.name;
    names.add(name);
    const pinned = lock.servers.get(name);
    if (!pinned) {
      drift.push({ code: 'TM0855', server: name, catalogNames: [...server.inCatalog.values()] });
      continue;
    }
    if (server.listed === undefined) {
      drift.push({ code: 'TM0857', server: name, reason: server.unavailable ?? 'it could not be listed' });
      continue;
    }
    drift.push(...identityDrift(pinned, server));
    const current = currentDefinitions(server);
    const listedNames = new Set((server.listed ?? []).map((entry) => listedTool(entry)?.name).filter((n): n is string => n !== undefined));
    for (const tool of [...new Set([...pinned.tools.keys(), ...current.keys()])].sort()) {
      const before = pinned.tools.get(tool);
      const after = current.get(tool);
      const catalogName = server.inCatalog.get(tool) ?? tool;
      if (!before) drift.push({ code: 'TM0852', server: name, tool, catalogName });
      else if (!after) drift.push({ code: 'TM0853', server: name, tool, stillListed: listedNames.has(tool) });
      else if (definitionHash(after) !== before.hash) drift.push({ code: 'TM0851', server: name, tool, catalogName, changes: definitionChanges(before.definition, after, schemaChanges) });
    }
  }
  for (const name of lock.servers.keys()) if (!names.has(name)) drift.push({ code: 'TM0856', server: name });
  return drift;
}

/** A server's entry as written, or its reported name and version (when it reported them), against the lock's. */
export function identityDrift(pinned: LockedServer, server: Pick<CurrentServer, 'config' | 'serverInfo' | 'inCatalog'>): Drift[] {
  const drift: Drift[] = [];
  const catalogNames = [...server.inCatalog.values()];
  if (launchIdentity(server.config) !== pinned.launch) drift.push({ code: 'TM0854', server: server.config.name, what: 'entry', before: pinned.entry, after: describeEntry(server.config), catalogNames });
  const info = (i: ServerInfo | undefined) => (i ? `${i.name} ${i.version}` : 'nothing');
  if (server.serverInfo && (!pinned.serverInfo || pinned.serverInfo.name !== server.serverInfo.name || pinned.serverInfo.version !== server.serverInfo.version)) {
    drift.push({ code: 'TM0854', server: server.config.name, what: 'server_info', before: info(pinned.serverInfo), after: info(server.serverInfo), catalogNames });
  }
  return drift;
}

/** The catalog names of the tools a drift touches (what `lock --gate` looks for in suites). */
export function driftedTools(drift: readonly Drift[], removedName: (server: string, tool: string) => string | undefined): string[] {
  const out = new Set<string>();
  for (const d of drift) {
    if (d.code === 'TM0851' || d.code === 'TM0852') out.add(d.catalogName);
    else if (d.code === 'TM0854' || d.code === 'TM0855') for (const n of d.catalogNames) out.add(n);
    else if (d.code === 'TM0853') {
      const name = removedName(d.server, d.tool);
      if (name) out.add(name);
    }
  }
  return [...out].sort();
}
