import type { Readable, Writable } from 'node:stream';
import type { ToolManager } from '../manager/tool-manager.js';
import { promptContributions } from '../manager/facts.js';
import type { SearchMode } from '../session/tool-session.js';
import { CallSlots, DEFAULT_SERVE_LIMITS, type ServeLimits } from './call-slots.js';
import { createSessionServer } from './session-server.js';
import type { OpenedSession } from './http-host.js';
import { LineStdioTransport } from './stdio-transport.js';

export interface ServeOptions {
  profile?: string;
  searchMode?: SearchMode;
  /** Approve every call that asks for confirmation. */
  yes: boolean;
  verbose: boolean;
  /** toolman's version, for `initialize`. */
  version: string;
  /** Lines for the operator; the caller sends them to standard error. */
  log(line: string): void;
  /** Stops the server (Ctrl-C, SIGTERM). */
  signal: AbortSignal;
  /** Streamable HTTP on this address; without it, stdio. */
  http?: { host: string; port: number; token?: string };
  /** The protocol's streams for stdio: nothing else may write to `output`. */
  stdio?: { input: Readable; output: Writable };
  /** Calls at once, sessions, body and idle timeouts; DEFAULT_SERVE_LIMITS for what is not given. */
  limits?: Partial<ServeLimits>;
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
 * HTTP. Every connection gets its own session from the manager, so calls run as `call` and
 * `chat` run them. The MCP SDK (and, for HTTP, its transport) loads only here.
 */
export async function serveMcp(manager: ToolManager, options: ServeOptions): Promise<RunningServer> {
  const stop = new AbortController();
  const profile = options.profile ? { profile: options.profile } : {};
  const request = { ...profile, ...(options.searchMode ? { searchMode: options.searchMode } : {}) };
  // An unknown profile (or a selection that cannot be made) fails here, before anything listens.
  const { selection } = await manager.selection(profile);
  const tools = { active: selection.active.filter((t) => !t.native).length, deferred: selection.deferred.length };
  const catalog = manager.catalog;
  const searchNotes = {
    tool_search: 'Some tools of this catalog are not listed until tool_search finds them; the list changes when it does.',
    discover: 'Some tools of this catalog are not listed: discover_tools finds them, get_tool_schema shows one, invoke_tool calls it.',
  };

  const limits: ServeLimits = { ...DEFAULT_SERVE_LIMITS, ...options.limits };
  const total = new CallSlots(limits.maxCalls, 'over all sessions');
  const openSession = async (): Promise<OpenedSession> => {
    const session = await manager.session(request);
    const slots = { session: new CallSlots(limits.maxCallsPerSession, 'for this session'), total };
    const deferred = session.selection.deferred.length > 0;
    // The listed tools' prompt contributions (what `chat` puts in the system prompt) go to the
    // client as the server's instructions, each once: MCP has no per-turn place for reminders.
    const prompts = promptContributions(session.selection.active.filter((t) => !t.native), { citations: false });
    const instructions = [catalog.description, ...prompts.system, ...prompts.user, ...prompts.reminders, deferred ? searchNotes[session.searchMode] : undefined];
    const server = createSessionServer({
      session,
      name: 'toolman',
      version: options.version,
      title: `toolman: ${catalog.name}`,
      instructions: instructions.filter(Boolean).join('\n\n'),
      yes: options.yes,
      secrets: manager.secrets,
      log: options.log,
      verbose: options.verbose,
      stop: stop.signal,
      slots,
    });
    return { server, close: () => session.close(), busy: () => slots.session.busy };
  };

  let finish: (reason: StopReason) => void = () => undefined;
  const done = new Promise<StopReason>((resolve) => (finish = resolve));
  const onStop = () => finish('stopped');
  if (options.signal.aborted) onStop();
  else options.signal.addEventListener('abort', onStop, { once: true });
  const shutdown = async (close: () => Promise<void>) => {
    options.signal.removeEventListener('abort', onStop);
    stop.abort(new Error('toolman serve is shutting down'));
    await close();
  };

  if (options.http) {
    const { listenHttp } = await import('./http-host.js');
    const host = await listenHttp({ ...options.http, openSession, log: options.log, limits });
    return { url: host.url, tools, done, close: () => shutdown(host.close) };
  }

  const { input, output } = options.stdio ?? {};
  if (!input || !output) throw new TypeError('serveMcp: stdio needs input and output streams');
  const opened = await openSession();
  const onEnd = () => finish('input_closed');
  input.once('end', onEnd);
  input.once('close', onEnd);
  opened.server.onclose = onEnd;
  // Not the SDK's StdioServerTransport: it closes itself on one oversize line.
  await opened.server.connect(new LineStdioTransport(input, output, options.log));
  return {
    tools,
    done,
    close: () =>
      shutdown(async () => {
        input.off('end', onEnd);
        input.off('close', onEnd);
        opened.close();
        await opened.server.close().catch(() => undefined);
      }),
  };
}
