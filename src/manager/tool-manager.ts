import { resolve } from 'node:path';
import type { AgentLoopEvent } from '../loop/loop-events.js';
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { SourceFile } from '../catalog/source-file.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import type { DiagnosticCode } from '../catalog/diagnostic-codes.js';
import type { RuleLevel } from '../validate/rule-settings.js';
import type { CheckedCatalog } from '../validate/validate-catalog.js';
import type { PluginInspector } from '../validate/check-plugins.js';
import type { ToolQuality } from '../validate/quality-criteria.js';
import { loadCatalog, type LoadedCatalog } from '../catalog/load-catalog.js';
import { toolIndex } from '../catalog/tool-index.js';
import type { Catalog, Tool } from '../catalog/types.js';
import type { BudgetReport, BudgetRequest } from '../budget/budget-report.js';
import type { RunnerRegistry } from '../execute/runner.js';
import type { Summariser } from '../execute/types.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import type { ToolSearch } from '../search/tool-search.js';
import { resolveProfile, defaultProfileName } from '../select/resolve-profile.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import type { ToolSession } from '../session/tool-session.js';
import type { SessionRequest } from '../session/session-request.js';
import type { Conversation } from '../conversation/conversation.js';
import type { ConversationOptions } from '../conversation/conversation-options.js';
import { formatOptions, type FormatFlags } from '../providers/format-options.js';
import { credentialsFor, type CredentialsRequest } from '../providers/credentials.js';
import type { ApiCredentials } from '../providers/http-json.js';
import { withLoading, type Loading } from '../select/with-loading.js';

export type { SessionRequest };
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';
import type { CatalogHolder, McpServers, McpServersOptions, McpServerState, McpServerStatus, McpToolsChange } from '../mcp/mcp-servers.js';
import type { McpInteraction } from '../mcp/mcp-interaction.js';
import type { ServerContent } from '../mcp/server-content.js';
import type { LockMode, PinNote } from '../lock/pin-tools.js';
import { catalogSecrets } from './catalog-secrets.js';
import { findingsCacheFrom, parseCacheFrom, schemaCheckCacheFrom, tokenCountCacheFrom, ValidationCache } from './validation-cache.js';

export interface OpenOptions {
  /** Root catalog files, merged as if one included the others. */
  catalogs: readonly string[];
  /** Base for relative paths; default: the process's working directory. */
  cwd?: string;
  /** Where `${env:NAME}` values come from; default: none. */
  env?: Record<string, string | undefined>;
  /**
   * Which broken catalogs to refuse. `true` (the default): one whose files cannot be read as
   * written (YAML, includes, the catalog schema), for commands that only show the catalog.
   * `'all'`: one with any error `validate` reports, for everything that sends tools to a model or
   * runs them (`format`, `budget`, `call`, the loop): a provider would reject it, or it would run
   * differently from what was written. `false`: none (`validate` itself).
   */
  requireValid?: boolean | 'all';
  /**
   * Where tools' own output goes (what a module handler prints to its console): the CLI passes
   * standard error. Secrets are redacted first. Default: dropped.
   */
  log?: (text: string) => void;
  /**
   * The catalog was named by a file the user did not name as a catalog (a recording, a suite),
   * which this says: nothing it declares runs but its mock handlers. No MCP server starts (each
   * is a program), no agent is called, no exec, http or module handler runs; such calls fail
   * with a message saying why (SECURITY.md).
   */
  namedBy?: string;
  /**
   * Ask every MCP server for its tools again instead of using the cached lists (`--refresh`);
   * default: TOOLMAN_MCP_REFRESH=1 in `env`.
   */
  refreshMcp?: boolean;
  /**
   * How toolman.lock (beside the first root catalog: `toolman.yaml` → `toolman.lock`) applies to
   * the MCP servers' tools, for every command: `enforce` (the default) leaves out each tool that
   * differs from the lock, or that the lock does not pin, and says why (`leftOut`); a later
   * listing (tools changed, a cached server's first call) is held to it too, and the MCP runner
   * refuses a tool a session still holds once its server's list no longer passes. `accept-drift`
   * (`--accept-drift`, or TOOLMAN_ACCEPT_DRIFT=1 in `env`): the tools as the servers offer them,
   * each difference said (`driftAccepted`). `pinned`: the lock's copies of the definitions (`lock
   * --gate`'s old side). `off`: the lock is not read (`validate` and `lock` compare it themselves).
   * Without a lock file nothing is pinned; a lock that cannot be read refuses the catalog.
   */
  lock?: LockMode | 'off';
  /**
   * How this driver answers what MCP servers ask in the middle of a call (a form, a page to
   * visit, a prompt for the user's model): the REPL asks the user, `--yes` accepts a one-question
   * yes/no form. The servers are told exactly what it supports; without one they may ask nothing.
   */
  mcpInteraction?: McpInteraction;
  /**
   * OAuth for the HTTP servers: `login` is the browser step (only `mcp login` and `--login` give
   * one; without it a server that needs a login is reported, TM0831, with `loginHint`), `oauth`
   * the command line's client settings over the entries'.
   */
  mcpAuth?: Pick<McpServersOptions, 'login' | 'loginHint' | 'oauth'>;
}

