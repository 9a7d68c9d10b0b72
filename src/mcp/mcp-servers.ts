import { createHash } from 'node:crypto';
import type { Diagnostic } from '../catalog/diagnostic.js';
import { Reporter } from '../catalog/reporter.js';
import { dirname } from 'node:path';
import { applyOverrides } from '../catalog/build-tool.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { McpServerConfig, Tool } from '../catalog/types.js';
import { ErrorCode, isToolmanError, ToolmanError } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import type { SecretSet } from '../shared/secrets.js';
import type { EraVerdict, McpConnection } from './mcp-connection.js';
import type { McpInteraction } from './mcp-interaction.js';
import { describeLaunch, serverLaunch, type ServerLaunch } from './server-launch.js';
import { serverTools } from './server-tools.js';
import type { RepairNote } from './tolerant-transport.js';
import { LoginRequired } from './oauth/oauth-provider.js';
import { ServerSignIns } from './oauth/server-sign-ins.js';
import { describeAge, freshFor, ToolListCache } from './tool-list-cache.js';
import { isChange, toolsChange, type McpToolsChange } from './tools-change.js';

export type { McpToolsChange } from './tools-change.js';

export interface McpServersOptions {
  /** The catalog file folders' base: relative `cwd`s resolve from the server entry's file. */
  cwd: string;
  env: Record<string, string | undefined>;
  secrets: SecretSet;
  /** Ask every server for its tools again, ignoring (and then updating) the cache. */
  refresh?: boolean;
  /** Stale cache entries are shown from this age (default: the server's ttlMs, or a day for a 2025 server). */
  staleAfterMs?: number;
  /** How the driver answers what servers ask during a call (elicitation, sampling); none: nothing is declared. */
  interaction?: McpInteraction;
  /**
   * The browser step of an OAuth sign-in, for `mcp login` and `--login` only: `open` shows the
   * authorization page. Without it a server that needs a login is reported (TM0831) with `loginHint`.
   */
  login?: { open: (url: string) => Promise<void>; signal?: AbortSignal };
  /** How to tell the user to log in to a server (default `toolman mcp login NAME`). */
  loginHint?: (server: string) => string;
  /** OAuth settings from the command line (`--client-id`...), over the entry's `oauth:`. */
  oauth?: { clientId?: string; clientSecretEnv?: string; scopes?: string[] };
  /** Which of a server's tools join the catalog (toolman.lock); default: all of them. */
  admit?: ToolAdmission;
}

/**
 * Decides which of a server's tools (built from its list) join the catalog, given the list and
 * what the server reported; the rest are left out with why. Called at every build: at load and
 * on every later listing (tools changed, the first call of a cached server).
 */
export type ToolAdmission = (
  server: McpServerConfig,
  tools: Tool[],
  context: { listed: readonly unknown[]; serverInfo?: { name: string; version: string }; catalogFile: string },
) => { tools: Tool[]; refused: { tool: string; mcpName: string; reason: string }[] };

/** A server's state: where its tool list came from, and whether it could be reached. */
export interface McpServerStatus {
  name: string;
  source: 'cache' | 'live' | 'unavailable';
  /** Age of the cached list when it came from the cache. */
  ageMs?: number;
  stale?: boolean;
  error?: string;
  /** What to do about the error (`toolman mcp login NAME` for a server that needs a login). */
  hint?: string;
  tools: number;
}

interface ServerState {
  config: McpServerConfig;
  launch?: ServerLaunch;
  /** The raw tool list the catalog's tools of this server were built from. */
  listed?: unknown[];
  status: McpServerStatus;
  connection?: Promise<McpConnection>;
  /** Serializes refreshes of this server's tools. */
  refreshing?: Promise<void>;
  /** The cached list a refreshed one replaced, until the difference has been said. */
  previous?: unknown[];
  /** What the server reported in the handshake (known once it ran). */
  serverInfo?: { name: string; version: string };
  /** MCP names of tools `admit` left out of its last list: a session's old copy must not run them. */
  refused?: Set<string>;
  /** Why the last start failed (a chat's `watch` starts servers and would otherwise forget it): `inspect()` says it. */
  lastFailure?: unknown;
  /** The era the cache says the server speaks: a 2025 server starts without the probe. */
  verdict?: EraVerdict;
}

