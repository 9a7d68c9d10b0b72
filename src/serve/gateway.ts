import { ProtocolError, ResourceNotFoundError, type GetPromptResult, type Prompt, type ReadResourceResult, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import type { McpContentProblem, ServerContent } from '../manager/mcp-client.js';
import type { ToolManager } from '../manager/tool-manager.js';
import { ErrorCode, isToolmanError } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import type { PromptOrResourceList, PromptsAndResources } from './prompts-and-resources.js';

/** JSON-RPC invalid params: an unknown prompt, or arguments it does not take (MCP 2026-07-28 `server/prompts.mdx`). */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * `toolman serve` as a gateway: the catalog's MCP servers' prompts, resources and resource
 * templates, passed through to serve's clients in both eras. Names are the ones toolman gives
 * them (the server entry's `prefix` + the server's own, as for its tools); a prompt is fetched
 * from, and a resource read from, the server that offers it (a URI goes to the server that lists
 * it, or whose template matches it). Everything passes through the core's cleaning and bounds
 * (src/mcp/server-content.ts): text without control sequences or invisible characters, texts
 * cut, binary data within its bound. Lists are taken when a client first needs them (not when
 * serve starts: see `open`) and again when a server says they changed; serve's clients are then
 * told (`onChange`).
 *
 * Not passed through: completion. An upstream server's questions during `prompts/get` or
 * `resources/read` go to serve's client (the handlers in prompts-and-resources.ts run these
 * inside the request's asker).
 */
export class CatalogGateway implements PromptsAndResources {
  private lists: { prompts: Prompt[]; resources: Resource[]; templates: ResourceTemplateType[] } = { prompts: [], resources: [], templates: [] };
  private readonly listeners = new Set<(list: PromptOrResourceList) => void>();
  private stop: (() => void) | undefined;
  /** The first listing, started by the first request that needs the lists. */
  private first: Promise<void> | undefined;
  /** A request stopped waiting for the first listing: its end is told to clients as a change. */
  private gaveUp = false;

  private constructor(
    private readonly content: ServerContent,
    private readonly log: (line: string) => void,
    private readonly waitMs: number,
  ) {}

  /**
   * The gateway, at once: nothing is started or listed yet, so serve's start never waits for an
   * upstream server (its tools come from the tool-list cache, and a server starts on its first
   * call). The first request that needs the lists (`prompts/list`, `resources/list`, a get or a
   * read) starts the servers and lists them; it waits at most `waitMs` (a slow server's prompts
   * join later, and clients are told then). Servers that run are watched for list changes.
   */
  static async open(manager: ToolManager, log: (line: string) => void, waitMs = 10_000): Promise<CatalogGateway> {
    const gateway = new CatalogGateway(await manager.mcpContent(), log, waitMs);
    gateway.stop = gateway.content.onChange(() => void gateway.reload().then(() => gateway.tell()), { startServers: false });
    return gateway;
  }

  async ready(): Promise<void> {
    if (!this.first) {
      this.first = this.reload();
      void this.first.then(() => this.gaveUp && this.tell());
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = await Promise.race([this.first.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.waitMs)))]);
    clearTimeout(timer);
    if (!waited) this.gaveUp = true;
  }

  private reload(): Promise<void> {
    return this.load().catch((error: unknown) => this.log(`could not list the MCP servers' prompts and resources: ${error instanceof Error ? error.message : String(error)}`));
  }

  prompts(): readonly Prompt[] {
    return this.lists.prompts;
  }

  resources(): readonly Resource[] {
    return this.lists.resources;
  }

  resourceTemplates(): readonly ResourceTemplateType[] {
    return this.lists.templates;
  }

  async getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult> {
    try {
      const result = await this.content.getPrompt(params.name, params.arguments ?? {});
      return { ...(result.description ? { description: result.description } : {}), messages: result.messages.map((m) => ({ role: m.role, content: m.content })) };
    } catch (error) {
      throw protocolError(error, `prompt ${params.name}`);
    }
  }

  async readResource(params: { uri: string }): Promise<ReadResourceResult> {
    try {
      const read = await this.content.readResource({ uri: params.uri });
      return { contents: read.contents };
    } catch (error) {
      // Nobody lists it, or its server says it has no such resource: not found, in both revisions' terms.
      if ((isToolmanError(error) && error.code === ErrorCode.UNKNOWN_TOOL) || notFound(error)) throw new ResourceNotFoundError(params.uri);
      throw protocolError(error, `resource ${params.uri}`);
    }
  }

  onChange(listener: (list: PromptOrResourceList) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.stop?.();
    this.listeners.clear();
  }

  /** The lists in MCP's shapes; a URI two servers list goes to the first (in catalog order), and that is logged. */
  private async load(): Promise<void> {
    const [{ prompts, problems }, resourceList] = await Promise.all([this.content.prompts(), this.content.resources()]);
    const owners = new Map<string, string>();
    const resources: Resource[] = [];
    for (const r of resourceList.resources) {
      const owner = owners.get(r.uri);
      if (owner) {
        this.log(`MCP server ${r.server}'s resource ${r.uri} is not offered: MCP server ${owner} offers that URI too`);
        continue;
      }
      owners.set(r.uri, r.server);
      resources.push({ uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.size !== undefined ? { size: r.size } : {}) });
    }
    this.lists = {
      prompts: prompts.map((p) => ({ name: p.name, ...(p.title ? { title: p.title } : {}), ...(p.description ? { description: p.description } : {}), ...(p.arguments.length ? { arguments: p.arguments.map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), required: a.required })) } : {}) })),
      resources,
      templates: resourceList.templates.map((t) => ({ uriTemplate: t.uriTemplate, name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), ...(t.mimeType ? { mimeType: t.mimeType } : {}) })),
    };
    for (const problem of dedupe([...problems, ...resourceList.problems])) this.log(`MCP server ${problem.server}: ${problem.message}`);
  }

  private tell(): void {
    for (const listener of this.listeners) {
      for (const list of ['prompts', 'resources'] as const) {
        try {
          listener(list);
        } catch {
          // one client's failure must not stop the others
        }
      }
    }
  }
}

/** An error as the JSON-RPC error serve's client gets: the upstream server's code when it gave one, else invalid params or internal. */
function protocolError(error: unknown, what: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const upstream = error instanceof Error && isRecord(error.cause) && typeof error.cause.code === 'number' ? error.cause.code : undefined;
  if (upstream !== undefined) return new ProtocolError(upstream, message);
  if (isToolmanError(error) && (error.code === ErrorCode.UNKNOWN_TOOL || error.code === ErrorCode.USAGE)) return new ProtocolError(INVALID_PARAMS, `${message}${error.hint ? ` (${error.hint})` : ''}`);
  return new ProtocolError(INTERNAL_ERROR, `${what} could not be fetched: ${message}`);
}

/** The upstream server's "not found" for a resource: -32002 (2025-11-25) or -32602 naming the URI (2026-07-28). */
function notFound(error: unknown): boolean {
  const cause = error instanceof Error && isRecord(error.cause) ? error.cause : undefined;
  return cause?.code === -32002 || (cause?.code === INVALID_PARAMS && /not found/i.test(String(cause.message)));
}

function dedupe(problems: readonly McpContentProblem[]): McpContentProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(`${p.server}\u0000${p.message}`) && seen.add(`${p.server}\u0000${p.message}`));
}