/** Selections remembered per catalog (`plainSelection`): profiles times forced-tool lists in use. */
const MAX_PLAIN_SELECTIONS = 64;

/**
 * The facade every driver goes through: the CLI's commands, the chat loop and REPL, `serve` and
 * the test runner. It owns the catalog, selection, search, the runners that run tools, sessions,
 * formatting and budgets; `close()` stops whatever it started (sessions' jobs now, MCP servers and
 * agents as they arrive). What only some commands need (search, sessions and runners, budgets,
 * the checks) is imported when first used, so `list` or `validate` start without it.
 */
export class ToolManager {
  private readonly searches = new Map<string, ToolSearch>();
  /** Selections without automatic deferral, per catalog and request (`plainSelection`). */
  private readonly plainSelections = new WeakMap<Catalog, Map<string, Selection>>();
  private readonly sessions = new Set<ToolSession>();
  private checked: CheckedCatalog | undefined;
  private registry: Promise<RunnerRegistry> | undefined;
  /** The catalog's MCP servers, when it has any. */
  private mcp: McpServers | undefined;
  private content: Promise<ServerContent> | undefined;
  private mcpRunner = false;
  private readonly agentListeners = new Set<(event: AgentLoopEvent) => void>();
  /** The catalog as its files say it: findings are remembered only for that (not with MCP servers' tools, findings added, or another loading). */
  private readonly asLoaded: LoadedCatalog;

  private constructor(
    private current: LoadedCatalog,
    readonly cwd: string,
    readonly env: Record<string, string | undefined>,
    readonly secrets: SecretSet,
    private readonly log: ((text: string) => void) | undefined,
    private readonly namedBy: string | undefined,
    /** The root catalog files as opened (the others are their includes), resolved. */
    readonly rootFiles: readonly string[],
  ) {
    this.asLoaded = current;
  }

  get catalog(): Catalog {
    return this.current.catalog;
  }

  /** What named the catalog when the user did not (`OpenOptions.namedBy`). */
  get catalogNamedBy(): string | undefined {
    return this.namedBy;
  }

  /** The catalog as loaded: its files, their sources and the loader's findings. */
  get loaded(): LoadedCatalog {
    return this.current;
  }

  /**
   * Findings from outside the checks (`validate --locked`'s drift), joined to the loaded catalog's
   * as a new value, with the sources they point into (for code frames). The checks run again.
   */
  addFindings(found: readonly Diagnostic[], sources: ReadonlyMap<string, SourceFile> = new Map()): void {
    this.current = { ...this.current, diagnostics: [...this.current.diagnostics, ...found], sources: new Map([...this.current.sources, ...sources]) };
    this.checked = undefined;
  }

