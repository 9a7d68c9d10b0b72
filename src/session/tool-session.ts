import { toolIndex, type ToolIndex } from '../catalog/tool-index.js';
import { toolSummary } from '../catalog/tool-summary.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { Executor, type Outcome, type TurnOptions } from '../execute/executor.js';
import { JobStore, type JobIds } from '../execute/job-store.js';
import { RunnerRegistry, ToolFailure, type ToolRunner } from '../execute/runner.js';
import { defaultRunners } from '../execute/runners/default-runners.js';
import type { Approver, CallEvent, CallRecord, SideUsage, Summariser, ToolCall, TurnResult } from '../execute/types.js';
import { decodeArguments, providerToolName } from '../providers/decode-arguments.js';
import { formatTools } from '../providers/format-tools.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import { ToolSearch } from '../search/tool-search.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import { toolChoiceFor, type ToolChoice } from '../select/tool-choice.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { nearest } from '../shared/did-you-mean.js';
import { isToolmanError } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import { SecretSet } from '../shared/secrets.js';
import { discoverTools, jobToolsFor, MAX_SEARCH_RESULTS, toolSearchTool } from './meta-tools.js';
import type { JobUpdate } from '../execute/stateful-job.js';
import { jobAnswer, jobStep, jobToolRead } from './job-answers.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';
import { visibleText } from '../shared/plain-text.js';

export type SearchMode = 'tool_search' | 'discover';

/** A turn's options, and the provider (with its format options) whose model made the calls. */
export interface SessionOptions extends SelectionRequest {
  /** How deferred tools are found; default: the catalog's `search.mode`. */
  searchMode?: SearchMode;
  /** The selection of this request, when the caller computed it already (it is not computed again). */
  selection?: Selection;
}

/** What running tools needs from outside: the manager passes its own. */
export interface SessionServices {
  runners?: RunnerRegistry;
  cwd?: string;
  env?: Record<string, string | undefined>;
  secrets?: SecretSet;
  approve?: Approver;
  /** Summarises results over their limit (`truncation: summarize`): the conversation's small model, or the manager's. */
  summarise?: Summariser;
  /** Counts tools' own model calls (a local sub-agent's) into the owning conversation's turns. */
  countUsage?: (usage: readonly SideUsage[]) => void;
  onEvent?: (event: CallEvent) => void;
  jobIds?: JobIds;
  /** Called once when the session closes (the manager forgets it then). */
  onClose?: () => void;
}

export interface OfferedTools {
  tools: Tool[];
  toolChoice: ToolChoice;
}

/** A tool's definition as the model gets it back from tool_search or get_tool_schema. */
export interface ToolCard {
  name: string;
  summary?: string;
  description?: string;
  parameters: Tool['parameters'];
}

export type MetaToolOutcome = { ok: true; content: unknown; activated: string[] } | { ok: false; error: string };

/** Something changed in what the model is offered (tools found by search). */
export interface SessionChange {
  activated: string[];
}

/**
 * One conversation's view of the catalog: the selection, the deferred tools found so far, the
 * meta-tools that find them, and the executor that runs its calls. The loop, the REPL, `serve`,
 * `call` and the test runner each drive one; its state is plain, so every mode is tested without
 * a model.
 */
export class ToolSession {
  readonly selection: Selection;
  readonly searchMode: SearchMode;
  readonly executor: Executor;
  private readonly discovered = new Set<string>();
  private readonly deferredByName: Map<string, Tool>;
  /** The selection's active tools, for a constant-time check on every call. */
  private readonly active: ReadonlySet<Tool>;
  private readonly tools: ToolIndex;
  private readonly listeners = new Set<(change: SessionChange) => void>();
  private readonly onClose: (() => void) | undefined;
  private closed = false;
  private readonly jobs: JobStore<Outcome>;
  private search: ToolSearch | undefined;
  private cachedMeta: { found: number; tools: Tool[] } | undefined;
  private readonly formatted = new Map<string, FormatResult>();
  private readonly namesByProvider = new Map<ProviderName, Map<string, Tool>>();

