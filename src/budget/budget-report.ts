import type { ParseCache } from '../catalog/parse-cache.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { formatTools, requestFragment } from '../providers/format-tools.js';
import { exactUnavailable, type ProviderCounter } from '../providers/exact-count.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import { toolChoiceFor } from '../select/tool-choice.js';
import { jobToolsFor, toolSearchTool } from '../session/meta-tools.js';
import { ToolSession, type SearchMode } from '../session/tool-session.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { countDefinitions, type DefinitionCost } from '../tokens/count-payload.js';

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
  /** Whether this tool's count is exact (a rule measured against the API covers it), or an estimate and why. */
  exact: boolean;
  estimate_reasons: string[];
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
  /** Why the counts are estimates (empty when exact). */
  estimate_reasons: string[];
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
  /** The provider's own count of the same two payloads (`--exact`): the request with tools minus the request without. */
  exact?: { eager: number; deferred: number };
  /** `--exact` was asked for and the provider has no count to give: why (the counts are toolman's). */
  exact_unavailable?: string;
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
    /** Tokens still over the budget with every tool deferred that can be (the search tool, forced and always-loaded tools and prompts stay). */
    over_after_deferral: number;
  };
}

/**
 * The selection request a budget implies: with a definitions budget set, automatic deferral is
 * configured with each tool's cost for the provider (applied when the profile says `defer: auto`
 * or `deferAuto` asks for it). Sessions, `list --explain` and budgets all select through this, so
 * they show the same decisions.
 */
export async function budgetedSelection(catalog: Catalog, request: BudgetRequest, counts?: ParseCache): Promise<{ selection: SelectionRequest; plain: Selection; eager: FormatResult; eagerCost: DefinitionCost; searchToolCost: number; countMs: number }> {
  const model = request.model ?? DEFAULT_MODELS[request.provider];
  const options = request.format ?? {};
  const cache = counts ? { cache: counts } : {};
  const base: SelectionRequest = { ...(request.profile ? { profile: request.profile } : {}), force: request.force ?? [] };
  const plain = selectTools(catalog, base);
  // Loads the tokenizer outside the timing (unless this count, like the rest, is remembered).
  await countDefinitions(formatTools(request.provider, { tools: [], deferred: [], toolChoice: { type: 'auto' }, options }), model, cache);
  const started = performance.now();
  // Eager: every tool the selection reaches, sent up front (no native deferral), with the job
  // meta-tools a session offers beside them either way.
  const selected = [...plain.active, ...plain.deferred];
  const eager = formatTools(request.provider, { tools: [...selected, ...jobToolsFor(selected)], deferred: [], toolChoice: toolChoiceFor(plain.forced), options: { ...options, nativeToolSearch: undefined } });
  const eagerCost = await countDefinitions(eager, model, cache);
  const countMs = Math.round((performance.now() - started) * 10) / 10;
  const cost = (tool: Tool) => eagerCost.tools[tool.name] ?? 0;
  const definitions = catalog.budget.definitions;
  const searchTool = await countDefinitions(formatTools(request.provider, { tools: [toolSearchTool(1)], deferred: [], toolChoice: { type: 'auto' }, options }), model, cache);
  const searchToolCost = searchTool.tools.tool_search ?? 0;
  const reserve = searchToolCost + eagerCost.overhead + eagerCost.system;
  const selection: SelectionRequest = definitions !== undefined ? { ...base, autoDefer: { budget: definitions, cost, reserve, force: request.deferAuto ?? false } } : base;
  return { selection, plain, eager, eagerCost, searchToolCost, countMs };
}

/**
 * What a profile's tool definitions cost one provider: every selected tool sent eagerly, against
 * the active tools plus the meta-tool with deferral; checked against the catalog's definitions
 * budget, with the tools to defer when it does not fit. The two payloads are built once; the
 * estimate counts them with toolman's tokenizers and, given `exact`, the provider counts the very
 * same payloads.
 */
