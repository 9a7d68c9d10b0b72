import type { Reporter } from './reporter.js';
import type { SourceFile } from './source-file.js';
import type { Tool } from './types.js';

/**
 * TM0210: an alias that names two tools. A tool's name always wins over another tool's alias
 * (`ToolIndex`), and the first alias wins over a later one, so such an alias never reaches its
 * tool: a user, a pattern or an old call that uses it silently gets the other tool. Reported at
 * the alias, saying which tool has the name.
 */
export function reportAliasConflicts(tools: readonly Tool[], reporters: ReadonlyMap<string, Reporter>, sources: ReadonlyMap<string, SourceFile>): void {
  const byName = new Map<string, Tool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  const byAlias = new Map<string, Tool>();
  for (const tool of tools) {
    const source = tool.source;
    if (source.kind !== 'catalog' && source.kind !== 'agent') continue;
    const reporter = reporters.get(source.file);
    tool.aliases.forEach((alias, index) => {
      const named = byName.get(alias);
      const aliased = byAlias.get(alias);
      if (!aliased) byAlias.set(alias, tool);
      if (alias === tool.name || !reporter) return;
      const other = named && named !== tool ? named : aliased && aliased !== tool ? aliased : undefined;
      if (!other) return;
      const where = locate(other, sources);
      const what = other === named ? `the name of tool "${other.name}"` : `also an alias of tool "${other.name}"`;
      reporter.report('TM0210', `${source.pointer}/aliases/${index}`, `alias "${alias}" is ${what}${where ? ` (${where})` : ''}: that name reaches "${other.name}", never this tool`, {
        hint: other === named ? 'remove the alias (or rename one of the tools): an alias must not shadow a tool' : 'keep the alias on one tool only',
      });
    });
  }
}

function locate(tool: Tool, sources: ReadonlyMap<string, SourceFile>): string | undefined {
  if (tool.source.kind !== 'catalog' && tool.source.kind !== 'agent') return undefined;
  const span = sources.get(tool.source.file)?.locate(tool.source.kind === 'agent' ? tool.source.pointer : `${tool.source.pointer}/name`, tool.source.kind === 'agent' ? 'key' : 'value');
  return span ? `${tool.source.file}:${span.line}:${span.column}` : undefined;
}