  /**
   * From now on, every tool eager or every tool deferred (`test --compare eager deferred`): a new
   * catalog value, so sessions already open keep theirs.
   */
  useLoading(loading: Loading): void {
    this.current = { ...this.current, catalog: withLoading(this.current.catalog, loading) };
    this.searches.clear();
    this.checked = undefined;
  }

  /**
   * A provider's key and base URL from this manager's environment (`credentialsFor`): the key
   * becomes one of the manager's secrets; a missing one is a usage error saying which to set.
   */
  credentials(provider: ProviderName, request: Omit<CredentialsRequest, 'secrets'>): ApiCredentials {
    return credentialsFor(provider, this.env, { ...request, secrets: this.secrets });
  }

  /** Loads the catalog (and, as they arrive, starts what it needs) and returns the manager over it. */
  static async open(options: OpenOptions): Promise<ToolManager> {
    const cwd = options.cwd ?? process.cwd();
    const env = options.env ?? {};
    const parseCache = parseCacheFrom(env);
    const loaded = loadCatalog(options.catalogs, { cwd, ...(parseCache ? { parseCache } : {}) });
    const manager = new ToolManager(loaded, cwd, env, catalogSecrets(loaded, env), options.log, options.namedBy, options.catalogs.map((file) => resolve(cwd, file)));
    const loadErrors = loaded.diagnostics.some((d) => d.severity === 'error');
    try {
      await manager.admit(options, loadErrors);
    } catch (error) {
      // Refused (or a server failed to start): whatever was started stops, or it would keep toolman alive.
      await manager.close();
      throw error;
    }
    return manager;
  }

  /** Adds the MCP servers' tools, then refuses the catalog if `options.requireValid` says so. */
  private async admit(options: OpenOptions, loadErrors: boolean): Promise<void> {
    const { loaded, env } = this;
    // MCP servers' tools join the catalog (from the cache, or by starting the servers) unless it is refused anyway.
    if (loaded.catalog.mcpServers.size > 0 && this.namedBy) {
      // Each server is a program: a catalog the user did not choose starts none.
      this.log?.(`warning: the MCP servers of this catalog (${[...loaded.catalog.mcpServers.keys()].join(', ')}) are not started: ${this.namedBy} names the catalog, and you did not\n`);
    } else if (loaded.catalog.mcpServers.size > 0 && !(options.requireValid !== false && loadErrors)) {
      await this.loadMcpServers(options.refreshMcp ?? env.TOOLMAN_MCP_REFRESH === '1', options.lock ?? (env.TOOLMAN_ACCEPT_DRIFT === '1' ? 'accept-drift' : 'enforce'), options.mcpInteraction, options.mcpAuth);
    }
    const cache = options.requireValid === 'all' && !loadErrors ? ValidationCache.from(env) : undefined;
    const toolLists = this.mcp?.fingerprint();
    if ((options.requireValid === 'all' && !cache?.knownValid(loaded, toolLists)) || (options.requireValid !== false && loadErrors)) {
      // Refused: count and show what `validate` would, not only what loading found.
      let errors = (await this.validate()).filter((d) => d.severity === 'error');
      // A server's tool list is untrusted: a tool of it that would be refused is left out (and
      // said), so one bad entry never costs the rest of the catalog. `validate` still shows it.
      const broken = new Map<string, string>();
      for (const d of errors) if (d.tool && !broken.has(d.tool) && this.catalog.tools.some((t) => t.name === d.tool && t.source.kind === 'mcp')) broken.set(d.tool, `${d.code} ${d.message}`);
      if (broken.size > 0) {
        for (const [tool, reason] of broken) this.leftOut.push({ tool, reason });
        // Its findings become one warning each: the tool is not offered, so nothing fails with it.
        const kept = this.current.diagnostics.filter((d) => !(d.tool !== undefined && broken.has(d.tool)));
        const notes = errors.filter((e) => e.tool !== undefined && broken.get(e.tool) === `${e.code} ${e.message}`).map((d) => ({ ...d, code: 'TM0804' as const, severity: 'warning' as const, message: `${d.message}; the tool is left out` }));
        this.current = { ...this.current, catalog: { ...this.current.catalog, tools: this.current.catalog.tools.filter((t) => !broken.has(t.name)) }, diagnostics: [...kept, ...notes] };
        this.checked = undefined;
        errors = errors.filter((d) => !(d.tool !== undefined && broken.has(d.tool)));
      }
      // A verdict with tools left out is not remembered: the next run must leave them out again.
      if (errors.length === 0 && broken.size === 0) cache?.rememberValid(loaded, toolLists);
      if (errors.length > 0) {
        const first = errors[0]!;
        throw new ToolmanError(ErrorCode.CATALOG_INVALID, `the catalog has ${errors.length} error${errors.length === 1 ? '' : 's'}; first: ${first.file}:${first.line}:${first.column} ${first.code} ${first.message}`, {
          // Several root files are one catalog: only validating them together shows what their merge broke.
          hint: `run \`toolman ${options.catalogs.length > 1 ? `${options.catalogs.map((file) => `-c ${file}`).join(' ')} validate` : `validate ${loaded.catalog.files[0] ?? ''}`.trimEnd()}\` to see them all`,
        });
      }
    }
  }