  constructor(
    readonly catalog: Catalog,
    options: SessionOptions = {},
    services: SessionServices = {},
  ) {
    this.onClose = services.onClose;
    this.jobs = new JobStore<Outcome>(services.jobIds);
    this.selection = options.selection ?? selectTools(catalog, options);
    this.searchMode = options.searchMode ?? catalog.searchMode;
    this.deferredByName = new Map(this.selection.deferred.map((t) => [t.name, t]));
    this.active = new Set(this.selection.active);
    this.tools = toolIndex(catalog);
    const meta: ToolRunner<'meta'> = {
      kind: 'meta',
      run: async (_handler, args, context) => {
        // Reading a stateful job may wait for its next yield: the one meta-tool that is not instant.
        const outcome = context.tool.name === 'job_next' || context.tool.name === 'job_stop' ? await jobStep(this.jobs, this.executor, context.tool.name, args, context.signal) : this.callMetaTool(context.tool.name, args);
        if (!outcome.ok) throw new ToolFailure(outcome.error);
        return outcome.content;
      },
    };
    this.executor = new Executor({
      scope: this,
      runners: (services.runners ?? defaultRunners()).with(meta),
      limits: catalog.limits,
      budget: catalog.budget,
      cwd: services.cwd ?? process.cwd(),
      env: services.env ?? {},
      secrets: services.secrets ?? new SecretSet(),
      jobs: this.jobs,
      ...(services.approve ? { approve: services.approve } : {}),
      ...(services.summarise ? { summarise: services.summarise } : {}),
      ...(services.countUsage ? { countUsage: services.countUsage } : {}),
      ...(catalog.evaluations.size ? { evaluations: catalog.evaluations } : {}),
      ...(services.onEvent ? { onEvent: services.onEvent } : {}),
    });
  }

  /**
   * Runs one model turn's calls (DESIGN.md §3) with this turn's signal, approver and listener.
   * A model's calls come decoded (`decode`, with its provider); calls not yet decoded are
   * decoded here as named.
   */
  runTurn(calls: readonly (ToolCall | CallRecord)[], options: TurnOptions = {}): Promise<TurnResult> {
    // A call a driver names itself (`call`, `serve`, tests) is decoded here, the same way, with no provider's renames.
    const records = calls.map((call) => (isCallRecord(call) ? call : this.decodeOne(call, undefined, {})));
    return this.executor.runTurn(records, options);
  }

  /**
   * Calls as a model (or a user) made them, each decoded once into the catalog's terms: the
   * arguments parsed; the name resolved through the provider's names, aliases and invoke_tool;
   * with `provider`, what its formatter changed in the arguments undone (strict nulls, Gemini's
   * renames and enums as text).
   */
  decode(calls: readonly ToolCall[], provider?: ProviderName, format: FormatOptions = {}): CallRecord[] {
    return calls.map((call) => this.decodeOne(call, provider, format));
  }

  private decodeOne(call: ToolCall, provider: ProviderName | undefined, format: FormatOptions): CallRecord {
    const args = parseArguments(call.arguments);
    const record = (tool: string, value: unknown, rest: Partial<CallRecord> = {}): CallRecord => {
      const resolved = this.resolve(tool);
      // A name no tool has is shown as evidence: its hidden characters as visible escapes, so a
      // look-alike (`whoami` + an escape sequence) never reads as the real tool anywhere it is shown.
      return { id: call.id, name: call.name, tool: resolved?.name ?? visibleText(tool), arguments: value, via: 'direct', meta: resolved?.source.kind === 'meta', ...rest };
    };
    const tool = (provider ? this.providerNames(provider).get(call.name) : undefined) ?? this.resolve(call.name);
    // Too deep to decode (or to compare) safely: refused, for this call alone.
    if (nestsDeeperThan(args, MAX_JSON_DEPTH)) return record(tool?.name ?? call.name, {}, { meta: false, refused: { kind: 'invalid_arguments', message: `the arguments of ${call.name} nest deeper than ${MAX_JSON_DEPTH} levels` } });
    if (!tool) return record(call.name, args);
    const decoded = provider ? decodeArguments(provider, format, tool, args).arguments : args;
    // By name: the meta-tools are made again when what was found changes.
    if (tool.name === 'invoke_tool' && tool.source.kind === 'meta' && this.metaTools().some((t) => t.name === 'invoke_tool')) return this.unwrap(call, decoded);
    return record(tool.name, decoded);
  }

