import { createHash } from 'node:crypto';
import {
  ProtocolError,
  ResourceNotFoundError,
  type CompleteRequestParams,
  type CompleteResult,
  type GetPromptRequestParams,
  type GetPromptResult,
  type InputRequiredResult,
  type Prompt,
  type ReadResourceRequestParams,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { canonicalJson } from '../shared/canonical-json.js';
import { withCallAsker, type ElicitRequest } from '../manager/mcp-client.js';
import type { SecretSet } from '../shared/secrets.js';
import type { Principal } from './approval-state.js';
import { modernRounds, type QuestionRelay } from './question-rounds.js';
import { sessionAsker } from './relayed-questions.js';
import type { Era } from './mcp-tool.js';
import { PAGE_SIZE, pageOf } from './tool-listing.js';

/** Which list changed, for `notifications/{prompts,resources}/list_changed`. */
export type PromptOrResourceList = 'prompts' | 'resources';

/**
 * Where `serve` gets what it offers besides tools: prompts, resources and resource templates, and
 * (optionally) completion of their arguments. One object answers both eras; the handlers below
 * page its lists for 2026-07-28 and send them whole to 2025-11-25 sessions, as `tools/list` does.
 *
 * toolman has no prompts or resources of its own, so today's source is `NO_PROMPTS_OR_RESOURCES`.
 * The gateway (issue 21 item 4, serve's part) is another implementation: the catalog's MCP
 * servers' prompts and resources with prefixed names, `getPrompt`/`readResource` routed to the
 * server that owns the name or URI, and `onChange` fed by their list changes. It is passed as
 * `ServeOptions.promptsAndResources` and needs no change here or in either era's server.
 *
 * Rules a source keeps, because the 2026-07-28 era promises them to every client:
 * - the lists are the same for every request and in a fixed order (`server/tools.mdx` says so of
 *   tools; `server/utilities/caching.mdx` names all four lists as cacheable results): a list may
 *   change only when the source says so through `onChange`;
 * - an unknown prompt is a `ProtocolError` -32602, an unknown resource a `ResourceNotFoundError`
 *   (-32602 with the URI in both revisions, 2026-07-28 `server/resources.mdx`);
 * - `getPrompt` and `readResource` may answer `input_required` (2026-07-28 `basic/patterns/mrtr.mdx`
 *   allows it on `prompts/get` and `resources/read`), e.g. relayed from an upstream server.
 */
export interface PromptsAndResources {
  prompts(): readonly Prompt[];
  resources(): readonly Resource[];
  resourceTemplates(): readonly ResourceTemplateType[];
  getPrompt(params: GetPromptRequestParams, ctx: ServerContext): Promise<GetPromptResult | InputRequiredResult>;
  readResource(params: ReadResourceRequestParams, ctx: ServerContext): Promise<ReadResourceResult | InputRequiredResult>;
  /** Completion of a prompt's or template's argument; without it the capability is not declared. */
  complete?(params: CompleteRequestParams, ctx: ServerContext): Promise<CompleteResult>;
  /** Waits (bounded) until the lists are known: a source that lists lazily starts listing here. */
  ready?(): Promise<void>;
  /** Tells the listener when a list changed (then `listChanged` is declared for both); returns how to stop. */
  onChange?(listener: (list: PromptOrResourceList) => void): () => void;
}

/**
 * toolman's own: nothing. The lists are empty rather than absent, so a client (or a cache) gets a
 * definite "none" instead of -32601.
 */
export const NO_PROMPTS_OR_RESOURCES: PromptsAndResources = {
  prompts: () => [],
  resources: () => [],
  resourceTemplates: () => [],
  getPrompt: async (params) => {
    throw new ProtocolError(-32602, `Unknown prompt: ${params.name} (toolman serve has no prompts)`);
  },
  readResource: async (params) => {
    throw new ResourceNotFoundError(params.uri);
  },
};

/**
 * What every toolman server declares, for a given source. Logging is declared so a client can set
 * its level (2025-11-25 `logging/setLevel`; in 2026-07-28 the level rides in each request's
 * `_meta`): toolman tells the client, as a warning, when it declines a call the client could not
 * be asked about or turns a call away as busy.
 */
export function serverCapabilities(source: PromptsAndResources): ServerCapabilities {
  const changes = source.onChange ? { listChanged: true } : {};
  return { tools: { listChanged: true }, prompts: { ...changes }, resources: { ...changes }, ...(source.complete ? { completions: {} } : {}), logging: {} };
}

/**
 * How an upstream server's questions during `prompts/get` and `resources/read` reach serve's
 * client: a 2025-11-25 session is asked on the request's stream, a 2026-07-28 client in rounds.
 */
export type ServedEra = { era: 'legacy'; secrets: SecretSet; log(line: string): void } | { era: 'modern'; relay: QuestionRelay; principal: Principal };

/** The source's handlers on a server of either era. */
export function servePromptsAndResources(server: Server, source: PromptsAndResources, served: ServedEra): void {
  const era: Era = served.era;
  server.setRequestHandler('prompts/list', async (request) => {
    await source.ready?.();
    const page = listOf(source.prompts(), request.params?.cursor, era, 'prompt list');
    return { prompts: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler('resources/list', async (request) => {
    await source.ready?.();
    const page = listOf(source.resources(), request.params?.cursor, era, 'resource list');
    return { resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler('resources/templates/list', async (request) => {
    await source.ready?.();
    const page = listOf(source.resourceTemplates(), request.params?.cursor, era, 'resource template list');
    return { resourceTemplates: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler('prompts/get', (request, ctx) => asking(server, served, ctx, { name: request.params.name, args: request.params.arguments ?? {} }, () => source.getPrompt(request.params, ctx)));
  server.setRequestHandler('resources/read', (request, ctx) => asking(server, served, ctx, { name: request.params.uri, args: {} }, () => source.readResource(request.params, ctx)));
  const complete = source.complete?.bind(source);
  if (complete) server.setRequestHandler('completion/complete', (request, ctx) => complete(request.params, ctx));
}

/**
 * A `prompts/get` or `resources/read` whose upstream server may ask the client something. A
 * question the client could not answer was declined for it; the request's answer is whatever
 * the upstream server then gave (a prompt has no error flag to carry a note: the log says it).
 */
async function asking<T extends object>(server: Server, served: ServedEra, ctx: ServerContext, bound: { name: string; args: unknown }, run: () => Promise<T>): Promise<T | InputRequiredResult> {
  if (served.era === 'legacy') {
    const unanswered: ElicitRequest[] = [];
    return withCallAsker(sessionAsker(ctx, () => server.getClientCapabilities(), served.secrets, unanswered, served.log), run);
  }
  const claim = ctx.mcpReq.requestState();
  const resume = claim === undefined ? undefined : served.relay.approvals.redeem(claim, bound.name, bound.args);
  const round = await modernRounds(served.relay, ctx, served.principal, bound, resume, (asker) => withCallAsker(asker, run));
  return round.kind === 'input_required' ? round.result : round.value;
}

/** Sends a 2025-11-25 session (or a stdio connection's server) the list change. */
export function sendListChanged(server: Server, list: PromptOrResourceList): Promise<void> {
  return list === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
}

/** Digests of the lists the source gave, by identity: a source that keeps its arrays is hashed once per change. */
const digests = new WeakMap<readonly unknown[], string>();

function listOf<T>(entries: readonly T[], cursor: string | undefined, era: Era, what: string): { items: T[]; nextCursor?: string } {
  // 2025-11-25 clients get every entry at once, as with tools: many read only the first page.
  if (era === 'legacy') return { items: [...entries] };
  let digest = digests.get(entries);
  if (digest === undefined) {
    digest = createHash('sha256').update(canonicalJson(entries)).digest('hex').slice(0, 16);
    digests.set(entries, digest);
  }
  return pageOf(entries, digest, cursor, PAGE_SIZE, what);
}
