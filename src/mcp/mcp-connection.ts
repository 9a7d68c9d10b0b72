import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type McpSubscription, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isRecord } from '../shared/is-record.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { toolmanVersion } from '../shared/package-root.js';
import type { SecretSet } from '../shared/secrets.js';
import { timerDelay } from '../shared/timers.js';
import { interactionHandlers, type InteractionHandlers, type McpInteraction } from './mcp-interaction.js';
import { currentCallAsker, type CallAsker } from './question-relay.js';
import { inputRounds, MAX_INPUT_ROUNDS } from './input-rounds.js';
import { authRefusal, finishSignIn, refusalsTo, SignInStarted } from './oauth/connection-sign-in.js';
import type { ToolmanOAuthProvider } from './oauth/oauth-provider.js';
import { McpCallError, reasonOf } from './mcp-errors.js';
import { NoToolsList, readToolListPages, type ListHints } from './tool-list-pages.js';
import { plainText } from '../shared/plain-text.js';
import { describeLaunch, type ServerLaunch } from './server-launch.js';
import { describeExit, StdioProcessTransport } from './stdio-process-transport.js';
import { TolerantTransport, type RepairNote } from './tolerant-transport.js';

/** How long a stdio server gets to answer the `server/discover` probe before it is taken for a 2025 server. */
export const STDIO_PROBE_TIMEOUT_MS = 3_000;
/** JSON-RPC error of a 2026-07-28 server whose header check failed (`basic/transports/streamable-http.mdx`). */
const HEADER_MISMATCH = -32020;
/** JSON-RPC error of a 2026-07-28 server that needs a capability the client did not declare. */
const MISSING_CAPABILITY = -32021;

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The tool as the server listed it (its `x-mcp-header` marks are mirrored into headers on HTTP). */
  definition?: Record<string, unknown>;
  /** Lists the tools again and gives the tool's new definition: tried once when the server says the headers do not match. */
  relist?: () => Promise<Record<string, unknown> | undefined>;
}

/** What toolman learned about a server's protocol: kept with its tool list, so the next start skips the probe. */
export type EraVerdict = { era: 'legacy'; version?: string } | { era: 'modern'; version: string; discover: Record<string, unknown> };

export interface ConnectOptions {
  secrets: SecretSet;
  signal?: AbortSignal;
  /** A verdict from the tool-list cache: a 2025 server is started without the probe. */
  verdict?: EraVerdict;
  /** How the driver answers what the server asks during a call; the client declares what it supports. */
  interaction?: McpInteraction;
  /** OAuth for an HTTP server that asks for it (toolman's provider: the token store, and a browser step or none). */
  authProvider?: ToolmanOAuthProvider;
  /** How to name the way to log in, in a message (`toolman mcp login NAME`). */
  loginHint?: string;
  /** What the tolerant transport repaired in the server's answers (TM0804 / TM0830). */
  onRepair?: (note: RepairNote) => void;
}

/**
 * Results read as any object: toolman checks each one itself, as untrusted input, so one odd
 * field never costs a whole answer (a Standard Schema, as the SDK takes them).
 */
const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'toolman',
    validate: (value) => (isRecord(value) ? { value } : { issues: [{ message: 'the result is not an object' }] }),
  },
};

/**
 * One live connection to one MCP server on the official SDK's v2 `Client`: stdio (toolman's own
 * process transport, for stderr and exit status) or streamable HTTP, each behind the tolerant
 * transport. Both revisions: a 2026-07-28 server is found with `server/discover` (the SDK's
 * `auto` negotiation; MCP 2026-07-28 `basic/versioning.mdx`), a 2025 one with `initialize`; on
 * stdio the probe runs on the server's own process, and a server that exits on it is started
 * again as a 2025 server. Every failure is a `ToolmanError` (MCP_SERVER) whose message names the
 * server and, for a process, how it ended and the end of its stderr.
 */
