import type { Catalog, Tool } from '../catalog/types.js';
import { formatSession, formatTools } from '../providers/format-tools.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import { countDefinitions, DEFAULT_MODELS, type DefinitionCost } from '../tokens/count-payload.js';
import { selectTools, type SelectionRequest } from '../select/select-tools.js';
import { toolSearchTool } from './meta-tools.js';
import { ToolSession, type SearchMode, type ToolChoice } from './tool-session.js';

export interface BudgetRequest {
  provider: ProviderName;
  model?: string;
  profile?: string;
  force?: readonly string[];
  /** Defer automatically to fit the definitions budget even if the profile does not say `defer: auto`. */
  deferAuto?: boolean;
  /** How deferred tools are found (meta-tools offered); default: the catalog's `search.mode`. */
  searchMode?: SearchMode;
  format?: FormatOptions;
}

export interface BudgetToolRow {
  name: string;
  tokens: number;
  share_pct: number;
  deferred: boolean;
  /** The selection step and rule that made the tool active or deferred. */
  step: string;
  rule: string;
}

export interface BudgetReport {
  provider: ProviderName;
  model: string;
  estimate: boolean;
  method: string;
  profile: string;
  tools: BudgetToolRow[];
  totals: {
    /** Every selected tool sent up front. */
    eager: number;
    /** The active tools plus the meta-tools, with deferral. */
    deferred: number;
    saving_pct: number;
    /** Fixed per-request cost of sending tools (in both totals). */
    overhead: number;
    /** System-prompt contributions of the tools sent (in both totals). */
    system_eager: number;
    system_deferred: number;
    /** The meta-tools' own definitions (in the deferred total). */
    meta_tools: number;
  };
  /** Time spent formatting and counting every selected tool (the eager set). */
  timing: { count_eager_ms: number };
  budget: {
    definitions: number | null;
    per_result: number | null;
    total_results: number | null;
    ok: boolean;
    over_by: number;
    /** Tools to defer (costliest first) so the definitions fit. */
    suggest_defer: string[];
  };
}

const choiceOf = (forced: Tool[]): ToolChoice => (forced.length === 1 ? { type: 'tool', name: forced[0]!.name } : forced.length > 1 ? { type: 'required', names: forced.map((t) => t.name) } : { type: 'auto' });

/**
 * What a profile's tool definitions cost one provider: every selected tool sent eagerly, against
 * the active tools plus the meta-tool with deferral; checked against the catalog's definitions
 * budget, with the tools to defer when it does not fit.
 */
/**
 * The selection request for a budget: with a definitions budget set, automatic deferral is
 * configured with each tool's cost for the provider (applied when the profile says `defer: auto`
 * or `deferAuto` asks for it). Also used by `list --explain`, so it shows the same decisions.
 */
export async function budgetedSelection(catalog: Catalog, request: BudgetRequest): Promise<{ selection: SelectionRequest; eager: DefinitionCost; searchToolCost: number; eagerTools: Tool[]; forced: Tool[]; countMs: number }> {
  const model = request.model ?? DEFAULT_MODELS[request.provider];
  const options = request.format ?? {};
  const base: SelectionRequest = { ...(request.profile ? { profile: request.profile } : {}), force: request.force ?? [] };
  const plain = selectTools(catalog, base);
  const eagerTools = [...plain.active, ...plain.deferred];
  await countDefinitions(formatTools(request.provider, { tools: [], deferred: [], toolChoice: { type: 'auto' }, options }), model); // load the tokenizer outside the timing
  const started = performance.now();
  const eager = await countDefinitions(formatTools(request.provider, { tools: eagerTools, deferred: [], toolChoice: choiceOf(plain.forced), options: { ...options, nativeToolSearch: undefined } }), model);
  const countMs = Math.round((performance.now() - started) * 10) / 10;
  const cost = (tool: Tool) => eager.tools[tool.name] ?? 0;
  const definitions = catalog.budget.definitions;
  const searchTool = await countDefinitions(formatTools(request.provider, { tools: [toolSearchTool(1)], deferred: [], toolChoice: { type: 'auto' }, options }), model);
  const searchToolCost = searchTool.tools.tool_search ?? 0;
  const reserve = searchToolCost + eager.overhead + eager.system;
  const selection: SelectionRequest = definitions !== undefined ? { ...base, autoDefer: { budget: definitions, cost, reserve, force: request.deferAuto ?? false } } : base;
  return { selection, eager, searchToolCost, eagerTools, forced: plain.forced, countMs };
}

export async function budgetReport(catalog: Catalog, request: BudgetRequest): Promise<BudgetReport> {
  const model = request.model ?? DEFAULT_MODELS[request.provider];
  const options = request.format ?? {};
  const { selection: selectionRequest, eager, searchToolCost, eagerTools, countMs } = await budgetedSelection(catalog, request);
  const cost = (tool: Tool) => eager.tools[tool.name] ?? 0;
  const definitions = catalog.budget.definitions;
  const session = new ToolSession(catalog, { ...selectionRequest, ...(request.searchMode ? { searchMode: request.searchMode } : {}) });
  const deferred: DefinitionCost = await countDefinitions(formatSession(request.provider, session, 1, options), model);
  const metaTools = session.metaTools().reduce((sum, t) => sum + (deferred.tools[t.name] ?? 0), 0);

  const decisions = new Map(session.selection.decisions.map((d) => [d.tool.name, d]));
  const rows = eagerTools
    .map((tool) => {
      const decision = decisions.get(tool.name);
      return { name: tool.name, tokens: cost(tool), share_pct: 0, deferred: decision?.state === 'deferred', step: decision?.step ?? '', rule: decision?.rule ?? '' };
    })
    .sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  for (const row of rows) row.share_pct = round1((100 * row.tokens) / Math.max(1, eager.total));

  const overBy = definitions === undefined ? 0 : Math.max(0, deferred.total - definitions);
  const suggest: string[] = [];
  if (overBy > 0) {
    let remaining = deferred.total + (metaTools === 0 ? searchToolCost : 0);
    const movable = session.selection.active.filter((t) => !t.alwaysLoad && !session.selection.forced.includes(t)).sort((a, b) => cost(b) - cost(a));
    for (const tool of movable) {
      if (remaining <= definitions!) break;
      remaining -= cost(tool);
      suggest.push(tool.name);
    }
  }
  return {
    provider: request.provider,
    model,
    estimate: eager.estimate || deferred.estimate,
    method: eager.method,
    profile: session.selection.profile.name,
    tools: rows,
    totals: {
      eager: eager.total,
      deferred: deferred.total,
      saving_pct: round1((100 * (eager.total - deferred.total)) / Math.max(1, eager.total)),
      overhead: eager.overhead,
      system_eager: eager.system,
      system_deferred: deferred.system,
      meta_tools: metaTools,
    },
    timing: { count_eager_ms: countMs },
    budget: {
      definitions: definitions ?? null,
      per_result: catalog.budget.per_result ?? null,
      total_results: catalog.budget.total_results ?? null,
      ok: overBy === 0,
      over_by: overBy,
      suggest_defer: suggest,
    },
  };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
