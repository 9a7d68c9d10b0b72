import { lstatSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { SourceFile } from '../catalog/source-file.js';
import { writePrivateFile } from '../shared/output-file.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { describeFsError } from '../shared/fs-errors.js';
import { isRecord } from '../shared/is-record.js';
import { CONTROL } from '../shared/plain-text.js';
import { FileReadError, MiB, readRegularFile } from '../shared/read-file.js';
import type { ServerInfo } from './server-identity.js';
import { definitionHash, PINNED_FIELDS, type ToolDefinition } from './tool-definition.js';

/** The format of toolman.lock; a lock of another version is refused, never guessed at. */
export const LOCK_VERSION = 1;
/**
 * The largest lock toolman reads: 5,000 tools (one server's cap) of the largest real definitions
 * measured (about 6 KB, github-mcp-server) is 30 MB; a lock is untrusted input (anyone can commit
 * one), so it is bounded like every other.
 */
export const MAX_LOCK_BYTES = 64 * MiB;

/** One pinned tool: its definition's hash and the definition itself (what `lock --update` diffs and `--gate` serves). */
export interface LockedTool {
  hash: string;
  definition: ToolDefinition;
}

/** One pinned server: how the catalog starts it, what it reported, and its tools by their MCP names. */
export interface LockedServer {
  /** `launchIdentity` of the entry as written. */
  launch: string;
  /** The entry as messages show it (`npx -y pkg`, a URL without its query). */
  entry: string;
  serverInfo?: ServerInfo;
  tools: Map<string, LockedTool>;
}

/** toolman.lock in memory: servers by name. Maps, so names from servers are never object keys. */
export interface ToolLock {
  servers: Map<string, LockedServer>;
}

/** A lock that cannot be used, with where (line and column in the file) and why. */
export class LockFileError extends ToolmanError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
    readonly pointer = '',
  ) {
    super(ErrorCode.FILE_UNREADABLE, `${file}${line ? `:${line}:${column}` : ''}: ${reason}`, {
      hint: 'toolman writes this file (toolman lock); run `toolman lock --update` to write it again, and review what it says changed',
      ...(line ? { location: { file, line, column } } : {}),
    });
    this.name = 'LockFileError';
  }
}

/** Where a catalog's lock lives: beside its first root file, named after it (`toolman.yaml` → `toolman.lock`). */
export function lockFilePath(rootCatalog: string): string {
  const name = basename(rootCatalog);
  const extension = extname(name);
  return join(dirname(rootCatalog), `${extension ? name.slice(0, -extension.length) : name}.lock`);
}

/**
 * Reads a lock: undefined when there is none. Anything else that is not a lock toolman wrote (not
 * a regular file, too large, not JSON, the wrong shape, a hash that does not match its
 * definition) throws a LockFileError at the place in the file. `display` is the path for messages.
 */
export function readLock(path: string, display: string): { lock: ToolLock; source: () => SourceFile } | undefined {
  try {
    lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw new LockFileError(display, 0, 0, describeFsError(error));
  }
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: MAX_LOCK_BYTES, label: 'lock file' });
  } catch (error) {
    throw new LockFileError(display, 0, 0, error instanceof FileReadError ? error.reason : describeFsError(error));
  }
  // Positions come from the YAML parser (JSON is YAML), built only when something needs one: a
  // problem, or `validate --locked`'s findings. Reading a good lock costs one JSON.parse.
  let parsed: SourceFile | undefined;
  const source = () => (parsed ??= SourceFile.parse(display, path, text).file);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const syntax = SourceFile.parse(display, path, text).diagnostics[0];
    if (syntax) throw new LockFileError(display, syntax.line, syntax.column, `not valid JSON: ${syntax.message}`);
    // YAML that is not JSON: someone wrote it by hand.
    throw new LockFileError(display, 1, 1, 'not JSON (toolman writes the lock as JSON)');
  }
  return { lock: lockFromData(data, source, display), source };
}

