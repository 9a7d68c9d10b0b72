import type { AgentLoopEvent } from '../agents/agent-host.js';
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { DiagnosticCode } from '../catalog/diagnostic-codes.js';
import type { RuleLevel } from '../validate/rule-settings.js';
import type { CheckedCatalog } from '../validate/validate-catalog.js';
import { loadCatalog, type LoadedCatalog } from '../catalog/load-catalog.js';
import { toolIndex } from '../catalog/tool-index.js';
import type { Catalog, Tool } from '../catalog/types.js';
import type { BudgetReport, BudgetRequest } from '../budget/budget-report.js';
import type { RunnerRegistry } from '../execute/runner.js';
import type { Approver, CallEvent } from '../execute/types.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import type { ToolSearch } from '../search/tool-search.js';
import { resolveProfile, defaultProfileName } from '../select/resolve-profile.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import type { SearchMode, ToolSession } from '../session/tool-session.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';
import type { McpServers, McpServerStatus, McpToolsChange } from '../mcp/mcp-servers.js';
import { catalogSecrets } from './catalog-secrets.js';
import { parseCacheFrom, schemaCheckCacheFrom, ValidationCache } from './validation-cache.js';

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
   * Ask every MCP server for its tools again instead of using the cached lists (`--refresh`);
   * default: TOOLMAN_MCP_REFRESH=1 in `env`.
   */
  refreshMcp?: boolean;
}

/** What a conversation (the loop, the REPL, `call`, `serve`, a test case) asks for. */
export interface SessionRequest {
  profile?: string;
  force?: readonly string[];
  searchMode?: SearchMode;
  /** Defer the costliest tools until the definitions budget fits, as `defer: auto` does. */
  deferAuto?: boolean;
  /** The provider (and model) whose token costs drive automatic deferral; default openai. */
  provider?: ProviderName;
  model?: string;
  format?: FormatOptions;
  approve?: Approver;
  onEvent?: (event: CallEvent) => void;
  /** Layers runners over the manager's for this session only (the test runner's stubs and mocks). */
  wrapRunners?: (runners: RunnerRegistry) => RunnerRegistry;
}

/**
 * The facade every driver goes through: the CLI's commands, the chat loop and REPL, `serve` and
 * the test runner. It owns the catalog, selection, search, the runners that run tools, sessions,
 * formatting and budgets; `close()` stops whatever it started (sessions' jobs now, MCP servers and
 * agents as they arrive). What only some commands need (search, sessions and runners, budgets,
 * the checks) is imported when first used, so `list` or `validate` start without it.
 */
export class ToolManager {
  private readonly searches = new Map<string, ToolSearch>();
  private readonly sessions = new Set<ToolSession>();
  private checked: CheckedCatalog | undefined;
  private registry: Promise<RunnerRegistry> | undefined;
  /** The catalog's MCP servers, when it has any. */
  private mcp: McpServers | undefined;
  private mcpRunner = false;
  private readonly agentListeners = new Set<(event: AgentLoopEvent) => void>();

  private constructor(
    readonly loaded: LoadedCatalog,
    readonly cwd: string,
    readonly env: Record<string, string | undefined>,
    readonly secrets: SecretSet,
    private readonly log: ((text: string) => void) | undefined,
  ) {}

  get catalog(): Catalog {
    return this.loaded.catalog;
  }