/**
 * Where the servers' tools and findings go. The manager holds the loaded catalog as a value and
 * replaces it: nothing here changes a catalog in place, so a session or an index made over an
 * earlier catalog keeps what it was made over.
 */
export interface CatalogHolder {
  readonly loaded: LoadedCatalog;
  /** From now on the catalog has these tools (a new catalog value). */
  replaceTools(tools: Tool[]): void;
  /** Findings about the servers, added to the loaded catalog's (a new list). */
  addFindings(found: readonly Diagnostic[]): void;
}

/** A server as `/mcp` shows it: where its tools came from, and whether it runs now. */
export interface McpServerState extends McpServerStatus {
  /** How it is reached: the command line, or the URL. */
  launch: string;
  /** up: connected now; starting: being started; down: not started (its tools came from the cache); failed: could not start, or stopped. */
  running: 'up' | 'starting' | 'down' | 'failed';
  /** Why it failed or stopped, with the end of its stderr for a process; secrets redacted. */
  problem?: string;
}

/**
 * The MCP servers of one catalog, for one manager: their tools joined to the catalog (from the
 * cache, or by starting them in parallel), connections started on first use and kept, tool lists
 * refreshed on `notifications/tools/list_changed`, and everything stopped by `close()`. Findings
 * (a server that cannot start, a name collision, a stale cache entry, a tool that was skipped)
 * are diagnostics at the server's entry, naming the tool.
 */
export class McpServers {
  private readonly servers = new Map<string, ServerState>();
  private readonly cache: ToolListCache | undefined;
  private readonly listeners = new Set<(change: McpToolsChange) => void>();
  /** Changes found while loading, until a driver takes them. */
  private readonly seen: McpToolsChange[] = [];
  private closed = false;
  private readonly signIns: ServerSignIns;
  /** A chat watches: servers started later are asked to tell about tool changes too. */
  private watching = false;
  /** Tools `admit` left out while loading, with why (the manager says them). */
  readonly refused: { tool: string; mcpName: string; reason: string }[] = [];

  constructor(
    private readonly holder: CatalogHolder,
    private readonly options: McpServersOptions,
  ) {
    this.cache = ToolListCache.from(options.env);
    this.signIns = new ServerSignIns(options);
    for (const config of holder.loaded.catalog.mcpServers.values()) this.servers.set(config.name, { config, status: { name: config.name, source: 'unavailable', tools: 0 } });
  }

