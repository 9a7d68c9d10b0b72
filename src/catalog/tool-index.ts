import { nearest } from '../shared/did-you-mean.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { Catalog, Tool } from './types.js';

/**
 * Tools by name, then by alias (a name always wins over another tool's alias): the one lookup
 * every command, the selection and the executor share.
 */
export class ToolIndex {
  private readonly byName = new Map<string, Tool>();

  constructor(readonly tools: readonly Tool[]) {
    for (const tool of tools) if (!this.byName.has(tool.name)) this.byName.set(tool.name, tool);
    for (const tool of tools) for (const alias of tool.aliases) if (!this.byName.has(alias)) this.byName.set(alias, tool);
  }

  get(nameOrAlias: string): Tool | undefined {
    return this.byName.get(nameOrAlias);
  }

  /** Up to three tool names close to `name`, for "did you mean". */
  suggest(name: string): string[] {
    return nearest(name, this.tools.map((t) => t.name));
  }

  /** The tool, or an UNKNOWN_TOOL error that names the closest ones. */
  require(name: string, what = `no tool named "${name}"`): Tool {
    const tool = this.get(name);
    if (tool) return tool;
    const suggestions = this.suggest(name);
    throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, what + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''), {
      hint: '`toolman list` shows every tool',
    });
  }
}

const indexes = new WeakMap<readonly Tool[], ToolIndex>();

/** The index of a catalog's tools, built once per tool list. */
export function toolIndex(catalog: Pick<Catalog, 'tools'>): ToolIndex {
  let index = indexes.get(catalog.tools);
  if (!index) indexes.set(catalog.tools, (index = new ToolIndex(catalog.tools)));
  return index;
}
