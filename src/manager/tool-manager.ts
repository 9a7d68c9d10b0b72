import { loadCatalog, type LoadedCatalog, type LoadOptions } from '../catalog/load-catalog.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { ToolSearch } from '../search/tool-search.js';
import { selectTools, type Selection, type SelectionRequest } from '../select/select-tools.js';
import { ToolSession, type SessionOptions } from './tool-session.js';

/**
 * The facade the CLI, the REPL and the test runner drive: one catalog, and the selection, search
 * and sessions over it. Search indexes are built on first use and kept per tool set.
 */
export class ToolManager {
  private readonly searches = new Map<string, ToolSearch>();

  constructor(readonly catalog: Catalog) {}

  static load(paths: readonly string[], options: LoadOptions = {}): { manager: ToolManager; loaded: LoadedCatalog } {
    const loaded = loadCatalog(paths, options);
    return { manager: new ToolManager(loaded.catalog), loaded };
  }

  select(request: SelectionRequest = {}): Selection {
    return selectTools(this.catalog, request);
  }

  /** A search engine over `tools` (default: every enabled tool). */
  search(tools: readonly Tool[] = this.catalog.tools.filter((t) => t.enabled)): ToolSearch {
    const key = tools.length === this.catalog.tools.length ? '*' : tools.map((t) => t.name).join('\n');
    let engine = this.searches.get(key);
    if (!engine) this.searches.set(key, (engine = new ToolSearch(tools)));
    return engine;
  }

  session(options: SessionOptions = {}): ToolSession {
    return new ToolSession(this.catalog, options);
  }
}
