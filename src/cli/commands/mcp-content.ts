import { resolve } from 'node:path';
import { blockText, describeRead, resourceText, type McpContentProblem, type McpResourceContent, type ServerContent } from '../../manager/mcp-client.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import { writePrivateFile } from '../../shared/output-file.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { cliInteraction } from '../mcp-interaction.js';
import { withManager } from '../open-manager.js';
import { jsonDocument } from '../output/json-document.js';
import { createTable } from '../output/table.js';
import { plainText } from '../output/terminal-text.js';
import { serverOf, withServer, type McpServerOptions } from './mcp.js';

/**
 * `toolman mcp prompts|resources`: what MCP servers offer besides tools (MCP 2026-07-28
 * `server/prompts.mdx`, `server/resources.mdx`), from one server (`--url U`, `-- COMMAND`) or
 * from every server of the catalog (names prefixed as their tools are). Everything shown comes
 * from the servers, cleaned by the core; it is cleaned again on its way to the terminal.
 */
export interface McpContentOptions extends McpServerOptions {
  catalog?: string[];
  json?: boolean;
  /** Answers a server's yes/no question during the request (a 2026-07-28 input_required, a 2025 elicitation). */
  yes?: boolean;
  ask?: (question: string) => Promise<string>;
}

export interface McpPromptGetOptions extends McpContentOptions {
  name: string;
  /** `-a NAME=VALUE`, repeatable. */
  arg?: string[];
  /** `--args JSON`: an object of strings. */
  args?: string;
}

export interface McpResourceReadOptions extends McpContentOptions {
  uri: string;
  /** `--server NAME`: the catalog server to read from (default: the one that lists the URI). */
  server?: string;
  /** `-o FILE`: the content (a single part) written to FILE, binary decoded. */
  output?: string;
}

/** Runs `run` over the server the flags name, or over the catalog's servers when they name none. */
async function withContent<T>(options: McpContentOptions, io: CliIO, run: (content: ServerContent, manager: ToolManager) => Promise<T>): Promise<T> {
  const mcpInteraction = cliInteraction(io, options);
  const adHoc = (options.command?.length ?? 0) > 0 || options.url !== undefined;
  const body = async (manager: ToolManager) => run(await manager.mcpContent(), manager);
  if (adHoc) return withServer(io, serverOf(options), body, { mcpInteraction, login: options.login });
  return withManager(io, options.catalog, body, { ...(mcpInteraction ? { mcpInteraction } : {}) });
}

/** Problems on stderr; true when no server could be listed at all (the command fails). */
function sayProblems(io: CliIO, problems: readonly McpContentProblem[], servers: number): boolean {
  const c = palette(colorEnabled(io, io.stderr));
  for (const p of problems) io.stderr.write(`${c.yellow('warning:')} MCP server "${plainText(p.server)}": ${plainText(p.message)}\n`);
  const unreachable = new Set(problems.filter((p) => p.message.includes('could not be listed')).map((p) => p.server));
  return servers > 0 && unreachable.size >= servers;
}

/** `toolman mcp prompts`: every prompt with its arguments. */
export async function mcpPromptsCommand(options: McpContentOptions, io: CliIO): Promise<ExitCode> {
  return withContent(options, io, async (content, manager) => {
    const { prompts, problems } = await content.prompts();
    const failed = sayProblems(io, problems, manager.catalog.mcpServers.size);
    if (options.json) {
      io.stdout.write(jsonDocument({ prompts, problems }) + '\n');
      return failed ? EXIT.FAILURE : EXIT.OK;
    }
    const table = await createTable(['prompt', 'server', 'arguments', 'description'], io);
    for (const p of prompts) {
      const args = p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(' ');
      table.push([plainText(p.name), plainText(p.server), plainText(args), plainText(oneLine(p.title ?? p.description ?? '', 60))]);
    }
    if (prompts.length) io.stdout.write(table.toString() + '\n');
    io.stdout.write(`${prompts.length} prompt${prompts.length === 1 ? '' : 's'}${prompts.length ? '; toolman mcp prompts get NAME -a ARG=VALUE shows one' : ''}\n`);
    return failed ? EXIT.FAILURE : EXIT.OK;
  });
}

/** `toolman mcp prompts get NAME [-a NAME=VALUE]... [--args JSON]`: the prompt's messages, as the server gives them for these arguments. */
export async function mcpPromptGetCommand(options: McpPromptGetOptions, io: CliIO): Promise<ExitCode> {
  const args = promptArguments(options);
  return withContent(options, io, async (content) => {
    const result = await content.getPrompt(options.name, args);
    const c = palette(colorEnabled(io, io.stdout));
    for (const note of result.notes) io.stderr.write(`${palette(colorEnabled(io, io.stderr)).yellow('note:')} ${plainText(note)}\n`);
    if (options.json) {
      io.stdout.write(jsonDocument(result) + '\n');
      return EXIT.OK;
    }
    if (result.description) io.stdout.write(`${c.dim(plainText(result.description))}\n`);
    for (const message of result.messages) io.stdout.write(`${c.bold(`[${message.role}]`)}\n${plainText(blockText(message.content))}\n\n`);
    if (!result.messages.length) io.stdout.write(`${c.dim('(the prompt has no messages)')}\n`);
    return EXIT.OK;
  });
}