  private async loadMcpServers(refresh: boolean, lock: LockMode | 'off', interaction: McpInteraction | undefined, auth: OpenOptions['mcpAuth']): Promise<void> {
    const { McpServers } = await import('../mcp/mcp-servers.js');
    const admit = lock === 'off' ? undefined : await (await import('./tool-pins.js')).lockAdmission(this, lock, (note) => this.driftAccepted.push(note));
    // The manager holds the catalog as a value: the servers' tools and findings make a new one.
    const current = () => this.current;
    const holder: CatalogHolder = {
      get loaded() {
        return current();
      },
      replaceTools: (tools) => void (this.current = { ...this.current, catalog: { ...this.current.catalog, tools } }),
      addFindings: (found) => void (this.current = { ...this.current, diagnostics: [...this.current.diagnostics, ...found] }),
    };
    this.mcp = new McpServers(holder, { cwd: this.cwd, env: this.env, secrets: this.secrets, refresh, ...(admit ? { admit } : {}), ...(interaction ? { interaction } : {}), ...auth });
    await this.mcp.load();
    for (const { tool, reason } of this.mcp.refused) this.leftOut.push({ tool, reason });
    // Tools changed under a running chat: what was built over the old list is rebuilt on next use.
    this.mcp.onToolsChanged((change) => {
      this.searches.clear();
      this.checked = undefined;
      // Said by the driver that watches (the REPL), else by whoever listens for the rest (the CLI).
      if (this.watchers === 0) for (const listener of this.unwatched) listener(change);
    });
  }

  private watchers = 0;
  private readonly unwatched = new Set<(change: McpToolsChange) => void>();

  /**
   * Every change of an MCP server's tools that no `watchMcpServers` listener shows (a command
   * that is not the REPL: `call`, `list`, `serve`...): the ones found while loading (a refreshed
   * list that differs from the cached one) at once, later ones (a cached list checked when its
   * server starts, `list_changed`) as they come. Each change is said once. Returns the unsubscribe.
   */
  onUnwatchedMcpChange(listener: (change: McpToolsChange) => void): () => void {
    for (const change of this.mcp?.takeChanges() ?? []) listener(change);
    this.unwatched.add(listener);
    return () => this.unwatched.delete(listener);
  }

  /**
   * MCP servers' tools left out, and why: they would have got the catalog refused, or they differ
   * from toolman.lock.
   */
  readonly leftOut: { tool: string; reason: string }[] = [];
  /** MCP servers' tools that differ from toolman.lock, used anyway (`--accept-drift`), and how. */
  readonly driftAccepted: PinNote[] = [];

  /** Each MCP server's list as it answered (none when it could not be listed), and what it reported. */
  mcpListings(): ReturnType<McpServers['listings']> {
    return this.mcp?.listings() ?? [];
  }

  /** Where each MCP server's tools came from (cache with its age, live, unavailable with why). */
  mcpServers(): McpServerStatus[] {
    return this.mcp?.statuses() ?? [];
  }

