import { escapeInvisibleInJson, showInvisible } from '../../shared/plain-text.js';
import { colorEnabled, palette } from '../color.js';
import type { Tool } from '../../catalog/types.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { renderSchemaTree } from '../output/schema-tree.js';
import { overrideLocations, sourceLocation, toolFlags, type OverrideLocation } from './list.js';

export interface ShowOptions {
  name: string;
  catalog?: string[];
  json?: boolean;
}

export async function showCommand(options: ShowOptions, io: CliIO): Promise<ExitCode> {
  return withManager(io, options.catalog, async (manager) => {
    const tool = manager.tool(options.name);
    return printTool(tool, sourceLocation(manager.loaded, tool), overrideLocations(manager.loaded, tool), options, io);
  });
}

function printTool(tool: Tool, where: ReturnType<typeof sourceLocation>, overrides: OverrideLocation[], options: ShowOptions, io: CliIO): ExitCode {
  if (options.json) {
    const { overriddenBy: _o, ...fields } = tool;
    io.stdout.write(escapeInvisibleInJson(JSON.stringify({ ...fields, flags: toolFlags(tool), location: where ?? null, overrides }, null, 2)) + '\n');
    return EXIT.OK;
  }
  const c = palette(colorEnabled(io, io.stdout));
  const out: string[] = [];
  out.push(`${c.bold(tool.name)}${tool.title ? `  ${c.dim(tool.title)}` : ''}`);
  if (where) out.push(c.dim(`${where.file}:${where.line}:${where.column}`));
  out.push('');
  if (tool.summary) out.push(`${c.bold('summary')}      ${tool.summary}`);
  if (tool.description) {
    out.push(c.bold('description'));
    for (const line of tool.description.trim().split('\n')) out.push(`  ${line}`);
  }
  const fields: [string, string][] = [
    ['category', tool.category ?? '-'],
    ['tags', tool.tags.join(', ') || '-'],
    ['keywords', tool.keywords.join(', ') || '-'],
    ['aliases', tool.aliases.join(', ') || '-'],
    ['profiles', tool.profiles.join(', ') || '-'],
    ['effect', tool.effect],
    ['confirm', tool.confirm],
    ['flags', toolFlags(tool).join(', ') || '-'],
    ['concurrency', tool.concurrency],
    ['mode', tool.mode],
    ['timeout', `${tool.timeoutMs} ms`],
    ['max result', `${tool.maxResultTokens} tokens (${tool.truncation})`],
    ...(tool.references ? [['references', tool.references.kind === 'resource_links' ? 'resource_links (MCP)' : [tool.references.items, `url ${tool.references.url}`, ...(tool.references.title ? [`title ${tool.references.title}`] : []), ...(tool.references.snippet ? [`snippet ${tool.references.snippet}`] : [])].join(', ')] as [string, string]] : []),
    ...(tool.evaluation?.length ? [['evaluation', tool.evaluation.join(', ')] as [string, string]] : []),
    ['handler', tool.handler?.kind === 'mcp' ? `mcp: server "${tool.handler.server}", tool ${JSON.stringify(tool.handler.tool)}` : tool.handler ? tool.handler.kind : tool.source.kind === 'agent' ? 'agent' : 'none'],
  ];
  for (const [key, value] of fields) out.push(`${c.bold(key.padEnd(12))} ${value}`);
  for (const override of overrides) out.push(`${c.bold('overridden'.padEnd(12))} ${override.fields.join(', ')} ${c.dim(`(${override.file}:${override.line}:${override.column})`)}`);
  const prompts = Object.entries(tool.prompts);
  if (prompts.length) {
    out.push(c.bold('prompts'));
    for (const [key, value] of prompts) out.push(`  ${key}: ${String(value)}`);
  }
  out.push('', c.bold('parameters'), ...renderSchemaTree(tool.parameters, c).map((l) => '  ' + l));
  if (tool.examples.length) {
    out.push('', c.bold('examples'));
    for (const example of tool.examples) out.push(`  ${JSON.stringify(example)}`);
  }
  out.push('', c.bold('JSON Schema'), ...JSON.stringify(tool.parameters, null, 2).split('\n').map((l) => '  ' + l));
  // Characters a model reads but a terminal hides are shown, so the author sees what is there.
  io.stdout.write(showInvisible(out.join('\n')) + '\n');
  return EXIT.OK;
}
