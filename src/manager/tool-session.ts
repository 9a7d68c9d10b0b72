import { nearest } from '../catalog/did-you-mean.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { isToolmanError } from '../errors.js';
import { ToolSearch } from '../search/tool-search.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import { discoverTools, jobTools, MAX_SEARCH_RESULTS, toolSearchTool, type MetaToolName } from './meta-tools.js';

export type SearchMode = 'tool_search' | 'discover';

export interface SessionOptions extends SelectionRequest {
  /** How deferred tools are found; default: the catalog's `search.mode`. */
  searchMode?: SearchMode;
}

/** What the model may choose from in a round. */
export type ToolChoice = { type: 'auto' } | { type: 'tool'; name: string } | { type: 'required'; names: string[] };

export interface OfferedTools {
  tools: Tool[];
  toolChoice: ToolChoice;
}

/** A tool's definition as the model gets it back from tool_search or get_tool_schema. */
export interface ToolCard {
  name: string;
  summary?: string;
  description?: string;
  parameters?: Tool['parameters'];
}

export type MetaToolOutcome =
  | { ok: true; content: unknown; activated: string[] }
  /** invoke_tool: the executor runs this call like any other (validation, confirmation). */
  | { ok: true; invoke: { name: string; arguments: Record<string, unknown> } }
  | { ok: false; error: string };

/**
 * One conversation's view of the catalog: the selection, plus the deferred tools found so far.
 * Plain state and functions, so every mode is tested without a model.
 */
export class ToolSession {
  readonly selection: Selection;
  readonly searchMode: SearchMode;
  private readonly discovered = new Set<string>();
  private readonly deferredByName: Map<string, Tool>;
  private search: ToolSearch | undefined;
  private cachedMeta: { found: number; tools: Tool[] } | undefined;

  constructor(
    readonly catalog: Catalog,
    options: SessionOptions = {},
  ) {
    this.selection = selectTools(catalog, options);
    this.searchMode = options.searchMode ?? catalog.searchMode;
    this.deferredByName = new Map(this.selection.deferred.map((t) => [t.name, t]));
  }

  /** Deferred tools found through tool_search, now offered like active ones. */
  get activated(): string[] {
    return [...this.discovered];
  }

  /** The meta-tools offered alongside the selection: search (when anything is deferred) and jobs. */
  metaTools(): Tool[] {
    // Called for every tool call: rebuilt only when what was found changes.
    if (this.cachedMeta?.found !== this.discovered.size) {
      const jobs = [...this.selection.active, ...this.deferredByName.values()].some((t) => t.mode === 'background') ? jobTools() : [];
      this.cachedMeta = { found: this.discovered.size, tools: [...this.searchTools(), ...jobs] };
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
    if (this.selection.exclusive) {
      const only = this.selection.exclusive;
      return { tools: [only], toolChoice: round === 1 ? { type: 'tool', name: only.name } : { type: 'auto' } };
    }
    const found = [...this.discovered].map((name) => this.deferredByName.get(name)!);
    const tools = [...this.selection.active, ...found, ...this.metaTools()];
    const forced = this.selection.forced.map((t) => t.name);
    let toolChoice: ToolChoice = { type: 'auto' };
    if (round === 1 && forced.length === 1) toolChoice = { type: 'tool', name: forced[0]! };
    else if (round === 1 && forced.length > 1) toolChoice = { type: 'required', names: forced };
    return { tools, toolChoice };
  }

  /**
   * Makes deferred tools callable as if tool_search had found them: for drivers acting for the
   * user (`toolman call`), who name the tool themselves. Removed tools stay removed.
   */
  activate(names: readonly string[]): void {
    for (const name of names) if (this.deferredByName.has(name)) this.discovered.add(name);
  }

  /** Whether the model may call `name` directly now (meta-tools included). */
  isCallable(name: string): boolean {
    if (this.selection.exclusive) return name === this.selection.exclusive.name;
    return this.selection.active.some((t) => t.name === name) || this.discovered.has(name) || this.metaTools().some((t) => t.name === name);
  }

  isMetaTool(name: string): name is MetaToolName {
    return this.metaTools().some((t) => t.name === name);
  }

  /** Runs a meta-tool call against the session state. Never throws: errors go back to the model. */
  callMetaTool(name: string, args: Record<string, unknown>): MetaToolOutcome {
    try {
      switch (name) {
        case 'tool_search':
          return this.toolSearch(args);
        case 'discover_tools':
          return this.discoverTools(args);
        case 'get_tool_schema':
          return this.getToolSchema(args);
        case 'invoke_tool':
          return this.invokeTool(args);
        default:
          return { ok: false, error: `"${name}" is not one of toolman's meta-tools` };
      }
    } catch (error) {
      return { ok: false, error: isToolmanError(error) && error.hint ? `${error.message} (${error.hint})` : error instanceof Error ? error.message : String(error) };
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
    const activated: string[] = [];
    for (const result of results) {
      if (!this.discovered.has(result.tool.name)) activated.push(result.tool.name);
      this.discovered.add(result.tool.name);
    }
    return {
      ok: true,
      content: { results: results.map((r) => card(r.tool, true)), note: 'These tools can now be called directly.' },
      activated,
    };
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
      content: { tools: ranked.map((t) => ({ name: t.name, summary: t.summary ?? firstSentence(t.description) })), total: keyword ? ranked.length : candidates.length },
      activated: [],
    };
  }

  private reachable(name: unknown): Tool {
    const wanted = typeof name === 'string' ? name : '';
    const tool = this.deferredByName.get(wanted) ?? this.selection.active.find((t) => t.name === wanted);
    if (tool) return tool;
    const known = [...this.deferredByName.keys(), ...this.selection.active.map((t) => t.name)];
    const suggestions = nearest(wanted, known);
    throw new Error(`no tool named "${wanted}" is available` + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '; use discover_tools to list them'));
  }

  private getToolSchema(args: Record<string, unknown>): MetaToolOutcome {
    return { ok: true, content: card(this.reachable(args.name), true), activated: [] };
  }

  private invokeTool(args: Record<string, unknown>): MetaToolOutcome {
    const tool = this.reachable(args.name);
    const callArgs = args.arguments;
    if (callArgs === null || typeof callArgs !== 'object' || Array.isArray(callArgs)) {
      return { ok: false, error: `arguments must be an object matching ${tool.name}'s schema (see get_tool_schema)` };
    }
    return { ok: true, invoke: { name: tool.name, arguments: callArgs as Record<string, unknown> } };
  }
}

function card(tool: Tool, withSchema: boolean): ToolCard {
  return {
    name: tool.name,
    ...(tool.summary ? { summary: tool.summary } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    ...(withSchema ? { parameters: tool.parameters } : {}),
  };
}

function firstSentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const match = /^(.{1,200}?[.!?])(\s|$)/s.exec(text.trim());
  return (match?.[1] ?? text.trim().slice(0, 200)).replace(/\s+/g, ' ');
}

function clampLimit(value: unknown, fallback: number, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? Math.min(max, Math.max(1, value)) : fallback;
}