  /** Loads the catalog (and, as they arrive, starts what it needs) and returns the manager over it. */
  static async open(options: OpenOptions): Promise<ToolManager> {
    const cwd = options.cwd ?? process.cwd();
    const env = options.env ?? {};
    const parseCache = parseCacheFrom(env);
    const loaded = loadCatalog(options.catalogs, { cwd, ...(parseCache ? { parseCache } : {}) });
    const manager = new ToolManager(loaded, cwd, env, catalogSecrets(loaded, env), options.log);
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
    if (loaded.catalog.mcpServers.size > 0 && !(options.requireValid !== false && loadErrors)) await this.loadMcpServers(options.refreshMcp ?? env.TOOLMAN_MCP_REFRESH === '1');
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
        loaded.catalog.tools = loaded.catalog.tools.filter((t) => !broken.has(t.name));
        for (const [tool, reason] of broken) this.leftOut.push({ tool, reason });
        // Its findings become one warning each: the tool is not offered, so nothing fails with it.
        const findings = loaded.diagnostics;
        for (let i = findings.length - 1; i >= 0; i--) {
          const d = findings[i]!;
          if (d.tool !== undefined && broken.has(d.tool)) findings.splice(i, 1);
        }
        for (const d of errors.filter((e) => e.tool !== undefined && broken.get(e.tool) === `${e.code} ${e.message}`)) {
          findings.push({ ...d, code: 'TM0804', severity: 'warning', message: `${d.message}; the tool is left out` });
        }
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

  private async loadMcpServers(refresh: boolean): Promise<void> {
    const { McpServers } = await import('../mcp/mcp-servers.js');
    this.mcp = new McpServers(this.loaded, { cwd: this.cwd, env: this.env, secrets: this.secrets, refresh });
    await this.mcp.load();
    // Tools changed under a running chat: what was built over the old list is rebuilt on next use.
    this.mcp.onToolsChanged(() => {
      this.searches.clear();
      this.checked = undefined;
    });
  }

  /** Where each MCP server's tools came from (cache with its age, live, unavailable with why). */
  /** MCP servers' tools left out because the catalog would have been refused with them, and why. */
  readonly leftOut: { tool: string; reason: string }[] = [];

  mcpServers(): McpServerStatus[] {
    return this.mcp?.statuses() ?? [];
  }

  /**
   * Starts every MCP server now and calls `listener` when one's tools change (a running chat: the
   * catalog's tools are already replaced, so a new session offers the new ones). Returns the unsubscribe.
   */
  watchMcpServers(listener: (change: McpToolsChange) => void): () => void {
    if (!this.mcp) return () => undefined;
    const unsubscribe = this.mcp.onToolsChanged(listener);
    this.mcp.watch();
    return unsubscribe;
  }

  /**
   * Every finding `validate` reports for this catalog: the checks run once, and rule settings
   * (the catalog's `lint:`, `rules` from `--rule`, disable comments) apply on each call.
   */
  async validate(rules?: ReadonlyMap<DiagnosticCode, RuleLevel>): Promise<Diagnostic[]> {
    const module = await import('../validate/validate-catalog.js');
    if (!this.checked) {
      const schemaChecks = schemaCheckCacheFrom(this.env);
      // Patterns are checked against MCP servers' tools wherever those are known (listed or cached).
      this.checked = module.runChecks(this.loaded, { ...(schemaChecks ? { schemaChecks } : {}), mcpServers: this.mcpServers() });
    }
    return module.withRuleSettings(this.loaded, this.checked, rules);
  }

  /** The runners tools run through, by handler kind (MCP servers and agents add theirs). */
  runners(): Promise<RunnerRegistry> {
    this.registry ??= import('../execute/runners/default-runners.js').then(async ({ defaultRunners }) => {
      const registry = defaultRunners({ output: (text) => this.log?.(this.secrets.redact(text)) });
      if (this.catalog.agents.size > 0) {
        const { createAgentRunner } = await import('../agents/agent-runner.js');
        registry.register(createAgentRunner({ catalog: this.catalog, session: (request) => this.session(request), onEvent: (event) => this.agentListeners.forEach((listener) => listener(event)) }));
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
    return toolIndex(this.catalog).require(name);
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
      const budgeted = await budgetedSelection(this.catalog, { provider, model: request.model ?? DEFAULT_MODELS[provider], ...base, deferAuto: request.deferAuto ?? false, ...(request.format ? { format: request.format } : {}) });
      return { request: budgeted.selection, selection: selectTools(this.catalog, budgeted.selection) };
    }
    return { request: base, selection: selectTools(this.catalog, base) };
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
    const [{ request: selection }, { ToolSession }, runners] = await Promise.all([this.selection(request), import('../session/tool-session.js'), this.runners()]);
    const session = new ToolSession(this.catalog, { ...selection, ...(request.searchMode ? { searchMode: request.searchMode } : {}) }, {
      runners: request.wrapRunners ? request.wrapRunners(runners) : runners,
      cwd: this.cwd,
      env: this.env,
      secrets: this.secrets,
      ...(request.approve ? { approve: request.approve } : {}),
      ...(request.onEvent ? { onEvent: request.onEvent } : {}),
      onClose: () => this.sessions.delete(session),
    });
    this.sessions.add(session);
    return session;
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
    const counter = options.exact ? exactCounter(request.provider, request.model ?? DEFAULT_MODELS[request.provider], this.env) : undefined;
    return budgetReport(this.catalog, request, counter);
  }

  /** Stops everything the manager started. */
  async close(): Promise<void> {
    for (const session of [...this.sessions]) session.close();
    this.sessions.clear();
    const registry = this.registry;
    this.registry = undefined;
    this.mcpRunner = false;
    if (registry) await (await registry).close();
    await this.mcp?.close();
  }
}