  /** invoke_tool as the call it wraps, so every rule of the turn (and every report) sees that tool. */
  private unwrap(call: ToolCall, args: unknown): CallRecord {
    const wrapper = isRecord(args) ? args : {};
    const tool = this.reachable(wrapper.name);
    const asked = typeof wrapper.name === 'string' ? wrapper.name : 'invoke_tool';
    const base = { id: call.id, name: call.name, via: 'invoke_tool' as const, meta: false };
    if (!tool) return { ...base, tool: visibleText(asked), arguments: {}, refused: { kind: 'unknown_tool', message: this.unreachable(wrapper.name) } };
    if (!isRecord(wrapper.arguments)) return { ...base, tool: tool.name, arguments: {}, refused: { kind: 'invalid_arguments', message: `arguments must be an object matching ${tool.name}'s schema (see get_tool_schema)` } };
    return { ...base, tool: tool.name, arguments: wrapper.arguments };
  }

  private providerNames(provider: ProviderName): Map<string, Tool> {
    let names = this.namesByProvider.get(provider);
    if (!names) {
      names = new Map();
      for (const tool of [...this.catalog.tools, ...this.metaTools()]) if (!names.has(providerToolName(provider, tool))) names.set(providerToolName(provider, tool), tool);
      this.namesByProvider.set(provider, names);
    }
    return names;
  }

  /** Stops what the session started (background jobs). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.jobs.close();
    this.onClose?.();
  }

  /** Tells `listener` when tools become available (a driver refreshes its list; `serve` notifies clients). */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Deferred tools found through tool_search, now offered like active ones. */
  get activated(): string[] {
    return [...this.discovered];
  }

  /** How many tools search has found: what a listing asks on every call, without copying them. */
  get activatedCount(): number {
    return this.discovered.size;
  }

  /** The meta-tools offered alongside the selection: search (when anything is deferred) and jobs. */
  metaTools(): Tool[] {
    // Called for every tool call: rebuilt only when what was found changes.
    if (this.cachedMeta?.found !== this.discovered.size) {
      this.cachedMeta = { found: this.discovered.size, tools: [...this.searchTools(), ...jobToolsFor([...this.selection.active, ...this.deferredByName.values()])] };
      // Provider names point at tools: the new meta-tools replace the old ones there too.
      this.namesByProvider.clear();
    }
    return this.cachedMeta.tools;
  }

  private searchTools(): Tool[] {
    if (this.selection.exclusive || this.deferredByName.size === 0) return [];
    if (this.searchMode === 'discover') {
      const deferred = [...this.deferredByName.values()];
      const categories = [...new Set(deferred.map((t) => t.category).filter((c): c is string => !!c))].sort();
      const tags = [...new Set(deferred.flatMap((t) => t.tags))].sort();
      return discoverTools(categories, tags);
    }
    const remaining = this.deferredByName.size - this.discovered.size;
    return remaining > 0 ? [toolSearchTool(remaining)] : [];
  }

  /** Tools for round `round` (1-based): forced tools are the required choice in round 1 only. */
  offered(round: number): OfferedTools {
    if (this.selection.exclusive) return { tools: [this.selection.exclusive], toolChoice: toolChoiceFor([this.selection.exclusive], round) };
    const found = [...this.discovered].map((name) => this.deferredByName.get(name)!);
    return { tools: [...this.selection.active, ...found, ...this.metaTools()], toolChoice: toolChoiceFor(this.selection.forced, round) };
  }

