/**
 * The facade's toolman.lock, for `toolman lock` and `validate --locked`: the servers as they are
 * now (from a manager opened with `lock: 'off'`), the lock file, what differs between them, and
 * the findings `validate --locked` reports. The core is in lock/; drivers reach it here.
 */
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { SourceFile } from '../catalog/source-file.js';
import { Reporter } from '../catalog/reporter.js';
import type { SchemaChanges } from '../lock/definition-changes.js';
import { describeChange } from '../lock/definition-changes.js';
import { lockDrift, type CurrentServer, type Drift } from '../lock/lock-drift.js';
import { LockFileError, type ToolLock } from '../lock/lock-file.js';
import { listedTool, toolDefinition } from '../lock/tool-definition.js';
import { serverTools } from '../mcp/server-tools.js';
import { catalogLock, redactDefinition } from './tool-pins.js';
import type { ToolManager } from './tool-manager.js';

export { buildLock, driftedTools, type CurrentServer, type Drift } from '../lock/lock-drift.js';
export { describeChange, type FieldChange, type SchemaChanges } from '../lock/definition-changes.js';
export { LockFileError, lockFilePath, lockText, readLock, writeLockFile, type ToolLock } from '../lock/lock-file.js';
export { catalogLock } from './tool-pins.js';

/**
 * The catalog's MCP servers as they are now: each one's list (secrets redacted, as the lock
 * stores it), what it reported, and which of its tools joined the catalog under which name.
 */
