import { setMaxListeners } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import type { ToolManager } from '../manager/tool-manager.js';
import type { SearchMode } from '../session/tool-session.js';
import { principalOfAuth } from './approval-state.js';
import { CallSlots, DEFAULT_SERVE_LIMITS, type ServeLimits } from './call-slots.js';
import type { OpenedSession, RequestAuthorizer } from './http-host.js';
import { ModernServing, serverInstructions } from './modern-serving.js';
import type { TaskLimits } from './served-tasks.js';
import type { ParkedLimits } from './parked-calls.js';
import { paramHeaderMismatch } from './param-headers.js';
import { headerMarks } from '../shared/x-mcp-header.js';
import { NO_PROMPTS_OR_RESOURCES, sendListChanged, type PromptOrResourceList, type PromptsAndResources } from './prompts-and-resources.js';
import { createSessionServer } from './session-server.js';
import { LineStdioTransport } from './stdio-transport.js';
import { errorLine } from './error-line.js';

export interface ServeOptions {
  profile?: string;
  searchMode?: SearchMode;
  /** Approve every call that asks for confirmation. */
  yes: boolean;
  verbose: boolean;
  /** toolman's version, for `initialize` and `server/discover`. */
  version: string;
  /** Lines for the operator; the caller sends them to standard error. */
  log(line: string): void;
  /** Stops the server (Ctrl-C, SIGTERM). */
  signal: AbortSignal;
  /** Streamable HTTP on this address; without it, stdio. */
  http?: { host: string; port: number; token?: string; authorizer?: RequestAuthorizer };
  /** The protocol's streams for stdio: nothing else may write to `output`. */
  stdio?: { input: Readable; output: Writable };
  /** Calls at once, sessions, body and idle timeouts; DEFAULT_SERVE_LIMITS for what is not given. */
  limits?: Partial<ServeLimits>;
  /** Bounds of the 2026-07-28 calls that wait for the client's answer to an upstream server's question. */
  parkedLimits?: ParkedLimits;
  /** Bounds of the tasks extension's tasks (tests shorten them). */
  taskLimits?: TaskLimits;
  /** What is served besides tools; default none (the gateway over the catalog's MCP servers plugs in here). */
  promptsAndResources?: PromptsAndResources;
}

/** Why the server stopped: the client closed standard input, or the process was told to stop. */
export type StopReason = 'input_closed' | 'stopped';

export interface RunningServer {
  /** The HTTP endpoint, when serving over HTTP. */
  url?: string;
  /** How many tools are listed at first, and how many tool_search can add. */
  tools: { active: number; deferred: number };
  /** Resolves when the server should stop; `close()` then ends it. */
  done: Promise<StopReason>;
  /** Ends every call still running and closes the transports (the manager stays the caller's to close). */
  close(): Promise<void>;
}

/**
 * `toolman serve`: the catalog's selected tools as an MCP server, over stdio or streamable
 * HTTP, in both protocol eras at once. A 2025-11-25 client (`initialize`) gets a session of its
 * own, as before; 2026-07-28 requests are answered statelessly from what every request shares
 * (`ModernServing`). Calls run as `call` and `chat` run them. The MCP SDK (and, for HTTP, its
 * transport) loads only here.
 */
