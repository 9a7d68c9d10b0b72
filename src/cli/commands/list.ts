import type { LoadedCatalog } from '../../catalog/load-catalog.js';
import type { Tool } from '../../catalog/types.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { openCatalog } from '../open-catalog.js';

export interface ListOptions {
  catalog?: string[];
  json?: boolean;
}

/** The flags `list` shows, in a fixed order. */
export function toolFlags(tool: Tool): string[] {
  const flags: string[] = [];
  if (!tool.enabled) flags.push('disabled');
  if (tool.exclusive) flags.push('exclusive');
  if (tool.takesControl) flags.push('takes_control');
  if (tool.deferLoading) flags.push('deferred');
  if (tool.concurrency === 'serial') flags.push('serial');
  if (tool.mode === 'background') flags.push('background');
  if (tool.source.kind === 'agent') flags.push('agent');
  return flags;
}

export function sourceLocation(loaded: LoadedCatalog, tool: Tool): { file: string; line: number; column: number } | undefined {
  if (tool.source.kind === 'mcp') return undefined;
  const span = loaded.sources.get(tool.source.file)?.locate(tool.source.pointer, tool.source.kind === 'agent' ? 'key' : 'value');
  return { file: tool.source.file, line: span?.line ?? 0, column: span?.column ?? 0 };
}

export async function listCommand(options: ListOptions, io: CliIO): Promise<ExitCode> {
  const loaded = openCatalog(io, options.catalog);
  const { tools } = loaded.catalog;
  if (options.json) {
    const rows = tools.map((tool) => ({
      name: tool.name,
      title: tool.title ?? null,
      category: tool.category ?? null,
      effect: tool.effect,
      flags: toolFlags(tool),
      source: sourceLocation(loaded, tool) ?? null,
    }));
    io.stdout.write(JSON.stringify({ catalog: loaded.catalog.name, tools: rows }, null, 2) + '\n');
    return EXIT.OK;
  }
  const { default: Table } = await import('cli-table3');
  const c = palette(colorEnabled(io, io.stdout));
  const table = new Table({
    head: ['name', 'category', 'effect', 'flags', 'source'],
    style: { head: colorEnabled(io, io.stdout) ? ['cyan'] : [], border: colorEnabled(io, io.stdout) ? ['grey'] : [] },
  });
  for (const tool of tools) {
    const where = sourceLocation(loaded, tool);
    const effect = tool.effect === 'destructive' ? c.red(tool.effect) : tool.effect === 'write' ? c.yellow(tool.effect) : tool.effect;
    table.push([tool.name, tool.category ?? '', effect, toolFlags(tool).join(', '), where ? `${where.file}:${where.line}` : tool.source.kind]);
  }
  io.stdout.write(table.toString() + '\n');
  io.stdout.write(`${tools.length} tool${tools.length === 1 ? '' : 's'} in ${loaded.catalog.name}\n`);
  return EXIT.OK;
}