function lockFromData(data: unknown, source: () => SourceFile, display: string): ToolLock {
  const fail = (pointer: string, reason: string, part: 'key' | 'value' = 'value'): never => {
    const span = source().locate(pointer, part);
    throw new LockFileError(display, span.line, span.column, reason, pointer);
  };
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  if (!isRecord(data)) return fail('', 'the lock is not a JSON object');
  if (data.lock_version !== LOCK_VERSION) return fail('/lock_version', data.lock_version === undefined ? 'no lock_version: not a toolman.lock' : `lock_version ${JSON.stringify(data.lock_version)} is not one this toolman reads (${LOCK_VERSION})`);
  if (!isRecord(data.servers)) return fail('/servers', '"servers" must be an object');
  const servers = new Map<string, LockedServer>();
  for (const [name, raw] of Object.entries(data.servers)) {
    const at = `/servers/${escape(name)}`;
    if (!isRecord(raw)) return fail(at, `server ${JSON.stringify(name)} must be an object`);
    if (typeof raw.launch !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(raw.launch)) return fail(`${at}/launch`, '"launch" must be "sha256:" and 64 hex digits');
    if (typeof raw.entry !== 'string') return fail(`${at}/entry`, '"entry" must be a string');
    let serverInfo: ServerInfo | undefined;
    if (raw.server_info !== undefined) {
      const info = raw.server_info;
      if (!isRecord(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return fail(`${at}/server_info`, '"server_info" must be {"name": string, "version": string}');
      serverInfo = { name: info.name, version: info.version };
    }
    if (!isRecord(raw.tools)) return fail(`${at}/tools`, '"tools" must be an object');
    const tools = new Map<string, LockedTool>();
    for (const [tool, entry] of Object.entries(raw.tools)) {
      const where = `${at}/tools/${escape(tool)}`;
      if (!isRecord(entry) || typeof entry.hash !== 'string' || !isRecord(entry.definition)) return fail(where, `tool ${JSON.stringify(tool)} must be {"hash", "definition"}`);
      const definition = entry.definition;
      if (definition.name !== tool) return fail(`${where}/definition/name`, `the definition's name must be ${JSON.stringify(tool)}, the key it is under`);
      const extra = Object.keys(definition).find((key) => !(PINNED_FIELDS as readonly string[]).includes(key));
      if (extra !== undefined) return fail(`${where}/definition/${escape(extra)}`, `"${extra}" is not a pinned field (${PINNED_FIELDS.join(', ')})`, 'key');
      // The hash is recomputed: a definition edited by hand no longer matches, and is refused.
      if (definitionHash(definition as ToolDefinition) !== entry.hash) return fail(`${where}/hash`, 'the hash does not match the definition beside it (was the lock edited by hand?)');
      tools.set(tool, { hash: entry.hash, definition: definition as ToolDefinition });
    }
    servers.set(name, { launch: raw.launch, entry: raw.entry, ...(serverInfo ? { serverInfo } : {}), tools });
  }
  return { servers };
}

/**
 * The lock as toolman writes it: JSON with every object's keys sorted (servers and tools by name
 * too), two-space indents and a final newline, so the same pins are the same bytes and a change
 * is a small diff. Control characters a server put in its text are written as `\u` escapes (JSON
 * already escapes C0; DEL, C1 and bidi controls are escaped too), so `cat` or a diff viewer never
 * acts on them.
 */
export function lockText(lock: ToolLock): string {
  const servers: Record<string, unknown> = {};
  for (const [name, server] of lock.servers) {
    const tools: Record<string, unknown> = {};
    for (const [tool, locked] of server.tools) define(tools, tool, { definition: locked.definition, hash: locked.hash });
    define(servers, name, { entry: server.entry, launch: server.launch, ...(server.serverInfo ? { server_info: server.serverInfo } : {}), tools });
  }
  const document = { '//': 'Pinned MCP tool definitions, written by `toolman lock`. Commit it; review changes with `toolman lock --update`.', lock_version: LOCK_VERSION, servers };
  return `${JSON.stringify(sortedKeys(document), null, 2).replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** A copy with every object's keys in code-point order; `__proto__` and friends stay plain keys. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) define(out, key, sortedKeys(value[key]));
  return out;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Writes the lock as a whole, 0600, aside and renamed, never through a symbolic link (the one private writer). */
export function writeLockFile(path: string, text: string, display: string): void {
  writePrivateFile(path, text, { label: `cannot write ${display}:`, mode: 'replace', scope: { root: dirname(path) } });
}