export function currentServers(manager: ToolManager): CurrentServer[] {
  const inCatalog = new Map<string, Map<string, string>>();
  for (const tool of manager.catalog.tools) {
    if (tool.source.kind !== 'mcp') continue;
    const names = inCatalog.get(tool.source.server) ?? new Map<string, string>();
    names.set(tool.source.tool, tool.name);
    inCatalog.set(tool.source.server, names);
  }
  return manager.mcpListings().map(({ config, listed, serverInfo, status }) => ({
    config,
    ...(listed ? { listed: listed.map((entry) => (listedTool(entry) ? redactDefinition(toolDefinition(listedTool(entry)!), manager.secrets) : entry)) } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    ...(status.source === 'unavailable' ? { unavailable: status.error ?? 'it could not be started or listed' } : {}),
    inCatalog: inCatalog.get(config.name) ?? new Map(),
  }));
}

/** What differs between the lock and the servers now (see `lockDrift`). */
export function currentDrift(manager: ToolManager, lock: ToolLock, schemaChanges?: SchemaChanges): Drift[] {
  return lockDrift(lock, currentServers(manager), schemaChanges);
}

/**
 * The catalog name a tool the lock pins would have (for a tool its server no longer offers, so it
 * has none now): built from the lock's copy as the server's own tools are.
 */
export function pinnedToolName(manager: ToolManager, lock: ToolLock, server: string, tool: string): string | undefined {
  const config = manager.catalog.mcpServers.get(server);
  const definition = lock.servers.get(server)?.tools.get(tool)?.definition;
  if (!config || !definition) return undefined;
  return serverTools(config, [definition], manager.loaded.sources.get(config.file)?.absolutePath ?? config.file).tools[0]?.name;
}

/** The drift's first line, without TM0851's field changes (the CLI lists those under it). */
export function driftHeadline(d: Drift): string {
  const tool = (name: string, catalogName?: string) => `MCP server "${d.server}" tool ${JSON.stringify(name)}${catalogName && catalogName !== name ? ` (${catalogName})` : ''}`;
  switch (d.code) {
    case 'TM0851':
      return `${tool(d.tool, d.catalogName)} changed`;
    case 'TM0852':
      return `${tool(d.tool, d.catalogName)} is not pinned: the server offers it, toolman.lock does not have it`;
    case 'TM0853':
      return `${tool(d.tool)} is pinned, but ${d.stillListed ? 'no longer in the catalog (excluded or left out)' : 'the server no longer offers it'}`;
    case 'TM0854':
      return d.what === 'entry' ? `MCP server "${d.server}": its entry changed (was \`${d.before}\`, now \`${d.after}\`)` : `MCP server "${d.server}": it reports ${d.after}; toolman.lock pinned ${d.before}`;
    case 'TM0855':
      return `MCP server "${d.server}" is not in toolman.lock (${d.catalogNames.length} tool${d.catalogNames.length === 1 ? '' : 's'} unpinned)`;
    case 'TM0856':
      return `MCP server "${d.server}" is pinned, but the catalog no longer has it`;
    case 'TM0857':
      return `MCP server "${d.server}" could not be listed, so its tools were not checked against toolman.lock (TM0802 says why)`;
  }
}

/** The drift as one line: its headline and, for a changed tool, each field change. */
export function describeDrift(d: Drift): string {
  return d.code === 'TM0851' ? `${driftHeadline(d)}: ${d.changes.map(describeChange).join('; ')}` : driftHeadline(d);
}

const HINT: Record<Drift['code'], string> = {
  TM0851: 'review the change: `toolman lock --update` pins the new definition (with --gate SUITE... only if your suites do not get worse)',
  TM0852: 'review it, then pin it with `toolman lock --update`, or `exclude` it on the server entry',
  TM0853: 'if that is expected, `toolman lock --update` forgets it',
  TM0854: 'a new version of a server may change its tools\' behaviour: review, then `toolman lock --update`',
  TM0855: 'pin it with `toolman lock --update`',
  TM0856: 'forget it with `toolman lock --update`',
  TM0857: 'start the server (see TM0802) and run again',
};

/**
 * `validate --locked`: every drift as a finding (TM0851–TM0857) located in the lock (a pinned
 * tool's entry, a server's) or, for a server the lock lacks or could not check, at the server's
 * entry in the catalog; no lock, or one that cannot be read, is TM0850. The findings join the
 * manager's, so rule settings and `validate`'s output apply to them; the lock's source joins the
 * catalog's files for code frames.
 */
export function addLockFindings(manager: ToolManager, schemaChanges?: SchemaChanges): void {
  const sink: Diagnostic[] = [];
  const sources = new Map<string, SourceFile>();
  collectLockFindings(manager, sink, sources, schemaChanges);
  manager.addFindings(sink, sources);
}

function collectLockFindings(manager: ToolManager, sink: Diagnostic[], sources: Map<string, SourceFile>, schemaChanges?: SchemaChanges): void {
  const { loaded } = manager;
  let found: ReturnType<typeof catalogLock>;
  try {
    found = catalogLock(manager);
  } catch (error) {
    if (!(error instanceof LockFileError)) throw error;
    sink.push({ code: 'TM0850', severity: 'error', message: error.reason, file: error.file, line: error.line, column: error.column, pointer: error.pointer, ...(error.hint ? { hint: error.hint } : {}) });
    return;
  }
  const { display, found: lockFound } = found;
  if (!lockFound) {
    // A catalog without servers has nothing to pin: no lock is no finding.
    if (manager.catalog.mcpServers.size === 0) return;
    sink.push({ code: 'TM0850', severity: 'error', message: `no ${display}: nothing is pinned`, file: display, line: 0, column: 0, pointer: '', hint: 'pin the MCP servers\' tools with `toolman lock`, and commit the file' });
    return;
  }
  const lock = lockFound.lock;
  const source = lockFound.source();
  sources.set(display, source);
  const reporter = new Reporter(source, sink);
  const at = (...segments: string[]) => segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  for (const d of currentDrift(manager, lock, schemaChanges)) {
    const message = describeDrift(d);
    const before = sink.length;
    if (d.code === 'TM0855' || d.code === 'TM0857') {
      const config = manager.catalog.mcpServers.get(d.server)!;
      const file = loaded.sources.get(config.file);
      if (file) new Reporter(file, sink).report(d.code, config.pointer, message, { part: 'key', hint: HINT[d.code], subject: '' });
    } else if (d.code === 'TM0851' || d.code === 'TM0853') {
      reporter.report(d.code, at('servers', d.server, 'tools', d.tool), message, { part: 'key', hint: HINT[d.code] });
    } else if (d.code === 'TM0852') {
      reporter.report(d.code, at('servers', d.server, 'tools'), message, { part: 'key', hint: HINT[d.code] });
    } else if (d.code === 'TM0854') {
      reporter.report(d.code, at('servers', d.server, d.what === 'entry' ? 'entry' : 'server_info'), message, { hint: HINT[d.code] });
    } else {
      reporter.report(d.code, at('servers', d.server), message, { part: 'key', hint: HINT[d.code] });
    }
    if ('catalogName' in d) for (const diagnostic of sink.slice(before)) diagnostic.tool = d.catalogName;
  }
}