  /** Each MCP server's state now: up, starting, not started, or failed with why and the end of its stderr (the REPL's /mcp). */
  mcpServerStates(): Promise<McpServerState[]> {
    return this.mcp ? this.mcp.inspect() : Promise.resolve([]);
  }

  /**
   * The MCP servers' prompts and resources (issue 21 item 4): lists, a prompt by the name toolman
   * gives it, a resource by server and URI, each cleaned and bounded (src/mcp/server-content.ts).
   * Loaded with the first use; a catalog without MCP servers has none.
   */
  mcpContent(): Promise<ServerContent> {
    return (this.content ??= import('../mcp/server-content.js').then(({ ServerContent }) => new ServerContent(this.mcp)));
  }

  /** Stops an MCP server and starts it again, then takes its tools anew (a change reaches `watchMcpServers` listeners). */
  restartMcpServer(name: string): Promise<McpServerState> {
    if (!this.mcp) return Promise.reject(new ToolmanError(ErrorCode.MCP_SERVER, `no MCP server "${name}": this catalog has no mcp_servers${this.namedBy ? ` that were started (${this.namedBy} names the catalog)` : ''}`));
    return this.mcp.restart(name);
  }

  /**
   * Starts every MCP server now and calls `listener` when one's tools change (a running chat: the
   * catalog's tools are already replaced, so a new session offers the new ones). Returns the unsubscribe.
   */
  watchMcpServers(listener: (change: McpToolsChange) => void): () => void {
    if (!this.mcp) return () => undefined;
    for (const change of this.mcp.takeChanges()) listener(change);
    const unsubscribe = this.mcp.onToolsChanged(listener);
    this.watchers++;
    this.mcp.watch();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.watchers--;
      unsubscribe();
    };
  }

  /**
   * Every finding `validate` reports for this catalog: the checks run once, and rule settings
   * (the catalog's `lint:`, `rules` from `--rule`, disable comments) apply on each call. With
   * `checkPlugins` under way, its findings join these once it is done.
   */
  async validate(rules?: ReadonlyMap<DiagnosticCode, RuleLevel>): Promise<Diagnostic[]> {
    // On an unchanged catalog what the checks found is remembered: the checks themselves (ajv,
    // WordNet, the schema walkers) are not even loaded then.
    const remembered = await import('../validate/remembered-checks.js');
    const findings = this.findingsCache();
    if (!this.checked && findings) this.checked = remembered.rememberedChecks(this.loaded, findings);
    let checks: typeof import('../validate/validate-catalog.js') | undefined;
    if (!this.checked) {
      checks = await import('../validate/validate-catalog.js');
      const schemaChecks = schemaCheckCacheFrom(this.env);
      // Patterns are checked against MCP servers' tools wherever those are known (listed or cached).
      // The findings cache was asked above: the checks run without it, and what they find is kept.
      this.checked = checks.runChecks(this.loaded, { ...(schemaChecks ? { schemaChecks } : {}), mcpServers: this.mcpServers() });
      if (findings) remembered.rememberChecks(this.loaded, findings, this.checked);
    }
    const checked = this.checked;
    const plugins = (await this.pluginFindings) ?? [];
    if (!remembered.qualityPending(checked, rules)) return remembered.settledFindings(this.loaded, checked, rules, plugins);
    checks ??= await import('../validate/validate-catalog.js');
    return checks.withRuleSettings(this.loaded, checked, rules, plugins);
  }

  /**
   * Each tool's description-quality grade (the facade's `descriptionQuality`), remembered with
   * the findings for an unchanged catalog.
   */
  async qualityGrades(): Promise<ToolQuality[]> {
    const findings = this.findingsCache();
    const remembered = findings ? await import('../validate/remembered-checks.js') : undefined;
    const known = findings && remembered?.rememberedGrades(this.loaded, findings);
    if (known) return known;
    const { descriptionQuality } = await import('../validate/description-quality.js');
    const grades = descriptionQuality(this.catalog).tools;
    if (findings) remembered!.rememberGrades(this.loaded, findings, grades);
    return grades;
  }

  /** Where what the checks find is remembered: only for the catalog as its files say it, with no MCP servers' tools in it. */
  private findingsCache(): ParseCache | undefined {
    return this.current === this.asLoaded && this.catalog.mcpServers.size === 0 ? findingsCacheFrom(this.env) : undefined;
  }

  /**
   * Starts loading the catalog's plugins (in their worker threads) to find what `validate`
   * reports about them: a plugin that cannot be found or used, an unknown kind, a config that does
   * not match the kind's schema (TM0740–TM0744), each at its place in the catalog. Their findings
   * join `validate()`'s, which waits for them; the workers start while the rest is checked. What
   * the plugins answer depends on their code, not only on the catalog's files, so they are asked
   * every time; only where their answers sit in the files is remembered.
   * Only `validate` asks: other commands load a plugin when one of its tools is first called. A
   * catalog opened `namedBy` a recording or a suite never loads one.
   */
  checkPlugins(): void {
    if (this.pluginFindings || this.namedBy || !this.catalog.tools.some((tool) => tool.handler?.kind === 'plugin')) return;
    const loaded = this.loaded;
    const findings = this.findingsCache();
    this.pluginFindings = Promise.all([import('../validate/check-plugins.js'), this.runners()]).then(([{ checkPlugins }, registry]) => {
      const runner = registry.get('plugin');
      return runner && 'inspect' in runner ? checkPlugins(loaded, runner as unknown as PluginInspector, findings) : [];
    });
    // Not a rejection nobody handles meanwhile: `validate()` awaits it, and throws what it threw.
    this.pluginFindings.catch(() => undefined);
  }

  private pluginFindings: Promise<Diagnostic[]> | undefined;

  /** The runners tools run through, by handler kind (MCP servers and agents add theirs). */
  runners(): Promise<RunnerRegistry> {
    if (this.namedBy) {
      const namedBy = this.namedBy;
      this.registry ??= import('../execute/runners/mock-only-runners.js').then(({ mockOnlyRunners }) => mockOnlyRunners(namedBy));
      return this.registry;
    }
    this.registry ??= import('../execute/runners/default-runners.js').then(async ({ defaultRunners }) => {
      const registry = defaultRunners({ output: (text) => this.log?.(this.secrets.redact(text)) });
      // Plugins are found and loaded only when one is called (or `validate` checks them).
      if (this.catalog.tools.some((tool) => tool.handler?.kind === 'plugin')) {
        const { createPluginRunner } = await import('../execute/runners/plugin-runner.js');
        const checks = schemaCheckCacheFrom(this.env);
        registry.register(createPluginRunner({ output: (text) => this.log?.(this.secrets.redact(text)), ...(checks ? { checks } : {}) }));
      }
      if (this.catalog.agents.size > 0) {
        const { createAgentRunner } = await import('../agents/agent-runner.js');
        registry.register(createAgentRunner({ catalog: this.catalog, conversation: (options) => this.conversation(options), onEvent: (event) => this.agentListeners.forEach((listener) => listener(event)) }));
      }
      return registry;
    });
    if (this.mcp && !this.mcpRunner) {
      const servers = this.mcp;
      this.mcpRunner = true;
      this.registry = Promise.all([this.registry, import('../mcp/mcp-runner.js')]).then(([registry, { createMcpRunner }]) => registry.register(createMcpRunner(servers)));
    }
    return this.registry;
  }

  /** Every event of sub-agents' nested loops (a driver writes them to its transcript); returns the unsubscribe. */
  onAgentEvent(listener: (event: AgentLoopEvent) => void): () => void {
    this.agentListeners.add(listener);
    return () => this.agentListeners.delete(listener);
  }

  /** A tool by name or alias; an UNKNOWN_TOOL error with suggestions when there is none. */
  tool(name: string): Tool {
    const found = toolIndex(this.catalog).get(name);
    if (found) return found;
    // Left out (toolman.lock, a broken server tool): say why, rather than that there is no such tool.
    const left = this.leftOut.find((l) => l.tool === name);
    if (left) throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `${name} is left out: ${left.reason}`);
    return toolIndex(this.catalog).require(name);
  }

  /** The catalog's name for a tool named by name or alias; undefined when no tool has it. */
  catalogName(name: string): string | undefined {
    return toolIndex(this.catalog).get(name)?.name;
  }

  /** Every name a catalog tool answers to: its name, then its aliases (empty for an unknown name). */
  toolNames(name: string): readonly string[] {
    const found = toolIndex(this.catalog).get(name);
    return found ? [found.name, ...found.aliases] : [];
  }

  select(request: SelectionRequest = {}): Selection {
    return selectTools(this.catalog, request);
  }

  /**
   * The selection a session would get: with `defer: auto` (or `deferAuto`) and a definitions
   * budget, the costliest tools for the provider are deferred until the budget fits.
   */
  async selection(request: Omit<SessionRequest, 'approve' | 'onEvent' | 'searchMode'> = {}): Promise<{ request: SelectionRequest; selection: Selection }> {
    const base: SelectionRequest = { ...(request.profile ? { profile: request.profile } : {}), force: request.force ?? [] };
    const profile = resolveProfile(this.catalog, request.profile ?? defaultProfileName(this.catalog));
    if ((profile.deferAuto || request.deferAuto) && this.catalog.budget.definitions !== undefined) {
      // Automatic deferral needs each tool's cost: the tokenizer loads only in this case.
      const provider = request.provider ?? 'openai';
      const { budgetedSelection } = await import('../budget/budget-report.js');
      const budgeted = await budgetedSelection(this.catalog, { provider, model: request.model ?? DEFAULT_MODELS[provider], ...base, deferAuto: request.deferAuto ?? false, ...(request.format ? { format: request.format } : {}) }, this.tokenCounts());
      return { request: budgeted.selection, selection: selectTools(this.catalog, budgeted.selection) };
    }
    return { request: base, selection: this.plainSelection(base) };
  }

  /**
   * A selection without automatic deferral: a pure function of the catalog and the request, so
   * made once per catalog and request and handed to every session that asks (each run of a suite,
   * each client of `serve`); sessions share the fragments formatted for it (session/tool-session.ts).
   */
  private plainSelection(request: SelectionRequest): Selection {
    const key = JSON.stringify([request.profile ?? null, request.force ?? []]);
    let byRequest = this.plainSelections.get(this.catalog);
    if (!byRequest) this.plainSelections.set(this.catalog, (byRequest = new Map()));
    let selection = byRequest.get(key);
    if (!selection) {
      // A long REPL session can force many different lists: the oldest selection goes first.
      if (byRequest.size >= MAX_PLAIN_SELECTIONS) byRequest.delete(byRequest.keys().next().value!);
      byRequest.set(key, (selection = selectTools(this.catalog, request)));
    }
    return selection;
  }

  /** A search engine over `tools` (default: every enabled tool), built on first use and kept. */
  async search(tools: readonly Tool[] = this.catalog.tools.filter((t) => t.enabled)): Promise<ToolSearch> {
    const key = tools.length === this.catalog.tools.length ? '*' : tools.map((t) => t.name).join('\n');
    let engine = this.searches.get(key);
    if (!engine) {
      const { ToolSearch } = await import('../search/tool-search.js');
      this.searches.set(key, (engine = new ToolSearch(tools)));
    }
    return engine;
  }

  /** A conversation over the catalog: its selection, the tools it finds, the executor for its calls. */
  async session(request: SessionRequest = {}): Promise<ToolSession> {
    const [{ request: selectionRequest, selection }, { ToolSession }, runners, summarise] = await Promise.all([this.selection(request), import('../session/tool-session.js'), this.runners(), request.summarise ?? this.summariser()]);
    // The selection is computed once, here, and handed to the session.
    const session = new ToolSession(this.catalog, { ...selectionRequest, selection, ...(request.searchMode ? { searchMode: request.searchMode } : {}) }, {
      runners: request.wrapRunners ? request.wrapRunners(runners) : runners,
      cwd: this.cwd,
      env: this.env,
      secrets: this.secrets,
      ...(request.approve ? { approve: request.approve } : {}),
      ...(summarise ? { summarise } : {}),
      ...(request.countUsage ? { countUsage: request.countUsage } : {}),
      ...(request.onEvent ? { onEvent: request.onEvent } : {}),
      ...(request.jobIds ? { jobIds: request.jobIds } : {}),
      onClose: () => this.sessions.delete(session),
    });
    this.sessions.add(session);
    return session;
  }

  private summarising: Promise<Summariser | undefined> | undefined;

  /**
   * The summariser of sessions no conversation owns (`call`, `serve`): the catalog's
   * `budget.summarize` model, live, with its key from the environment (none set: each summary
   * falls back to smart truncation and says why). Conversations bring their own, recorded and
   * replayed with them.
   */
  private summariser(): Promise<Summariser | undefined> {
    const settings = this.catalog.budget.summarize;
    if (!settings) return Promise.resolve(undefined);
    this.summarising ??= Promise.all([import('../conversation/side-models.js'), import('../conversation/result-summariser.js')]).then(([{ SideModels }, { resultSummariser }]) =>
      resultSummariser(settings, new SideModels({ mode: 'live' }, this.env, this.secrets, this.namedBy)),
    );
    return this.summarising;
  }

  /**
   * A conversation with a model over this catalog's tools: the one way every driver (the REPL,
   * one-shot chat, `toolman test`, local sub-agents) talks to a model (conversation/).
   */
  async conversation(options: ConversationOptions = {}): Promise<Conversation> {
    const { openConversation } = await import('../conversation/open-conversation.js');
    return openConversation(this, options);
  }

  /** The catalog's `format:` settings with `flags` over them. */
  formatOptions(flags: FormatFlags = {}): FormatOptions {
    return formatOptions(this.catalog.format, flags);
  }

  /** Named tools formatted on their own, outside any session (`format --tool`). */
  async formatTools(provider: ProviderName, names: readonly string[], options: FormatOptions = {}): Promise<FormatResult> {
    const tools = names.map((name) => this.tool(name));
    const { formatTools } = await import('../providers/format-tools.js');
    return formatTools(provider, { tools, deferred: [], toolChoice: { type: 'auto' }, options });
  }

  /** What the definitions cost a provider, eager and with deferral; `exact` also asks the provider (needs its key). */
  async budget(request: BudgetRequest, options: { exact?: boolean } = {}): Promise<BudgetReport> {
    const [{ budgetReport }, { exactCounter }] = await Promise.all([import('../budget/budget-report.js'), import('../providers/exact-count.js')]);
    const counter = options.exact ? exactCounter(request.provider, request.model ?? DEFAULT_MODELS[request.provider], this.env, this.secrets) : undefined;
    const counts = this.tokenCounts();
    return budgetReport(this.catalog, request, counter, { exactAsked: options.exact === true, ...(counts ? { counts } : {}) });
  }

  private counts: ParseCache | undefined | null = null;
  /** Token counts remembered by what was counted (`countDefinitions`, a suite's estimate), in the cache folder; undefined when caching is off. */
  tokenCounts(): ParseCache | undefined {
    if (this.counts === null) this.counts = tokenCountCacheFrom(this.env);
    return this.counts;
  }

  /** Stops everything the manager started. */
  /** Stops sessions, runners and MCP servers. `mcpExitGraceMs`: how long a stdio server may take to exit by itself (default 300 ms). */
  async close(options: { mcpExitGraceMs?: number } = {}): Promise<void> {
    for (const session of [...this.sessions]) session.close();
    this.sessions.clear();
    const registry = this.registry;
    this.registry = undefined;
    this.mcpRunner = false;
    if (registry) await (await registry).close();
    await this.mcp?.close(options.mcpExitGraceMs !== undefined ? { exitGraceMs: options.mcpExitGraceMs } : {});
  }
}
