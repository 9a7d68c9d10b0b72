import { ErrorCode, isToolmanError, ToolmanError } from '../shared/errors.js';
import { closest } from '../shared/did-you-mean.js';
import { isRecord } from '../shared/is-record.js';
import type { McpConnection } from './mcp-connection.js';
import { McpCallError } from './mcp-errors.js';
import type { McpServers } from './mcp-servers.js';
import { describeArguments, promptArgumentsProblem, promptResult, serverPrompts, type McpPrompt, type McpPromptResult } from './server-prompts.js';
import { resourceRead, serverResources, serverTemplates, templateMatches, type McpResource, type McpResourceRead, type McpResourceTemplate } from './server-resources.js';

/** Something about one server's prompts or resources worth telling (it could not be listed, an entry was left out). */
export interface McpContentProblem {
  server: string;
  message: string;
}

export interface McpPromptList {
  prompts: McpPrompt[];
  problems: McpContentProblem[];
}

export interface McpResourceList {
  resources: McpResource[];
  templates: McpResourceTemplate[];
  problems: McpContentProblem[];
}

/** Where a read goes: a server and a URI, or a URI alone (the server that lists it, or whose template matches it). */
export interface ResourceRef {
  server?: string;
  uri: string;
}

/** A list's pages past this many are not asked for (a hostile server could page for ever). */
const MAX_PAGES = 100;
/** ...and this many entries in all (resources, templates, prompts). */
const MAX_ENTRIES = 10_000;

interface Listed {
  prompts?: Promise<{ entries: unknown[]; cut?: string }>;
  resources?: Promise<{ entries: unknown[]; cut?: string }>;
  templates?: Promise<{ entries: unknown[]; cut?: string }>;
  /** The connection whose changes are watched (a restarted server is watched again). */
  watched?: McpConnection;
}

/**
 * The prompts and resources of a catalog's MCP servers, for the drivers through the manager:
 * lists from every server that declares them (started on first use, in parallel; a server that
 * cannot be reached is a problem, not a failure), prompts fetched by the name toolman gives them,
 * resources read by server and URI. Lists are kept until the server says they changed (then
 * `onChange` listeners hear it). Names follow the tools' (`prefix` + the server's name); two
 * servers' prompts with one name keep the first, in catalog order, and say so.
 */
export class ServerContent {
  private readonly listed = new Map<string, Listed>();
  private readonly listeners = new Set<() => void>();

  /** `servers` undefined: a catalog without MCP servers (or whose servers were not started), so nothing to list. */
  constructor(private readonly servers: McpServers | undefined) {}

  /** Every server's prompts, in catalog order. */
  async prompts(signal?: AbortSignal): Promise<McpPromptList> {
    const problems: McpContentProblem[] = [];
    const prompts: McpPrompt[] = [];
    const owners = new Map<string, string>();
    for (const { server, result } of await this.each('prompts', signal)) {
      if ('problem' in result) {
        problems.push({ server, message: result.problem });
        continue;
      }
      const config = this.config(server)!;
      const found = serverPrompts(config, result.entries);
      for (const message of [...(result.cut ? [result.cut] : []), ...found.notes]) problems.push({ server, message });
      for (const prompt of found.prompts) {
        const owner = owners.get(prompt.name);
        if (owner) {
          problems.push({ server, message: `prompt "${prompt.name}" left out: MCP server "${owner}" has a prompt of that name (give one of them a \`prefix\`)` });
          continue;
        }
        owners.set(prompt.name, server);
        prompts.push(prompt);
      }
    }
    return { prompts, problems };
  }