export async function serveMcp(manager: ToolManager, options: ServeOptions): Promise<RunningServer> {
  const stop = new AbortController();
  // Every call in flight, and every call waiting for a slot, listens to it until it ends (each
  // takes its listener off again): up to --max-calls and their queues at once, which is no leak.
  setMaxListeners(0, stop.signal);
  const profile = options.profile ? { profile: options.profile } : {};
  const request = { ...profile, ...(options.searchMode ? { searchMode: options.searchMode } : {}) };
  // An unknown profile (or a selection that cannot be made) fails here, before anything listens.
  const { selection } = await manager.selection(profile);
  const tools = { active: selection.active.filter((t) => !t.native).length, deferred: selection.deferred.length };
  const catalog = manager.catalog;
  const info = { name: 'toolman', version: options.version, title: `toolman: ${catalog.name}` };

  const limits: ServeLimits = { ...DEFAULT_SERVE_LIMITS, ...options.limits };
  const total = new CallSlots(limits.maxCalls, 'over all sessions');
  const promptsAndResources = options.promptsAndResources ?? NO_PROMPTS_OR_RESOURCES;
  const openSession = async (): Promise<OpenedSession> => {
    const session = await manager.session(request);
    const slots = { session: new CallSlots(limits.maxCallsPerSession, 'for this session'), total };
    const server = createSessionServer({
      session,
      ...info,
      instructions: serverInstructions(catalog, session.selection, session.searchMode),
      promptsAndResources,
      yes: options.yes,
      secrets: manager.secrets,
      log: options.log,
      verbose: options.verbose,
      stop: stop.signal,
      slots,
    });
    // A 2025-11-25 session hears of prompt and resource list changes on its own stream.
    const unwatch = promptsAndResources.onChange?.((list) => void sendListChanged(server, list).catch(() => undefined));
    return {
      server,
      close: () => {
        unwatch?.();
        session.close();
      },
      busy: () => slots.session.busy,
    };
  };
  const authenticated = options.http?.token !== undefined || options.http?.authorizer !== undefined;
  const modern = await ModernServing.open(manager, {
    ...info,
    request: profile,
    limits,
    total,
    cacheScope: authenticated ? 'private' : 'public',
    ...(options.parkedLimits ? { parkedLimits: options.parkedLimits } : {}),
    ...(options.taskLimits ? { taskLimits: options.taskLimits } : {}),
    promptsAndResources,
    yes: options.yes,
    secrets: manager.secrets,
    stop: stop.signal,
    log: options.log,
    verbose: options.verbose,
  });

  let finish: (reason: StopReason) => void = () => undefined;
  const done = new Promise<StopReason>((resolve) => (finish = resolve));
  const onStop = () => finish('stopped');
  if (options.signal.aborted) onStop();
  else options.signal.addEventListener('abort', onStop, { once: true });
  const shutdown = async (close: () => Promise<void>) => {
    options.signal.removeEventListener('abort', onStop);
    stopWatching();
    unwatchLists?.();
    stop.abort(new Error('toolman serve is shutting down'));
    await close();
    modern.close();
  };
  // The 2026-07-28 list follows the catalog: when an MCP server's tools change, it is built again
  // and listeners that asked (`subscriptions/listen`) are told; so are they of prompt and resource
  // list changes (2025-11-25 sessions hear of those on their own, above).
  let announce = (_list: 'tools' | PromptOrResourceList) => undefined as void;
  const stopWatching = manager.onUnwatchedMcpChange(() => {
    void modern.refresh().then((changed) => changed && announce('tools'), (error: unknown) => options.log(`could not rebuild the tool list: ${error instanceof Error ? error.message : String(error)}`));
  });
  const unwatchLists = promptsAndResources.onChange?.((list) => announce(list));

  if (options.http) {
    const { listenHttp } = await import('./http-host.js');
    const host = await listenHttp({
      ...options.http,
      openSession,
      modern: {
        server: (auth) => modern.server(principalOfAuth(auth)),
        paramMismatch: (body, headers) => paramMismatch(modern, body, headers),
      },
      log: options.log,
      limits,
    });
    announce = (list) => host.listChanged(list);
    return { url: host.url, tools, done, close: () => shutdown(host.close) };
  }

  const { input, output } = options.stdio ?? {};
  if (!input || !output) throw new TypeError('serveMcp: stdio needs input and output streams');
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  // The connection's era is its first message's: `initialize` pins a 2025 session, a request
  // with the `_meta` envelope pins 2026-07-28 (the SDK decides, `serveStdio`). One client, so
  // one principal: the local user who started toolman.
  const opened: OpenedSession[] = [];
  const modernInstances = new Set<Server>();
  const stdioPrincipal = { key: 'stdio', authenticated: true };
  const onEnd = () => finish('input_closed');
  input.once('end', onEnd);
  input.once('close', onEnd);
  // Not the SDK's StdioServerTransport: it closes itself on one oversize line.
  const transport = new LineStdioTransport(input, output, options.log);
  const handle = serveStdio(
    async ({ era }) => {
      if (era === 'legacy') return openStdioSession();
      const server = modern.server(stdioPrincipal);
      modernInstances.add(server);
      server.onclose = () => modernInstances.delete(server);
      return server;
    },
    { transport, legacy: 'serve', onerror: (error) => options.log(errorLine('protocol error', error)) },
  );
  async function openStdioSession(): Promise<Server> {
    const session = await openSession();
    opened.push(session);
    return session.server;
  }
  // serveStdio routes the instance's list_changed to the listen subscriptions that asked for it.
  announce = (list) => {
    for (const server of modernInstances) void (list === 'tools' ? server.sendToolListChanged() : sendListChanged(server, list)).catch(() => undefined);
  };
  return {
    tools,
    done,
    close: () =>
      shutdown(async () => {
        input.off('end', onEnd);
        input.off('close', onEnd);
        for (const session of opened) session.close();
        await handle.close().catch(() => undefined);
      }),
  };
}

/** Each input schema's `x-mcp-header` marks, found once: a tool's parameters never change (a new catalog brings new objects). */
const marksByParameters = new WeakMap<object, ReturnType<typeof headerMarks>>();

/** A `tools/call`'s `Mcp-Param-*` headers against its arguments, for the tool it names (listed or deferred). */
function paramMismatch(modern: ModernServing, body: unknown, headers: Record<string, string | string[] | undefined>): string | undefined {
  const message = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string') return undefined;
  const name = message.params.name;
  const tool = modern.tool(name);
  if (!tool) return undefined;
  let marks = marksByParameters.get(tool.parameters);
  if (!marks) marksByParameters.set(tool.parameters, (marks = headerMarks(tool.parameters)));
  return marks.ok && marks.marks.length ? paramHeaderMismatch(marks.marks, message.params.arguments, headers) : undefined;
}
