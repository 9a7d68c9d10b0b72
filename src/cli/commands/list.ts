import type { LoadedCatalog } from '../../catalog/load-catalog.js';
import type { Tool } from '../../catalog/types.js';
import type { ProviderName } from '../../providers/types.js';
import type { Selection, ToolDecision } from '../../select/select-tools.js';
import { colorEnabled, palette, type Palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { createTable } from '../output/table.js';
import { jsonDocument } from '../output/json-document.js';
import { withManager } from '../open-manager.js';

export interface ListOptions {
  catalog?: string[];
  json?: boolean;
  profile?: string;
  force?: string[];
  explain?: boolean;
  /** Defer automatically to the definitions budget (as `defer: auto`), costed for this provider. */
  deferAuto?: boolean;
  provider?: ProviderName;
}

/** The flags `list` shows, in a fixed order. */
export function toolFlags(tool: Tool): string[] {
  const flags: string[] = [];
  if (!tool.enabled) flags.push('disabled');
  if (tool.exclusive) flags.push('exclusive');
  if (tool.takesControl) flags.push('takes_control');
  if (tool.deferLoading) flags.push('deferred');
  if (tool.concurrency === 'serial') flags.push('serial');
  if (tool.mode !== 'direct') flags.push(tool.mode);
  if (tool.source.kind === 'agent') flags.push('agent');
  return flags;
}

export function sourceLocation(loaded: LoadedCatalog, tool: Tool): { file: string; line: number; column: number } | undefined {
  if (tool.source.kind === 'mcp' || tool.source.kind === 'meta') return undefined;
  const span = loaded.sources.get(tool.source.file)?.locate(tool.source.pointer, tool.source.kind === 'agent' ? 'key' : 'value');
  return { file: tool.source.file, line: span?.line ?? 0, column: span?.column ?? 0 };
}

export interface OverrideLocation {
  file: string;
  line: number;
  column: number;
  fields: string[];
}

/** Where the overrides that changed a tool are, and what each set. */
export function overrideLocations(loaded: LoadedCatalog, tool: Tool): OverrideLocation[] {
  return (tool.overriddenBy ?? []).map((o) => {
    const span = loaded.sources.get(o.file)?.locate(o.pointer);
    return { file: o.file, line: span?.line ?? 0, column: span?.column ?? 0, fields: o.fields };
  });
}

function stateLabel(decision: ToolDecision, c: Palette): string {
  return decision.state === 'active' ? c.green('active') : decision.state === 'deferred' ? c.yellow('deferred') : c.dim('removed');
}

/**
 * `toolman list`: every tool; with --profile (or --force, --explain) the selection for that
 * profile, and with --explain the step and rule that decided each tool.
 */
export async function listCommand(options: ListOptions, io: CliIO): Promise<ExitCode> {
  return withManager(io, options.catalog, async (manager) => {
    const selecting = options.profile !== undefined || (options.force?.length ?? 0) > 0 || options.explain === true || options.deferAuto === true;
    const request = { ...(options.profile ? { profile: options.profile } : {}), force: options.force ?? [], deferAuto: options.deferAuto ?? false, ...(options.provider ? { provider: options.provider } : {}) };
    const selection = selecting ? (await manager.selection(request)).selection : undefined;
    return printList(manager.loaded, selection, options, io);
  });
}

async function printList(loaded: LoadedCatalog, selection: Selection | undefined, options: ListOptions, io: CliIO): Promise<ExitCode> {
  const decisions = selection ? selection.decisions.filter((d) => options.explain || d.state !== 'removed') : undefined;

  if (options.json) {
    if (selection && decisions) {
      const tools = decisions.map((d) => ({ name: d.tool.name, state: d.state, step: d.step, rule: d.rule, ...(d.tool.overriddenBy ? { overrides: overrideLocations(loaded, d.tool) } : {}) }));
      io.stdout.write(jsonDocument({ profile: selection.profile.name, forced: selection.forced.map((t) => t.name), tools }) + '\n');
      return EXIT.OK;
    }
    const rows = loaded.catalog.tools.map((tool) => ({
      name: tool.name,
      title: tool.title ?? null,
      category: tool.category ?? null,
      effect: tool.effect,
      flags: toolFlags(tool),
      source: sourceLocation(loaded, tool) ?? null,
    }));
    io.stdout.write(jsonDocument({ catalog: loaded.catalog.name, tools: rows }) + '\n');
    return EXIT.OK;
  }

  const c = palette(colorEnabled(io, io.stdout));
  if (selection && decisions) {
    const overridden = options.explain && decisions.some((d) => d.tool.overriddenBy);
    const head = options.explain ? ['name', 'state', 'step', 'rule', ...(overridden ? ['overrides'] : [])] : ['name', 'state', 'category', 'effect', 'flags'];
    const table = await createTable(head, io);
    for (const d of decisions) {
      const overrides = overrideLocations(loaded, d.tool).map((o) => `${o.fields.join(', ')} (${o.file}:${o.line})`).join('\n');
      table.push(options.explain ? [d.tool.name, stateLabel(d, c), d.step, d.rule, ...(overridden ? [overrides] : [])] : [d.tool.name, stateLabel(d, c), d.tool.category ?? '', d.tool.effect, toolFlags(d.tool).join(', ')]);
    }
    io.stdout.write(table.toString() + '\n');
    const forced = selection.forced.length ? `; forced in round 1: ${selection.forced.map((t) => t.name).join(', ')}` : '';
    const removed = selection.decisions.length - selection.active.length - selection.deferred.length;
    io.stdout.write(`profile ${selection.profile.name}: ${selection.active.length} active, ${selection.deferred.length} deferred, ${removed} removed${forced}\n`);
    return EXIT.OK;
  }
  const table = await createTable(['name', 'category', 'effect', 'flags', 'source'], io);
  for (const tool of loaded.catalog.tools) {
    const where = sourceLocation(loaded, tool);
    const effect = tool.effect === 'destructive' ? c.red(tool.effect) : tool.effect === 'write' ? c.yellow(tool.effect) : tool.effect;
    table.push([tool.name, tool.category ?? '', effect, toolFlags(tool).join(', '), where ? `${where.file}:${where.line}` : tool.source.kind === 'mcp' ? `mcp:${tool.source.server}` : tool.source.kind]);
  }
  io.stdout.write(table.toString() + '\n');
  io.stdout.write(`${loaded.catalog.tools.length} tool${loaded.catalog.tools.length === 1 ? '' : 's'} in ${loaded.catalog.name}\n`);
  return EXIT.OK;
}