  /** Asks the prompt's server for it (`prompts/get`) with `args`, checked first against what it declares. */
  async getPrompt(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpPromptResult> {
    const { prompts, problems } = await this.prompts(signal);
    const prompt = prompts.find((p) => p.name === name);
    if (!prompt) {
      const suggestion = closest(name, prompts.map((p) => p.name));
      const unreachable = problems.filter((p) => /could not|cannot|failed|refused/.test(p.message)).map((p) => p.server);
      throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `no MCP prompt "${name}"${suggestion ? `; did you mean ${suggestion}?` : ''}`, {
        hint: prompts.length ? `prompts: ${prompts.slice(0, 20).map((p) => p.name).join(', ')}${prompts.length > 20 ? ', ...' : ''}` : unreachable.length ? `servers not reached: ${unreachable.join(', ')}` : 'the catalog\'s MCP servers offer no prompts',
      });
    }
    const problem = promptArgumentsProblem(prompt, args);
    if (problem) throw new ToolmanError(ErrorCode.USAGE, problem, { hint: describeArguments(prompt) });
    const connection = await this.connection(prompt.server, signal);
    const { result, repairs } = await this.ask(connection, prompt.server, 'prompts/get', { name: prompt.mcpName, arguments: args }, signal);
    const got = promptResult(prompt, result);
    return repairs.length ? { ...got, notes: [...repairs, ...got.notes] } : got;
  }

  /** Every server's resources and resource templates, in catalog order. */
  async resources(signal?: AbortSignal): Promise<McpResourceList> {
    const problems: McpContentProblem[] = [];
    const resources: McpResource[] = [];
    const templates: McpResourceTemplate[] = [];
    const [lists, templateLists] = await Promise.all([this.each('resources', signal), this.each('templates', signal)]);
    for (const [index, { server, result }] of lists.entries()) {
      const config = this.config(server)!;
      if ('problem' in result) problems.push({ server, message: result.problem });
      else {
        const found = serverResources(config, result.entries);
        resources.push(...found.resources);
        for (const message of [...(result.cut ? [result.cut] : []), ...found.notes]) problems.push({ server, message });
      }
      const listedTemplates = templateLists[index]!.result;
      // A server without templates answers -32601 on older SDKs: only resources' problem is said.
      if (!('problem' in listedTemplates)) {
        const found = serverTemplates(config, listedTemplates.entries);
        templates.push(...found.templates);
        for (const message of found.notes) problems.push({ server, message });
      }
    }
    return { resources, templates, problems };
  }