  /**
   * The provider's request fragment for round `round`: what the model is offered, the deferred
   * tools (for providers' native deferral) and the tool choice. Formatting is pure, so a fragment
   * is reused until what is offered changes.
   */
  format(provider: ProviderName, round: number, options: FormatOptions = {}): FormatResult {
    const key = `${provider}|${round === 1 ? 1 : 'n'}|${this.discovered.size}|${this.searchMode}|${canonicalJson(options)}`;
    // Until a tool is found, what is offered depends on the selection and the search mode alone:
    // sessions given the same selection (the manager hands one to every session of a profile:
    // each run of a suite, each client of `serve`) share its fragments, formatted once.
    const cache = this.discovered.size === 0 ? pristineFragments(this.selection) : this.formatted;
    let result = cache.get(key);
    if (!result) {
      const offered = this.offered(round);
      result = formatTools(provider, { tools: offered.tools, deferred: this.selection.deferred.filter((t) => !this.discovered.has(t.name)), toolChoice: offered.toolChoice, options });
      cache.set(key, result);
    }
    return result;
  }

  /**
   * Makes deferred tools callable as if tool_search had found them: for drivers acting for the
   * user (`toolman call`), who name the tool themselves. Removed tools stay removed.
   */
  activate(names: readonly string[]): void {
    const added = names.map((name) => this.tools.get(name)?.name ?? name).filter((name) => this.deferredByName.has(name) && !this.discovered.has(name));
    for (const name of added) this.discovered.add(name);
    if (added.length) this.changed(added);
  }

  /** Whether the model may call `name` directly now (meta-tools included). */
  isCallable(name: string): boolean {
    const tool = this.resolve(name);
    return tool !== undefined && this.unavailable(tool, 'direct') === undefined;
  }

  // ToolScope: how the executor sees this session.

  resolve(name: string): Tool | undefined {
    // Catalog tools may not take meta-tool names (TM0209), so the catalog is asked first.
    return this.tools.get(name) ?? this.metaTools().find((t) => t.name === name);
  }

  unavailable(tool: Tool, via: CallRecord['via']): string | undefined {
    if (tool.source.kind === 'meta') return this.metaTools().includes(tool) ? undefined : `${tool.name} is not offered in this session`;
    if (this.selection.exclusive) return tool === this.selection.exclusive ? undefined : `only ${this.selection.exclusive.name} may run now (it is exclusive)`;
    if (this.active.has(tool) || this.discovered.has(tool.name)) return undefined;
    const decision = this.selection.decisions.find((d) => d.tool === tool);
    if (decision?.state === 'deferred') return via === 'invoke_tool' ? undefined : `${tool.name} is not loaded yet: find it with ${this.searchMode === 'discover' ? 'discover_tools' : 'tool_search'} first`;
    const close = nearest(tool.name, [...this.selection.active.map((t) => t.name), ...this.discovered]);
    return `${tool.name} is not available in this session (${decision ? `${decision.step}: ${decision.rule}` : 'not selected'})` + (close.length ? `; available tools with similar names: ${close.join(', ')}` : '');
  }

  suggestions(name: string): string[] {
    return nearest(name, [...this.catalog.tools.map((t) => t.name), ...this.metaTools().map((t) => t.name)]);
  }

  /** Answers a meta-tool call from the session's state. Never throws: errors go back to the model. */
  callMetaTool(name: string, args: Record<string, unknown>): MetaToolOutcome {
    try {
      switch (name) {
        case 'tool_search':
          return this.toolSearch(args);
        case 'discover_tools':
          return this.discoverTools(args);
        case 'get_tool_schema': {
          const tool = this.reachable(args.name);
          return tool ? { ok: true, content: card(tool), activated: [] } : { ok: false, error: this.unreachable(args.name) };
        }
        case 'job_status':
        case 'job_result':
          return jobAnswer(this.jobs, this.executor, name, args);
        default:
          return { ok: false, error: `"${name}" is not one of toolman's meta-tools` };
      }
    } catch (error) {
      return { ok: false, error: isToolmanError(error) && error.hint ? `${error.message} (${error.hint})` : error instanceof Error ? error.message : String(error) };
    }
  }

  private changed(activated: string[]): void {
    for (const listener of this.listeners) {
      try {
        listener({ activated });
      } catch {
        // a driver's failure must not break the session
      }
    }
  }

  private engine(): ToolSearch {
    this.search ??= new ToolSearch([...this.deferredByName.values()]);
    return this.search;
  }