  /** Joins every server's tools to the catalog: cached lists where there are, the rest started in parallel. */
  async load(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].map(async (state) => {
        try {
          state.launch = serverLaunch(state.config, this.baseDir(state.config), this.options.env, this.options.secrets);
        } catch (error) {
          this.unavailable(state, error);
          return;
        }
        const stored = this.cache?.get(state.launch, this.signIns.loginOf(state.launch));
        const cached = this.options.refresh ? undefined : stored;
        // A 2025 server's verdict is kept as long as its list is fresh: past that, it is probed again (it may have moved on).
        if (stored?.verdict?.era === 'legacy' && !this.options.refresh && Date.now() - stored.listedAt <= freshFor(stored)) state.verdict = stored.verdict;
        if (cached) {
          const ageMs = Date.now() - cached.listedAt;
          const freshness = this.options.staleAfterMs ?? freshFor(cached);
          // Redacted again: an entry written by an older toolman may hold what the server echoed.
          state.listed = this.options.secrets.redactValue(cached.tools);
          if (cached.serverInfo) state.serverInfo = cached.serverInfo;
          state.status = { name: state.config.name, source: 'cache', ageMs, stale: ageMs > freshness, tools: 0 };
          if (ageMs > freshness) {
            const why = cached.ttlMs === undefined ? 'older than a day' : `past the server's freshness hint (ttlMs ${cached.ttlMs})`;
            this.report('TM0803', state.config, `tools from a cached list ${describeAge(ageMs)} old, ${why} (the server was not started)`, 'run the command with --refresh to ask the server again');
          }
          return;
        }
        try {
          const connection = await this.connect(state);
          state.listed = await connection.listTools();
          state.serverInfo = connection.serverInfo;
          if (connection.listCut) this.report('TM0804', state.config, `the tool list was cut: ${connection.listCut}`);
          for (const note of connection.listRepairs) this.report(note.code, state.config, repairMessage(note), note.code === 'TM0830' ? 'the server\'s authors must fix the mark; its other tools are unaffected' : undefined);
          // Asked again (--refresh): what differs from the list the cache held is said before the cache forgets it.
          if (stored) state.previous = this.options.secrets.redactValue(stored.tools);
          this.remember(state, connection, state.listed);
          state.status = { name: state.config.name, source: 'live', tools: 0 };
        } catch (error) {
          this.unavailable(state, error);
        }
      }),
    );
    // Merged in the catalog's order of servers, so names and findings do not depend on timing.
    const tools = [...this.loaded.catalog.tools];
    for (const state of this.servers.values()) {
      if (!state.listed) continue;
      const added = this.build(state, tools, true);
      if (state.previous) {
        const before = this.build({ ...state, listed: state.previous }, tools, false);
        const change = toolsChange(state.config.name, byName(before), byName(added));
        if (isChange(change)) this.seen.push(change);
        state.previous = undefined;
      }
      tools.push(...added);
      state.status.tools = added.length;
    }
    this.holder.replaceTools(tools);
  }

  /** The catalog as the manager holds it now. */
  private get loaded(): LoadedCatalog {
    return this.holder.loaded;
  }

  /**
   * Changes found while loading (a refreshed list that differs from the cached one), each said
   * once: later changes go to `onToolsChanged` listeners as they happen.
   */
  takeChanges(): McpToolsChange[] {
    return this.seen.splice(0);
  }

  /** Each server's list as it answered (undefined when it could not be listed) and what it reported. */
  listings(): { config: McpServerConfig; listed?: readonly unknown[]; serverInfo?: { name: string; version: string }; status: McpServerStatus }[] {
    return [...this.servers.values()].map((s) => ({ config: s.config, ...(s.listed ? { listed: s.listed } : {}), ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}), status: { ...s.status } }));
  }

  /** Whether `admit` left this tool out of its server's current list (a session may still hold it). */
  isRefused(server: string, tool: string): boolean {
    return this.servers.get(server)?.refused?.has(tool) === true;
  }

  /** Where each server's tools came from, for `toolman list` and notes. */
  statuses(): McpServerStatus[] {
    return [...this.servers.values()].map((s) => ({ ...s.status }));
  }

  /** A hash of every server's tool list: part of the validation cache's key. */
  fingerprint(): string {
    const hash = createHash('sha256');
    for (const [name, state] of this.servers) hash.update(name).update('\u0000').update(JSON.stringify(state.listed ?? null)).update('\u0000');
    return hash.digest('hex');
  }

  /** The live connection to a server, started on first use (a cached list starts nothing until a call). */
  connection(server: string, signal?: AbortSignal): Promise<McpConnection> {
    const state = this.servers.get(server);
    if (!state) return Promise.reject(new Error(`no MCP server "${server}" in the catalog`));
    if (!state.launch) return Promise.reject(new Error(state.status.error ?? `MCP server "${server}" cannot be started`));
    return this.connect(state, signal).then(async (connection) => {
      if (connection.lost) {
        // The server died: start it again once, for this call.
        state.connection = undefined;
        await connection.close();
        return this.connect(state, signal);
      }
      // A list taken from the cache is checked against the live one before the first call goes
      // out, so a changed tool (a "rug pull") is said before the call runs, not after.
      if (state.refreshing) await untilAborted(state.refreshing, signal);
      return connection;
    });
  }

  /**
   * Starts every server now (a running chat), so tool-list changes arrive while it runs. With
   * `start: false` (serve's gateway) nothing starts: servers started later, by a call, are watched.
   */
  watch(options: { start?: boolean } = {}): void {
    this.watching = true;
    if (options.start === false) {
      for (const state of this.servers.values()) void state.connection?.then((c) => c.watchTools(), () => undefined);
      return;
    }
    for (const state of this.servers.values()) if (state.launch) this.connect(state).then((c) => c.watchTools(), () => undefined);
  }

  /** The tool as its server listed it last (for `x-mcp-header` mirroring), by its MCP name. */
  definition(server: string, tool: string): Record<string, unknown> | undefined {
    const listed = this.servers.get(server)?.listed;
    const found = listed?.find((entry) => isRecord(entry) && entry.name === tool);
    return isRecord(found) ? found : undefined;
  }

  /** Lists a server's tools again (its headers no longer match what the server expects) and gives the tool's new definition. */
  async relist(server: string, tool: string): Promise<Record<string, unknown> | undefined> {
    const state = this.servers.get(server);
    if (state) await this.refresh(state);
    return this.definition(server, tool);
  }

  /** Tells `listener` when a server's tools change; returns the unsubscribe. */
  onToolsChanged(listener: (change: McpToolsChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(options: { exitGraceMs?: number } = {}): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    const connections = [...this.servers.values()].flatMap((s) => (s.connection ? [s.connection] : []));
    for (const state of this.servers.values()) state.connection = undefined;
    await Promise.allSettled(connections.map(async (c) => (await c).close(options)));
    await this.signIns.close();
  }

  private connect(state: ServerState, signal?: AbortSignal): Promise<McpConnection> {
    if (this.closed) return Promise.reject(new Error('the MCP servers were closed'));
    if (!state.connection) {
      // The SDK loads with the first server started: cached lists never load it.
      const open = async (verdict: EraVerdict | undefined) => {
        const { McpConnection } = await import('./mcp-connection.js');
        const authProvider = await this.signIns.provider(state.config, state.launch);
        return McpConnection.open(state.launch!, {
          secrets: this.options.secrets,
          ...(signal ? { signal } : {}),
          ...(verdict ? { verdict } : {}),
          ...(this.options.interaction ? { interaction: this.options.interaction } : {}),
          ...(authProvider ? { authProvider } : {}),
          loginHint: this.signIns.loginHint(state.config.name),
        });
      };
      // A 2025 verdict that no longer holds (the server moved to 2026-07-28 only) is dropped, and the server probed.
      const started = open(state.verdict).catch((error: unknown) => {
        if (!state.verdict || signal?.aborted || error instanceof LoginRequired) throw error;
        state.verdict = undefined;
        return open(undefined);
      });
      state.connection = started;
      started.then(
        (connection) => {
          if (this.closed) {
            void connection.close();
            return;
          }
          connection.onToolsChanged(() => void this.refresh(state));
          if (this.watching) connection.watchTools();
          // A list taken from the cache is checked against the live one once the server runs.
          if (state.status.source === 'cache') void this.refresh(state);
        },
        (error: unknown) => {
          if (state.connection === started) state.connection = undefined;
          state.lastFailure = error;
        },
      );
    }
    return state.connection;
  }

  /**
   * Each server's state now (the REPL's `/mcp`): its tool list's source, whether it runs (a start
   * under way is not waited for), and why one failed or stopped, with the end of its stderr.
   */
  async inspect(): Promise<McpServerState[]> {
    return Promise.all([...this.servers.values()].map((state) => this.stateOf(state)));
  }

  /**
   * Stops a server and starts it again (`/mcp restart NAME`), then asks for its tools: a changed
   * list replaces its tools in the catalog and is told to `onToolsChanged` listeners, as on
   * `list_changed`. A server that fails again is reported as failed, with why.
   */
  async restart(name: string): Promise<McpServerState> {
    const state = this.servers.get(name);
    if (!state) throw new ToolmanError(ErrorCode.MCP_SERVER, `no MCP server "${name}" in the catalog`, { hint: `servers: ${[...this.servers.keys()].join(', ') || 'none'}` });
    if (!state.launch) {
      try {
        state.launch = serverLaunch(state.config, this.baseDir(state.config), this.options.env, this.options.secrets);
      } catch (error) {
        state.lastFailure = error;
        return this.stateOf(state);
      }
    }
    const previous = state.connection;
    state.connection = undefined;
    state.lastFailure = undefined;
    if (previous) await previous.then((c) => c.close(), () => undefined);
    try {
      await this.connect(state);
      await this.refresh(state);
    } catch {
      // connect() kept why in lastFailure
    }
    return this.stateOf(state);
  }

  private async stateOf(state: ServerState): Promise<McpServerState> {
    const redact = (text: string) => this.options.secrets.redact(text);
    const base = { ...state.status, ...(state.status.error ? { error: redact(state.status.error) } : {}), launch: state.launch ? redact(describeLaunch(state.launch)) : state.config.name };
    const failed = (error: unknown): McpServerState => ({ ...base, running: 'failed', problem: redact(error instanceof Error ? error.message : String(error)) });
    if (!state.launch) return failed(state.lastFailure ?? state.status.error ?? 'it cannot be started');
    if (state.connection) {
      const settled = await Promise.race([state.connection.then((c) => ({ c }), (e: unknown) => ({ e })), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 0))]);
      if (settled === undefined) return { ...base, running: 'starting' };
      if ('e' in settled) return failed(settled.e);
      return settled.c.lost ? failed(settled.c.failure(settled.c.lost)) : { ...base, running: 'up' };
    }
    if (state.lastFailure !== undefined) return failed(state.lastFailure);
    if (state.status.source === 'unavailable') return failed(state.status.error ?? 'it could not be started');
    return { ...base, running: 'down' };
  }

  /** Lists the server's tools again and, when they differ, replaces them in the catalog and tells listeners. */
  private refresh(state: ServerState): Promise<void> {
    const run = async () => {
      const connection = await state.connection;
      if (!connection || this.closed) return;
      let listed: unknown[];
      try {
        listed = await connection.listTools();
      } catch {
        return; // the next call reports the server's state
      }
      this.remember(state, connection, listed);
      state.serverInfo = connection.serverInfo;
      state.status = { name: state.config.name, source: 'live', tools: state.status.tools };
      if (JSON.stringify(listed) === JSON.stringify(state.listed)) return;
      const before = new Map(this.loaded.catalog.tools.filter((t) => t.source.kind === 'mcp' && t.source.server === state.config.name).map((t) => [t.name, t]));
      const others = this.loaded.catalog.tools.filter((t) => !(t.source.kind === 'mcp' && t.source.server === state.config.name));
      state.listed = listed;
      const problems: string[] = [];
      const next = this.build(state, others, false, problems);
      state.status.tools = next.length;
      // A new catalog: indexes and searches built over the old one are rebuilt, sessions keep theirs.
      this.holder.replaceTools([...others, ...next]);
      const change = toolsChange(state.config.name, before, byName(next), problems);
      if (!isChange(change)) return;
      for (const listener of this.listeners) {
        try {
          listener(change);
        } catch {
          // a driver's failure must not break the others
        }
      }
    };
    state.refreshing = (state.refreshing ?? Promise.resolve()).then(run, run);
    return state.refreshing;
  }

  /**
   * The server's tools as catalog tools, with overrides applied; one whose name another tool has
   * is left out and reported with both sources (at load as TM0801, later into `problems`).
   */
  private build(state: ServerState, existing: readonly Tool[], report: boolean, problems: string[] = []): Tool[] {
    const file = this.loaded.sources.get(state.config.file);
    const catalogFile = file?.absolutePath ?? state.config.file;
    const built = serverTools(state.config, state.listed ?? [], catalogFile);
    if (report) for (const note of built.notes) this.report('TM0804', state.config, `tool ${JSON.stringify(note.tool)}: ${note.message}`);
    const admitted = this.options.admit?.(state.config, built.tools, { listed: state.listed ?? [], ...(state.serverInfo ? { serverInfo: state.serverInfo } : {}), catalogFile }) ?? { tools: built.tools, refused: [] };
    const tools = admitted.tools;
    state.refused = new Set(admitted.refused.map((r) => r.mcpName));
    for (const r of admitted.refused) {
      problems.push(`tool "${r.tool}" left out: ${r.reason}`);
      if (report) this.refused.push(r);
    }
    applyOverrides(tools, this.loaded.catalog.overrides);
    const names = new Map<string, Tool>();
    for (const tool of existing) {
      names.set(tool.name, tool);
      for (const alias of tool.aliases) if (!names.has(alias)) names.set(alias, tool);
    }
    const kept: Tool[] = [];
    for (const tool of tools) {
      const other = names.get(tool.name);
      if (other) {
        const message = `tool "${tool.name}" (MCP name ${JSON.stringify(tool.source.kind === 'mcp' ? tool.source.tool : tool.name)}) has the same name as ${this.describeSource(other)}; left out`;
        problems.push(message);
        if (report) this.report('TM0801', state.config, message, 'give the server a `prefix`, `exclude` the tool, or rename the other tool', tool.name);
        continue;
      }
      names.set(tool.name, tool);
      kept.push(tool);
    }
    return kept;
  }

  /** Keeps a live list in the cache, with what the server said of its era, freshness and name. */
  private remember(state: ServerState, connection: McpConnection, listed: readonly unknown[]): void {
    const hints = connection.listHints;
    const serverInfo = connection.serverInfo;
    this.cache?.set(state.launch!, { tools: [...listed], verdict: connection.verdict, ...(hints ? { ttlMs: hints.ttlMs, cacheScope: hints.cacheScope } : {}), ...(serverInfo ? { serverInfo } : {}) }, this.signIns.loginOf(state.launch!));
  }

  private describeSource(tool: Tool): string {
    const source = tool.source;
    if (source.kind === 'mcp') return `tool "${tool.name}" of MCP server "${source.server}"`;
    if (source.kind === 'catalog' || source.kind === 'agent') {
      const span = this.loaded.sources.get(source.file)?.locate(source.kind === 'agent' ? source.pointer : `${source.pointer}/name`, source.kind === 'agent' ? 'key' : 'value');
      return `${source.kind === 'agent' ? 'agent' : 'tool'} "${tool.name}" at ${source.file}:${span?.line ?? 0}:${span?.column ?? 0}`;
    }
    return `toolman's meta-tool "${tool.name}"`;
  }

  private unavailable(state: ServerState, error: unknown): void {
    const message = isToolmanError(error) || error instanceof Error ? error.message : String(error);
    state.status = { name: state.config.name, source: 'unavailable', error: message, ...(error instanceof LoginRequired && error.hint ? { hint: error.hint } : {}), tools: 0 };
    this.report(error instanceof LoginRequired ? 'TM0831' : 'TM0802', state.config, this.options.secrets.redact(message.replace(/^MCP server "[^"]*" /, '')), isToolmanError(error) ? error.hint : undefined);
  }

  private report(code: 'TM0801' | 'TM0802' | 'TM0803' | 'TM0804' | 'TM0830' | 'TM0831', config: McpServerConfig, message: string, hint?: string, tool?: string): void {
    const file = this.loaded.sources.get(config.file);
    if (!file) return;
    const found: Diagnostic[] = [];
    new Reporter(file, found).report(code, config.pointer, message, { part: 'key', ...(hint ? { hint } : {}) });
    if (tool !== undefined) for (const diagnostic of found) diagnostic.tool = tool;
    this.holder.addFindings(found);
  }

  private baseDir(config: McpServerConfig): string {
    const absolute = this.loaded.sources.get(config.file)?.absolutePath;
    return absolute ? dirname(absolute) : this.options.cwd;
  }
}

/** `work`, or the signal's reason as soon as it aborts (the work goes on, unwaited). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A repair of the tolerant transport as a finding's text: `tool "x": left out: ...`. */
function repairMessage(note: RepairNote): string {
  return note.tool !== undefined ? `tool ${JSON.stringify(note.tool)}: ${note.message}` : note.message;
}

function byName(tools: readonly Tool[]): Map<string, Tool> {
  return new Map(tools.map((t) => [t.name, t]));
}
