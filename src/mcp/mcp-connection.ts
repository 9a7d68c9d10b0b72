import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../shared/is-record.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';
import { timerDelay } from '../shared/timers.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { describeExit, StdioProcessTransport } from './stdio-process-transport.js';
import { describeLaunch, type ServerLaunch } from './server-launch.js';

/** A hostile server could answer `tools/list` with a cursor forever: this many pages, then stop. */
export const MAX_TOOL_PAGES = 100;
/** ...and this many tools in all. */
export const MAX_TOOLS_PER_SERVER = 5_000;

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/**
 * One live connection to one MCP server on the official SDK's `Client`: stdio (toolman's own
 * process transport, for stderr and exit status) or streamable HTTP. Every failure is a
 * `ToolmanError` (MCP_SERVER) whose message names the server and, for a process, how it ended
 * and the end of its stderr.
 */
export class McpConnection {
  private readonly listeners = new Set<() => void>();
  private closing = false;
  private lostReason: string | undefined;

  private constructor(
    readonly launch: ServerLaunch,
    private readonly client: Client,
    private readonly transport: StdioProcessTransport | StreamableHTTPClientTransport,
    private readonly secrets: SecretSet,
  ) {}

  /** Starts (or reaches) the server and completes the MCP handshake within the launch's timeout. */
  static async open(launch: ServerLaunch, secrets: SecretSet, signal?: AbortSignal): Promise<McpConnection> {
    const client = new Client({ name: 'toolman', version: clientVersion() }, { capabilities: {} });
    const transport =
      launch.kind === 'stdio'
        ? new StdioProcessTransport({ command: launch.command, args: launch.args, cwd: launch.cwd, env: launch.env })
        : new StreamableHTTPClientTransport(new URL(launch.url), { requestInit: { headers: launch.headers } });
    const connection = new McpConnection(launch, client, transport, secrets);
    // Reported through calls and `lost`; the SDK would otherwise log them itself.
    client.onerror = () => undefined;
    client.onclose = () => {
      if (!connection.closing) connection.lostReason ??= connection.ended('stopped');
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timerDelay(launch.timeoutMs));
    const stop = () => controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await client.connect(transport, { signal: controller.signal, timeout: launch.timeoutMs });
    } catch (error) {
      const timedOut = controller.signal.aborted && !signal?.aborted;
      await connection.close();
      throw connection.failure(timedOut ? `did not start within ${launch.timeoutMs} ms` : signal?.aborted ? 'start cancelled' : `failed to start: ${reasonOf(error)}`, error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      for (const listener of connection.listeners) {
        try {
          listener();
        } catch {
          // a listener's failure must not break the connection
        }
      }
    });
    return connection;
  }

  /** Why the connection is gone (the server exited, the HTTP session ended), or undefined while it lives. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /** The server's name and version as it reported them, for `toolman mcp tools`. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.client.getServerVersion();
    return info ? { name: String(info.name), version: String(info.version) } : undefined;
  }

  /** Why the last tool list was cut short (too many tools or pages, a repeated page), if it was. */
  listCut: string | undefined;

  /** Every tool, following `nextCursor`, within bounds a hostile server cannot stretch, with secrets redacted. */
  async listTools(signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const tools: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    this.listCut = undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      let result;
      try {
        // Read as any result, not through the SDK's tool schema: one malformed tool must not cost
        // the whole list (toolman checks each entry itself, as untrusted input).
        result = await this.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: this.launch.timeoutMs, ...(signal ? { signal } : {}) });
      } catch (error) {
        throw this.failure(`tools/list failed: ${reasonOf(error)}`, error);
      }
      if (!Array.isArray(result.tools)) throw this.failure('answered tools/list without a tools list');
      tools.push(...result.tools.filter(isRecord));
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor !== undefined && seen.has(cursor)) {
        this.listCut = `its tool list repeats a page (cursor ${JSON.stringify(cursor.slice(0, 40))}); the tools after it are missing`;
        break;
      }
      if (tools.length >= MAX_TOOLS_PER_SERVER) {
        if (tools.length > MAX_TOOLS_PER_SERVER || cursor !== undefined) this.listCut = `it offers more than ${MAX_TOOLS_PER_SERVER} tools; the first ${MAX_TOOLS_PER_SERVER} are used`;
        break;
      }
      if (cursor === undefined) break;
      if (page === MAX_TOOL_PAGES - 1) this.listCut = `its tool list has more than ${MAX_TOOL_PAGES} pages; the tools after them are missing`;
      seen.add(cursor);
    }
    // A name listed twice (a repeated page, a careless server) is one tool: the first entry wins.
    const names = new Set<unknown>();
    const unique = tools.filter((tool) => typeof tool.name !== 'string' || (!names.has(tool.name) && names.add(tool.name)));
    if (unique.length < tools.length && !this.listCut) this.listCut = `it lists ${tools.length - unique.length} tool name(s) twice; the first of each is used`;
    // A server may echo what it was given (an API key in its environment, a token in a header)
    // into a title, a description, an enum or a default: every list is redacted as it arrives,
    // before anything shows, sends, serves or caches it.
    return this.secrets.redactValue(unique.slice(0, MAX_TOOLS_PER_SERVER));
  }

  /**
   * `tools/call`. Progress notifications go to `onProgress`; when `signal` aborts, the SDK sends
   * `notifications/cancelled` and the call rejects with the signal's reason. The SDK's own timeout
   * is set past toolman's, so the executor's timeout (through the signal) is the one reported.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    if (this.lostReason) throw this.failure(this.lostReason);
    try {
      // Read as any result, not the SDK's CallToolResult: one content block of a kind the SDK does
      // not know would fail the whole call with a schema dump. renderCallResult takes any shape.
      const result = await this.client.request({ method: 'tools/call', params: { name, arguments: args } }, ResultSchema, {
        signal: options.signal,
        timeout: timerDelay(options.timeoutMs + 5_000),
        resetTimeoutOnProgress: true,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
      return { ...result, isError: result.isError === true, content: Array.isArray(result.content) ? result.content : [] } as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (this.lostReason) throw this.failure(`${this.lostReason} during the call`, error);
      throw new McpCallError(this.secrets.redact(reasonOf(error)));
    }
  }

  /** Calls `listener` when the server says its tool list changed. */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the session and stops the server (and what it started); safe to call twice. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.listeners.clear();
    if (this.transport instanceof StreamableHTTPClientTransport) {
      // Ends the server-side session (a DELETE); a server that is gone must not delay closing.
      await Promise.race([this.transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    }
    await this.client.close().catch(() => undefined);
    await this.transport.close().catch(() => undefined);
  }

  /** "the server exited with code 1", from the process's state. */
  private ended(fallback: string): string {
    if (!(this.transport instanceof StdioProcessTransport)) return 'the connection to the server was closed';
    return `the server ${this.transport.stoppedBecause ?? describeExit(this.transport.exit) ?? fallback}`;
  }

  /** A failure naming the server, how its process ended and the end of its stderr (secrets redacted). */
  failure(what: string, cause?: unknown): ToolmanError {
    const parts = [`MCP server "${this.launch.name}" (${describeLaunch(this.launch)}) ${what}`];
    if (this.transport instanceof StdioProcessTransport) {
      const exit = describeExit(this.transport.exit);
      if (exit && !what.includes(exit)) parts.push(`the process ${exit}`);
      const tail = stderrTail(this.transport.stderr);
      if (tail) parts.push(`its stderr ends with:\n${tail}`);
    }
    const hint = this.launch.kind === 'stdio' ? 'run the command by hand to see why; `timeout_ms` on the server entry gives a slow server longer' : 'check that the server is running at this URL';
    return new ToolmanError(ErrorCode.MCP_SERVER, this.secrets.redact(parts.join('; ')), { hint, ...(cause === undefined ? {} : { cause }) });
  }
}

/** A tool call the server answered with a JSON-RPC error (unknown tool, invalid params...). */
export class McpCallError extends Error {}

/** The last lines of stderr, indented, at most 20 lines and 2,000 characters. */
/** The last lines the server wrote to stderr, indented; empty when it wrote none (or only blank lines). */
function stderrTail(text: string): string {
  if (text.trim() === '') return '';
  const lines = text.trimEnd().split(/\r?\n/).slice(-20);
  const joined = lines.map((line) => `    ${line}`).join('\n');
  return joined.length > 2000 ? joined.slice(-2000) : joined;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^MCP error -?\d+: /, '');
  return String(error);
}

let version: string | undefined;
/** toolman's version for the MCP handshake (`clientInfo`). */
function clientVersion(): string {
  try {
    version ??= String((JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: unknown }).version);
  } catch {
    version = '0.0.0';
  }
  return version;
}