  private toolSearch(args: Record<string, unknown>): MetaToolOutcome {
    if (this.searchMode !== 'tool_search' || this.deferredByName.size === 0) return { ok: false, error: 'tool_search is not offered in this session' };
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    if (!query) return { ok: false, error: 'query must be a non-empty string: say what the tool should do' };
    const limit = clampLimit(args.limit, 5, MAX_SEARCH_RESULTS);
    const results = this.engine().search(query, { limit });
    if (results.length === 0) return { ok: true, content: { results: [], note: 'No tool matched; try other words.' }, activated: [] };
    const activated = results.map((r) => r.tool.name).filter((name) => !this.discovered.has(name));
    for (const name of activated) this.discovered.add(name);
    if (activated.length) this.changed(activated);
    return { ok: true, content: { results: results.map((r) => card(r.tool)), note: 'These tools can now be called directly.' }, activated };
  }

  private discoverTools(args: Record<string, unknown>): MetaToolOutcome {
    const limit = clampLimit(args.limit, 10, 50);
    const category = typeof args.category === 'string' ? args.category.toLowerCase() : undefined;
    const tag = typeof args.tag === 'string' ? args.tag.toLowerCase() : undefined;
    const keyword = typeof args.keyword === 'string' && args.keyword.trim() ? args.keyword : undefined;
    const fits = (t: Tool) => (!category || t.category?.toLowerCase() === category) && (!tag || t.tags.some((x) => x.toLowerCase() === tag));
    const candidates = [...this.deferredByName.values()].filter(fits);
    const ranked = keyword ? this.engine().search(keyword, { limit, within: new Set(candidates.map((t) => t.name)) }).map((r) => r.tool) : candidates.slice(0, limit);
    return {
      ok: true,
      content: { tools: ranked.map((t) => ({ name: t.name, summary: toolSummary(t) })), total: keyword ? ranked.length : candidates.length },
      activated: [],
    };
  }

  /** The stateful tool whose job a job_next or job_stop call read (job-answers.ts). */
  jobToolRead(record: CallRecord): string | undefined {
    return jobToolRead(this.jobs, record);
  }

  /** Each change of this session's stateful jobs (a yield, an end), redacted, for a display; returns the unsubscribe. */
  onJobUpdate(listener: (update: JobUpdate) => void): () => void {
    return this.jobs.onUpdate(listener);
  }

  /** A tool the discovery meta-tools may show or run: deferred or active, never removed. */
  private reachable(name: unknown): Tool | undefined {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    return tool && (this.deferredByName.has(tool.name) || this.selection.active.includes(tool)) ? tool : undefined;
  }

  private unreachable(name: unknown): string {
    const wanted = typeof name === 'string' ? name : '';
    const suggestions = nearest(wanted, [...this.deferredByName.keys(), ...this.selection.active.map((t) => t.name)]);
    return `no tool named "${visibleText(wanted)}" is available` + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '; use discover_tools to list them');
  }
}

function card(tool: Tool): ToolCard {
  return {
    name: tool.name,
    ...(tool.summary ? { summary: tool.summary } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    parameters: tool.parameters,
  };
}

function clampLimit(value: unknown, fallback: number, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? Math.min(max, Math.max(1, value)) : fallback;
}

/** Arguments as sent: JSON text is parsed (models send text); what does not parse stays text, for validation to report. */
function parseArguments(value: unknown): unknown {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return {};
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function isCallRecord(call: ToolCall | CallRecord): call is CallRecord {
  return 'tool' in call && 'via' in call;
}

/**
 * The fragments of sessions that have found nothing yet, per selection: formatting a large
 * catalog's tools was a tenth of the CPU of every test run, done again by each run's session.
 * A fragment is never changed once made (the session's own cache reuses it round after round too).
 */
const fragmentsBySelection = new WeakMap<Selection, Map<string, FormatResult>>();

function pristineFragments(selection: Selection): Map<string, FormatResult> {
  let fragments = fragmentsBySelection.get(selection);
  if (!fragments) fragmentsBySelection.set(selection, (fragments = new Map()));
  return fragments;
}