export async function budgetReport(catalog: Catalog, request: BudgetRequest, exact?: ProviderCounter, asked: { exactAsked?: boolean; counts?: ParseCache } = {}): Promise<BudgetReport> {
  const model = request.model ?? DEFAULT_MODELS[request.provider];
  const options = request.format ?? {};
  const { selection: selectionRequest, plain, eager, eagerCost, searchToolCost, countMs } = await budgetedSelection(catalog, request, asked.counts);
  const cost = (tool: Tool) => eagerCost.tools[tool.name] ?? 0;
  const definitions = catalog.budget.definitions;
  const session = new ToolSession(catalog, { ...selectionRequest, ...(request.searchMode ? { searchMode: request.searchMode } : {}) });
  const deferredPayload = session.format(request.provider, 1, options);
  const deferred = await countDefinitions(deferredPayload, model, asked.counts ? { cache: asked.counts } : {});
  const metaTools = session.metaTools().reduce((sum, t) => sum + (deferred.tools[t.name] ?? 0), 0);

  const decisions = new Map(session.selection.decisions.map((d) => [d.tool.name, d]));
  const rows = [...plain.active, ...plain.deferred]
    .map((tool) => {
      const decision = decisions.get(tool.name);
      const reasons = eagerCost.toolReasons[tool.name] ?? eagerCost.reasons;
      return { name: tool.name, tokens: cost(tool), exact: reasons.length === 0, estimate_reasons: reasons, share_pct: 0, deferred: decision?.state === 'deferred', step: decision?.step ?? '', rule: decision?.rule ?? '' };
    })
    .sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  for (const row of rows) row.share_pct = round1((100 * row.tokens) / Math.max(1, eagerCost.total));

  const overBy = definitions === undefined ? 0 : Math.max(0, deferred.total - definitions);
  const suggest: string[] = [];
  // What is left over the budget with every tool that can be deferred deferred (0: deferral fits).
  let overAfterDeferral = 0;
  if (overBy > 0) {
    let remaining = deferred.total + (metaTools === 0 ? searchToolCost : 0);
    const movable = session.selection.active.filter((t) => !t.alwaysLoad && !session.selection.forced.includes(t)).sort((a, b) => cost(b) - cost(a));
    for (const tool of movable) {
      if (remaining <= definitions!) break;
      remaining -= cost(tool);
      suggest.push(tool.name);
    }
    overAfterDeferral = Math.max(0, remaining - definitions!);
  }
  let exactTotals: BudgetReport['exact'];
  if (exact) {
    const [base, eagerTotal, deferredTotal] = await Promise.all([exact({}), exact(requestFragment(eager)), exact(requestFragment(deferredPayload))]);
    exactTotals = { eager: eagerTotal - base, deferred: deferredTotal - base };
  }
  return {
    provider: request.provider,
    model,
    estimate: eagerCost.estimate || deferred.estimate,
    method: eagerCost.method,
    estimate_reasons: [...new Set([...eagerCost.reasons, ...deferred.reasons])],
    profile: session.selection.profile.name,
    tools: rows,
    totals: {
      eager: eagerCost.total,
      deferred: deferred.total,
      saving_pct: round1((100 * (eagerCost.total - deferred.total)) / Math.max(1, eagerCost.total)),
      overhead: eagerCost.overhead,
      system_eager: eagerCost.system,
      system_deferred: deferred.system,
      meta_tools: metaTools,
    },
    ...(exactTotals ? { exact: exactTotals } : {}),
    ...(asked.exactAsked && !exact ? { exact_unavailable: exactUnavailable(request.provider) ?? 'the provider has no token count' } : {}),
    timing: { count_eager_ms: countMs },
    budget: {
      definitions: definitions ?? null,
      per_result: catalog.budget.per_result ?? null,
      total_results: catalog.budget.total_results ?? null,
      ok: overBy === 0,
      over_by: overBy,
      suggest_defer: suggest,
      over_after_deferral: overAfterDeferral,
    },
  };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