/** `toolman mcp resources`: every resource and resource template. */
export async function mcpResourcesCommand(options: McpContentOptions, io: CliIO): Promise<ExitCode> {
  return withContent(options, io, async (content, manager) => {
    const { resources, templates, problems } = await content.resources();
    const failed = sayProblems(io, problems, manager.catalog.mcpServers.size);
    if (options.json) {
      io.stdout.write(jsonDocument({ resources, templates, problems }) + '\n');
      return failed ? EXIT.FAILURE : EXIT.OK;
    }
    if (resources.length) {
      const table = await createTable(['uri', 'server', 'name', 'type', 'description'], io);
      for (const r of resources) table.push([plainText(r.uri), plainText(r.server), plainText(r.name), plainText(r.mimeType ?? ''), plainText(oneLine(r.title ?? r.description ?? '', 50))]);
      io.stdout.write(table.toString() + '\n');
    }
    if (templates.length) {
      const table = await createTable(['template', 'server', 'name', 'type', 'description'], io);
      for (const t of templates) table.push([plainText(t.uriTemplate), plainText(t.server), plainText(t.name), plainText(t.mimeType ?? ''), plainText(oneLine(t.title ?? t.description ?? '', 50))]);
      io.stdout.write(table.toString() + '\n');
    }
    io.stdout.write(`${resources.length} resource${resources.length === 1 ? '' : 's'}, ${templates.length} template${templates.length === 1 ? '' : 's'}${resources.length + templates.length ? '; toolman mcp resources read URI shows one' : ''}\n`);
    return failed ? EXIT.FAILURE : EXIT.OK;
  });
}

/** `toolman mcp resources read URI [--server NAME] [-o FILE]`: a resource's content. */
export async function mcpResourceReadCommand(options: McpResourceReadOptions, io: CliIO): Promise<ExitCode> {
  if (options.uri.trim() === '') throw new ToolmanError(ErrorCode.USAGE, 'name the resource: its URI');
  return withContent(options, io, async (content, manager) => {
    const read = await content.readResource({ uri: options.uri, ...(options.server !== undefined ? { server: options.server } : {}) });
    const err = palette(colorEnabled(io, io.stderr));
    for (const note of read.notes) io.stderr.write(`${err.yellow('note:')} ${plainText(note)}\n`);
    if (options.output !== undefined) {
      const part = onlyPart(read.contents);
      const data = 'text' in part ? part.text : Buffer.from(part.blob, 'base64');
      writePrivateFile(resolve(io.cwd, options.output), data, { label: '-o', mode: 'new', scope: { cwd: io.cwd } });
      io.stderr.write(`${err.dim(`wrote ${plainText(options.output)}: ${describeRead({ ...read, contents: [part] })}`)}\n`);
      return EXIT.OK;
    }
    if (options.json) {
      io.stdout.write(manager.secrets.redact(jsonDocument(read)) + '\n');
      return EXIT.OK;
    }
    // Text as it is (cleaned); binary parts as a line that names them (-o FILE writes them).
    for (const part of read.contents) io.stdout.write(`${plainText('text' in part && read.contents.length === 1 ? part.text : resourceText(part))}\n`);
    if (!read.contents.length) io.stdout.write('(the resource is empty)\n');
    if (read.contents.some((part) => 'blob' in part)) io.stderr.write(`${err.dim('binary content is not printed: -o FILE writes it')}\n`);
    return EXIT.OK;
  });
}

/** The one part of a read that `-o` can write. */
function onlyPart(contents: readonly McpResourceContent[]): McpResourceContent {
  if (contents.length !== 1) throw new ToolmanError(ErrorCode.USAGE, `the resource has ${contents.length} parts; -o writes a resource of one part (--json shows them all)`);
  return contents[0]!;
}

/** `-a NAME=VALUE` and `--args JSON`, as one object of strings. */
function promptArguments(options: McpPromptGetOptions): Record<string, string> {
  const args: Record<string, string> = {};
  if (options.args !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(options.args);
    } catch {
      throw new ToolmanError(ErrorCode.USAGE, '--args is not JSON', { hint: `like --args '{"city":"Paris"}'` });
    }
    if (!isRecord(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) throw new ToolmanError(ErrorCode.USAGE, '--args is a JSON object of strings (MCP prompt arguments are text)');
    Object.assign(args, parsed);
  }
  for (const pair of options.arg ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ToolmanError(ErrorCode.USAGE, `-a ${JSON.stringify(pair.slice(0, 40))} is not NAME=VALUE`);
    Object.defineProperty(args, pair.slice(0, at), { value: pair.slice(at + 1), enumerable: true, writable: true, configurable: true });
  }
  return args;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