export class McpConnection {
  private readonly listeners = new Set<() => void>();
  /** Told when the server's prompts or resources change. */
  private readonly contentListeners = new Set<() => void>();
  private closing = false;
  private lostReason: string | undefined;
  private subscription: McpSubscription | undefined;
  private watching = false;
  private repairs: RepairNote[] = [];
  /** Repairs of other answers (prompts, resources), until `request` takes them. */
  private otherRepairs: RepairNote[] = [];
  /** How the driver answers what the server asks (embedded in a 2026-07-28 `input_required`, or pushed by a 2025 server). */
  private handlers: InteractionHandlers | undefined;
  /** Calls and requests running now, with the asker each was started with (undefined: none). */
  private readonly running = new Map<symbol, CallAsker | undefined>();

  private constructor(
    readonly launch: ServerLaunch,
    private readonly sdk: Client,
    private readonly transport: TolerantTransport,
    private readonly inner: StdioProcessTransport | StreamableHTTPClientTransport,
    private readonly secrets: SecretSet,
    private readonly onRepair: ((note: RepairNote) => void) | undefined,
    private readonly authProvider?: ToolmanOAuthProvider,
    private readonly loginHint?: string,
  ) {}

  /** Starts (or reaches) the server and completes the MCP handshake within the launch's timeout. */
  static async open(launch: ServerLaunch, options: ConnectOptions): Promise<McpConnection> {
    let legacy = launch.protocol === 'auto' && options.verdict?.era === 'legacy';
    for (let attempt = 0; ; attempt++) {
      try {
        return await McpConnection.connect(launch, options, legacy);
      } catch (error) {
        // A server that exits on a request before `initialize` (rmcp's do) is a 2025 server: once more, without the probe.
        if (error instanceof ProbeExit && !legacy) {
          legacy = true;
          continue;
        }
        // A browser sign-in started during the handshake: finished here, then a new connection with
        // the tokens; twice at most (a sign-in, then one step-up), so a server that refuses every
        // token cannot send the user through the browser for ever.
        if (error instanceof SignInStarted && attempt < 2) {
          await finishSignIn(launch, error.transport, error.callback, options.secrets);
          continue;
        }
        throw error;
      }
    }
  }