  /** Reads a resource from its server (named, or found by the URI among the lists). */
  async readResource(ref: ResourceRef, signal?: AbortSignal): Promise<McpResourceRead> {
    const server = ref.server ?? (await this.ownerOf(ref.uri, signal));
    if (!this.config(server)) {
      const names = this.listings().map((l) => l.config.name);
      throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `no MCP server "${server}" in the catalog`, { hint: names.length ? `servers: ${names.join(', ')}` : 'the catalog has no mcp_servers' });
    }
    const connection = await this.connection(server, signal);
    if (!isRecord(connection.capabilities.resources)) throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${server}" offers no resources`);
    const { result, repairs } = await this.ask(connection, server, 'resources/read', { uri: ref.uri }, signal);
    const read = resourceRead(server, ref.uri, result);
    return repairs.length ? { ...read, notes: [...repairs, ...read.notes] } : read;
  }

  /**
   * Tells `listener` when a server says its prompts or resources changed; returns the
   * unsubscribe. Every server is started and watched from now on (a 2026-07-28 server tells only
   * on a `subscriptions/listen` stream, which watching opens); with `startServers: false`, only
   * those running now and those started later are.
   */
  onChange(listener: () => void, options: { startServers?: boolean } = {}): () => void {
    this.listeners.add(listener);
    this.servers?.watch({ start: options.startServers !== false });
    return () => this.listeners.delete(listener);
  }

  private listings(): ReturnType<McpServers['listings']> {
    return this.servers?.listings() ?? [];
  }

  private connection(server: string, signal?: AbortSignal): Promise<McpConnection> {
    if (!this.servers) return Promise.reject(new ToolmanError(ErrorCode.MCP_SERVER, `no MCP server "${server}": the catalog's MCP servers were not started`));
    return this.servers.connection(server, signal);
  }

  /**
   * The server that lists `uri`, or else the first whose template matches it, or else the only
   * server that offers resources at all (it decides: a resource need not be listed to exist).
   */
  async ownerOf(uri: string, signal?: AbortSignal): Promise<string> {
    const { resources, templates } = await this.resources(signal);
    const owner = resources.find((r) => r.uri === uri)?.server ?? templates.find((t) => templateMatches(t.uriTemplate, uri))?.server;
    if (owner) return owner;
    const offering = (await Promise.all(this.listings().map(async ({ config }) => ((await this.connection(config.name, signal).catch(() => undefined))?.capabilities.resources !== undefined ? [config.name] : [])))).flat();
    if (offering.length === 1) return offering[0]!;
    throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `no MCP server of the catalog lists the resource ${JSON.stringify(uri)}`, { hint: offering.length ? `name its server (${offering.join(', ')}); toolman mcp resources lists what they offer` : 'the catalog\'s MCP servers offer no resources' });
  }

  private config(server: string) {
    return this.listings().find((l) => l.config.name === server)?.config;
  }

  /** One list of every server that declares the capability, in parallel, in catalog order. */
  private each(kind: 'prompts' | 'resources' | 'templates', signal?: AbortSignal): Promise<{ server: string; result: { entries: unknown[]; cut?: string } | { problem: string } }[]> {
    const capability = kind === 'prompts' ? 'prompts' : 'resources';
    return Promise.all(
      this.listings().map(async ({ config }) => {
        const server = config.name;
        try {
          const connection = await this.connection(server, signal);
          this.watch(server, connection);
          if (!isRecord(connection.capabilities[capability])) return { server, result: { entries: [] } };
          const state = this.listed.get(server)!;
          const method = kind === 'prompts' ? 'prompts/list' : kind === 'resources' ? 'resources/list' : 'resources/templates/list';
          const key = kind === 'templates' ? 'resourceTemplates' : kind;
          const pending = (state[kind] ??= this.pages(connection, server, method, key));
          // A failed list is asked again next time.
          pending.catch(() => state[kind] === pending && delete state[kind]);
          return { server, result: await pending };
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          return { server, result: { problem: `its ${kind === 'templates' ? 'resource templates' : kind} could not be listed: ${isToolmanError(error) || error instanceof Error ? error.message.replace(/^MCP server "[^"]*" /, '') : String(error)}` } };
        }
      }),
    );
  }

  /** Every page of a list, within bounds a hostile server cannot stretch. */
  private async pages(connection: McpConnection, server: string, method: string, key: string): Promise<{ entries: unknown[]; cut?: string }> {
    const entries: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    const repaired: string[] = [];
    const cut = (why: string) => [why, ...repaired].join('; ');
    for (let page = 0; page < MAX_PAGES; page++) {
      const { result, repairs } = await this.ask(connection, server, method, cursor === undefined ? {} : { cursor });
      repaired.push(...repairs);
      const items = result[key];
      if (!Array.isArray(items)) throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${server}" answered ${method} without a list`);
      // One by one, and no more than the bound: a page is a message of any length, and spreading a
      // few hundred thousand entries into push() overflows the stack (the list was then lost).
      let over = false;
      for (const item of items) {
        if (entries.length === MAX_ENTRIES) {
          over = true;
          break;
        }
        entries.push(item);
      }
      if (over) return { entries, cut: cut(`its ${method} answer has more than 10,000 entries; the rest are missing`) };
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) return repaired.length ? { entries, cut: repaired.join('; ') } : { entries };
      if (seen.has(cursor)) return { entries, cut: cut(`its ${method} answer repeats a page; the rest are missing`) };
      seen.add(cursor);
    }
    return { entries, cut: cut(`its ${method} answer has more than ${MAX_PAGES} pages; the rest are missing`) };
  }

  /** A request, its failure said with the server's name. */
  private async ask(connection: McpConnection, server: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<{ result: Record<string, unknown>; repairs: string[] }> {
    try {
      return await connection.request(method, params, signal);
    } catch (error) {
      if (error instanceof McpCallError) throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${server}" refused ${method}: ${error.message}`, error.code !== undefined ? { cause: error } : {});
      throw error;
    }
  }

  /** Forgets a server's lists when it says they changed (and when it was started again). */
  private watch(server: string, connection: McpConnection): void {
    const state = this.listed.get(server);
    if (state?.watched === connection) return;
    this.listed.set(server, { watched: connection });
    connection.onContentChanged(() => {
      this.listed.set(server, { watched: connection });
      for (const listener of this.listeners) {
        try {
          listener();
        } catch {
          // one listener's failure must not stop the others
        }
      }
    });
  }
}