  private static async connect(launch: ServerLaunch, options: ConnectOptions, legacy: boolean): Promise<McpConnection> {
    let connection: McpConnection | undefined;
    const handlers = interactionHandlers(launch.name, options.interaction, launch.roots, () => connection?.askerOfQuestion());
    const client = new Client(
      { name: 'toolman', version: toolmanVersion() },
      {
        capabilities: handlers.capabilities,
        versionNegotiation:
          launch.protocol === 'legacy' || legacy
            ? { mode: 'legacy' }
            : { mode: launch.protocol === '2026-07-28' ? { pin: '2026-07-28' } : 'auto', probe: { timeoutMs: launch.kind === 'stdio' ? Math.min(STDIO_PROBE_TIMEOUT_MS, launch.timeoutMs) : launch.timeoutMs } },
        inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
      },
    );
    const inner =
      launch.kind === 'stdio'
        ? new StdioProcessTransport({ command: launch.command, args: launch.args, cwd: launch.cwd, env: launch.env })
        : new StreamableHTTPClientTransport(new URL(launch.url), {
            requestInit: { headers: launch.headers },
            ...(options.authProvider ? { authProvider: options.authProvider, onInsufficientScope: options.authProvider.canSignIn ? 'reauthorize' : 'throw', maxStepUpRetries: 1, fetch: refusalsTo(launch.url, options.authProvider) } : {}),
          });
    const transport = new TolerantTransport(inner, { http: launch.kind === 'http', onRepair: (note) => connection?.repaired(note) });
    connection = new McpConnection(launch, client, transport, inner, options.secrets, options.onRepair, options.authProvider, options.loginHint);
    connection.handlers = handlers;
    const self = connection;
    // Reported through calls and `lost`; the SDK would otherwise log them itself.
    client.onerror = () => undefined;
    client.onclose = () => {
      if (!self.closing) self.lostReason ??= self.ended('stopped');
    };
    if (handlers.elicit) client.setRequestHandler('elicitation/create', (request, ctx) => handlers.elicit!(request.params, ctx.mcpReq.signal) as never);
    if (handlers.sample) client.setRequestHandler('sampling/createMessage', (request, ctx) => handlers.sample!(request.params, ctx.mcpReq.signal) as never);
    if (handlers.roots) client.setRequestHandler('roots/list', () => handlers.roots!() as never);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timerDelay(launch.timeoutMs));
    const stop = () => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      await client.connect(transport, { signal: controller.signal, timeout: launch.timeoutMs, ...(legacy && launch.protocol === 'auto' ? { prior: { kind: 'legacy' as const } } : {}) });
    } catch (error) {
      const timedOut = controller.signal.aborted && !options.signal?.aborted;
      await self.close();
      const callback = options.authProvider?.takeCallback();
      if (callback && inner instanceof StreamableHTTPClientTransport) throw new SignInStarted(inner, callback);
      const auth = self.authFailure(error);
      if (auth) throw auth;
      if (!legacy && launch.protocol === 'auto' && inner instanceof StdioProcessTransport && inner.exit && error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) throw new ProbeExit();
      throw self.failure(timedOut ? `did not start within ${launch.timeoutMs} ms` : options.signal?.aborted ? 'start cancelled' : `failed to start: ${reasonOf(error)}`, error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    }
    const tell = (listeners: Set<() => void>) => async () => {
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // a listener's failure must not break the connection
        }
      }
    };
    client.setNotificationHandler('notifications/tools/list_changed', tell(self.listeners));
    client.setNotificationHandler('notifications/prompts/list_changed', tell(self.contentListeners));
    client.setNotificationHandler('notifications/resources/list_changed', tell(self.contentListeners));
    return self;
  }

  /** The SDK's client itself, for what toolman does not wrap yet (prompts and resources). */
  get client(): Client {
    return this.sdk;
  }

  /** `modern` (2026-07-28 and later, stateless) or `legacy` (2025-11-25 and before, `initialize`). */
  get era(): 'modern' | 'legacy' {
    return this.sdk.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  }

  /** The revision both sides speak. */
  get protocolVersion(): string | undefined {
    return this.sdk.getNegotiatedProtocolVersion();
  }

  /** What the connection found out about the server's era, for the cache. */
  get verdict(): EraVerdict {
    const discover = this.sdk.getDiscoverResult();
    const version = this.protocolVersion;
    return this.era === 'modern' && discover ? { era: 'modern', version: version ?? '2026-07-28', discover: discover as Record<string, unknown> } : { era: 'legacy', ...(version ? { version } : {}) };
  }

  /** Why the connection is gone (the server exited, the HTTP session ended), or undefined while it lives. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * The server's name and version as it reported them (the `initialize` result, or the
   * `serverInfo` of a 2026-07-28 server's `server/discover` `_meta`, where it is a SHOULD).
   */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.sdk.getServerVersion();
    return info ? { name: String(info.name), version: String(info.version) } : undefined;
  }

  /** Why the last tool list was cut short (too many tools or pages, a repeated page), if it was. */
  listCut: string | undefined;
  /** The last list's cache hints (2026-07-28 `ttlMs`, `cacheScope`); undefined from a 2025 server. */
  listHints: ListHints | undefined;
  /** What the tolerant transport repaired in the last list (tools left out, with why). */
  listRepairs: RepairNote[] = [];

  /** Every tool, following `nextCursor`, within bounds a hostile server cannot stretch, with secrets redacted. */
  async listTools(signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    this.listCut = undefined;
    this.listHints = undefined;
    this.repairs = [];
    // Read as any result, not through the SDK's tool schema: one malformed tool must not cost
    // the whole list (toolman checks each entry itself, as untrusted input).
    const readPage = async (cursor: string | undefined) => {
      try {
        return await this.authorized(() => this.sdk.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ANY_RESULT, { timeout: this.launch.timeoutMs, ...(signal ? { signal } : {}) }));
      } catch (error) {
        throw this.authFailure(error) ?? this.failure(`tools/list failed: ${reasonOf(error)}`, error);
      }
    };
    let list;
    try {
      list = await readToolListPages(readPage, this.era === 'modern');
    } catch (error) {
      throw error instanceof NoToolsList ? this.failure(error.message) : error;
    }
    this.listCut = list.cut;
    this.listHints = list.hints;
    this.listRepairs = this.secrets.redactValue(this.repairs);
    // A server may echo what it was given (an API key in its environment, a token in a header)
    // into a title, a description, an enum or a default: every list is redacted as it arrives,
    // before anything shows, sends, serves or caches it.
    return this.secrets.redactValue(list.tools);
  }

  /**
   * `tools/call`. Progress notifications go to `onProgress`; when `signal` aborts, the call is
   * cancelled (2026-07-28 over HTTP: its stream is closed; otherwise `notifications/cancelled`)
   * and rejects with the signal's reason. The SDK's own timeout is set past toolman's, so the
   * executor's timeout (through the signal) is the one reported. On a 2026-07-28 connection toolman
   * answers `input_required` rounds through the interaction (`rounds`), and the SDK mirrors `x-mcp-header`
   * parameters into `Mcp-Param-*` headers from `definition`; a header mismatch (the server's
   * list changed) lists again and retries once (`streamable-http.mdx`: the client SHOULD).
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown> & { isError: boolean; content: unknown[] }> {
    return this.tracked(() => this.callToolNow(name, args, options));
  }

  private async callToolNow(name: string, args: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown> & { isError: boolean; content: unknown[] }> {
    if (this.lostReason) throw this.failure(this.lostReason);
    const send = (definition: Record<string, unknown> | undefined) => {
      const requestOptions = {
        signal: options.signal,
        timeout: timerDelay(options.timeoutMs + 5_000),
        resetTimeoutOnProgress: true,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      };
      if (this.era !== 'modern') return this.sdk.request({ method: 'tools/call', params: { name, arguments: args } }, ANY_RESULT, requestOptions);
      // Only the input schema: output is checked by toolman's executor (invalid_output), not thrown by the SDK.
      const inputSchema = isRecord(definition?.inputSchema) ? definition.inputSchema : { type: 'object' };
      return this.rounds({ name, arguments: args }, (params) => this.sdk.callTool(params as never, { ...requestOptions, allowInputRequired: true, toolDefinition: { name, inputSchema } as never } as never) as Promise<Record<string, unknown>>, options.signal);
    };
    try {
      let result: Record<string, unknown>;
      try {
        result = await this.authorized(() => send(options.definition));
      } catch (error) {
        if (!(error instanceof ProtocolError && error.code === HEADER_MISMATCH && options.relist) || options.signal.aborted) throw error;
        const definition = await options.relist();
        result = await this.authorized(() => send(definition));
      }
      return { ...result, isError: result.isError === true, content: Array.isArray(result.content) ? result.content : [] };
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const auth = this.authFailure(error);
      if (auth) throw new McpCallError(`${auth.message}; ${auth.hint ?? ''}`.replace(/; $/, ''));
      if (this.lostReason) throw this.failure(`${this.lostReason} during the call`, error);
      // -32021 MissingRequiredClientCapability (2026-07-28 basic/index.mdx): said in toolman's words, with what would answer it.
      if (error instanceof ProtocolError && error.code === MISSING_CAPABILITY) throw new McpCallError(`the server needs to ask the user (${missingCapabilities(error.data)}) during the call, and this driver does not answer that: \`toolman chat\` asks the user; --yes answers a yes/no question, or a form whose every field has a default`);
      throw new McpCallError(this.secrets.redact(reasonOf(error)));
    }
  }

  /** What the server declared it offers (`prompts`, `resources`, ...), from `initialize` or `server/discover`. */
  get capabilities(): Record<string, unknown> {
    return (this.sdk.getServerCapabilities() as Record<string, unknown> | undefined) ?? {};
  }

  /**
   * One request of the prompts and resources methods (`prompts/list`, `prompts/get`,
   * `resources/list`, `resources/templates/list`, `resources/read`), read as any result and
   * redacted as it arrives (a server may echo a secret it was given), within the launch's
   * timeout. On a 2026-07-28 connection `input_required` rounds are answered through the
   * interaction, as for calls (`basic/patterns/mrtr.mdx` allows them on `prompts/get` and
   * `resources/read`). A JSON-RPC error becomes an `McpCallError` with its message; a login
   * problem says how to log in. `repairs` says what the tolerant transport left out of the answer.
   */
  async request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<{ result: Record<string, unknown>; repairs: string[] }> {
    return this.tracked(() => this.requestNow(method, params, signal));
  }

  /**
   * Who answers a question the server asks now. A 2026-07-28 server asks inside the result of the
   * call it is about: that call's async context holds its asker. A 2025 server sends its own
   * request, which on stdio names no call (2025-11-25 `client/elicitation.mdx`): it is routed to
   * a call's asker only while that call is the only one running on this connection; with none or
   * several, undefined (the interaction's own answer: in serve, a decline).
   */
  askerOfQuestion(): CallAsker | undefined {
    if (this.era === 'modern') return currentCallAsker();
    if (this.running.size !== 1) return undefined;
    return [...this.running.values()][0];
  }

  /** A 2026-07-28 request's `input_required` rounds, answered by this connection's handlers in the caller's context (`input-rounds.ts`). */
  private rounds(params: Record<string, unknown>, send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    return inputRounds(params, send, this.handlers, signal);
  }

  private async tracked<T>(run: () => Promise<T>): Promise<T> {
    const key = Symbol('call');
    this.running.set(key, currentCallAsker());
    try {
      return await run();
    } finally {
      this.running.delete(key);
    }
  }

  private async requestNow(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<{ result: Record<string, unknown>; repairs: string[] }> {
    if (this.lostReason) throw this.failure(this.lostReason);
    try {
      const send = (sent: Record<string, unknown>) => this.sdk.request({ method, params: sent } as never, ANY_RESULT, { timeout: this.launch.timeoutMs, ...(signal ? { signal } : {}), ...(this.era === 'modern' ? { allowInputRequired: true } : {}) }) as Promise<Record<string, unknown>>;
      const result = await this.authorized(() => (this.era === 'modern' ? this.rounds(params, send, signal) : send(params)));
      // What the tolerant transport left out of this answer (a malformed prompt, say), said by the caller.
      const mine = this.otherRepairs.filter((note) => note.method === method);
      this.otherRepairs = this.otherRepairs.filter((note) => note.method !== method);
      return { result: this.secrets.redactValue(result), repairs: mine.map((note) => this.secrets.redact(note.message)) };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const auth = this.authFailure(error);
      if (auth) throw auth;
      if (this.lostReason) throw this.failure(`${this.lostReason} during ${method}`, error);
      if (error instanceof ProtocolError && error.code === MISSING_CAPABILITY) throw new McpCallError(`the server needs to ask the user (${missingCapabilities(error.data)}) to answer ${method}, and this driver does not answer that: \`toolman chat\` asks the user; --yes answers a yes/no question, or a form whose every field has a default`);
      throw new McpCallError(this.secrets.redact(plainText(reasonOf(error))).slice(0, 1_000), error instanceof ProtocolError ? error.code : undefined);
    }
  }

  /** Calls `listener` when the server says its tool list changed. */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` when the server says its prompts or resources changed (watched with `watchTools`). */
  onContentChanged(listener: () => void): () => void {
    this.contentListeners.add(listener);
    return () => this.contentListeners.delete(listener);
  }

  /**
   * Asks to be told when the server's tools change. A 2025 server says so unasked; a 2026-07-28
   * one only on a `subscriptions/listen` stream (`basic/patterns/subscriptions.mdx`), opened here
   * when the server announces `tools.listChanged`, and opened again after a dropped stream
   * (the SDK never does), with a growing pause.
   */
  watchTools(): void {
    const declared = this.sdk.getServerCapabilities();
    // The prompts and resources lists too, when the server says they change (a gateway passes them on).
    const filter = { ...(declared?.tools?.listChanged === true ? { toolsListChanged: true } : {}), ...(declared?.prompts?.listChanged === true ? { promptsListChanged: true } : {}), ...(declared?.resources?.listChanged === true ? { resourcesListChanged: true } : {}) };
    if (this.watching || this.era !== 'modern' || Object.keys(filter).length === 0) return;
    this.watching = true;
    void (async () => {
      for (let attempt = 0; !this.closing && attempt < 20; attempt++) {
        try {
          this.subscription = await this.sdk.listen(filter);
          if (this.closing) break;
          const reason = await this.subscription.closed;
          if (reason !== 'remote') break;
          attempt = 0;
        } catch {
          // the server refused or is gone: wait, then try again
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 500 * 2 ** attempt)).unref());
      }
    })();
  }

  /** Ends the session and stops the server (and what it started); safe to call twice. `exitGraceMs`: how long a stdio server may take to exit by itself. */
  async close(options: { exitGraceMs?: number } = {}): Promise<void> {
    if (this.inner instanceof StdioProcessTransport && options.exitGraceMs !== undefined) this.inner.exitGraceMs = options.exitGraceMs;
    if (this.closing) return;
    this.closing = true;
    this.listeners.clear();
    this.contentListeners.clear();
    await this.subscription?.close().catch(() => undefined);
    if (this.inner instanceof StreamableHTTPClientTransport && this.inner.sessionId !== undefined) {
      // Ends the server-side session of a 2025 server (a DELETE); a server that is gone must not delay closing.
      await Promise.race([this.inner.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    }
    await this.sdk.close().catch(() => undefined);
    await this.transport.close().catch(() => undefined);
  }

  /**
   * Runs a request; when the server asked for (more) authorization and a browser sign-in started
   * (`mcp login`, `--login`: a step-up for more scopes), finishes it and sends the request again.
   */
  private async authorized<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        // Once: a server that still refuses after a new sign-in is not signed in to again and again
        // (each round is a trip through the browser).
        const callback = this.authProvider?.takeCallback();
        if (!callback || attempt >= 1 || !(this.inner instanceof StreamableHTTPClientTransport)) throw error;
        await finishSignIn(this.launch, this.inner, callback, this.secrets);
      }
    }
  }

  /** A refusal to authorize as toolman says it (login needed, more scopes, a mix-up), or undefined for any other failure. */
  authFailure(error: unknown): ToolmanError | undefined {
    return authRefusal(error, this.launch.name, this.loginHint ?? `toolman mcp login ${this.launch.name}`, this.authProvider !== undefined);
  }

  private repaired(note: RepairNote): void {
    if (note.method === 'tools/list') this.repairs.push(note);
    else if (this.otherRepairs.length < 100) this.otherRepairs.push(note);
    this.onRepair?.(note);
  }

  /** "the server exited with code 1", from the process's state. */
  private ended(fallback: string): string {
    if (!(this.inner instanceof StdioProcessTransport)) return 'the connection to the server was closed';
    return `the server ${this.inner.stoppedBecause ?? describeExit(this.inner.exit) ?? fallback}`;
  }

  /** A failure naming the server, how its process ended and the end of its stderr (secrets redacted). */
  failure(what: string, cause?: unknown): ToolmanError {
    const parts = [`MCP server "${this.launch.name}" (${describeLaunch(this.launch)}) ${what}`];
    if (this.inner instanceof StdioProcessTransport) {
      const exit = describeExit(this.inner.exit);
      if (exit && !what.includes(exit)) parts.push(`the process ${exit}`);
      const tail = stderrTail(this.inner.stderr);
      if (tail) parts.push(`its stderr ends with:\n${tail}`);
    }
    const hint = this.launch.kind === 'stdio' ? 'run the command by hand to see why; `timeout_ms` on the server entry gives a slow server longer' : 'check that the server is running at this URL';
    return new ToolmanError(ErrorCode.MCP_SERVER, this.secrets.redact(parts.join('; ')), { hint, ...(cause === undefined ? {} : { cause }) });
  }
}

/** The server process ended during the `server/discover` probe: start it again, as a 2025 server. */
class ProbeExit extends Error {}

/** "elicitation, sampling": the capabilities a -32021 error names (from the server: names only, cleaned). */
function missingCapabilities(data: unknown): string {
  const required = isRecord(data) && isRecord(data.requiredCapabilities) ? Object.keys(data.requiredCapabilities) : [];
  const names = required.map((name) => name.replace(/[^\w.-]/g, '').slice(0, 40)).filter(Boolean);
  return names.length ? names.join(', ') : 'a capability';
}

/** The last lines the server wrote to stderr, indented; empty when it wrote none (or only blank lines). */
function stderrTail(text: string): string {
  if (text.trim() === '') return '';
  const lines = text.trimEnd().split(/\r?\n/).slice(-20);
  const joined = lines.map((line) => `    ${line}`).join('\n');
  return joined.length > 2000 ? joined.slice(-2000) : joined;
}
