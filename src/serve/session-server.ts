import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../catalog/types.js';
import type { Approver, CallEvent } from '../execute/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { nearest } from '../shared/did-you-mean.js';
import type { SecretSet } from '../shared/secrets.js';
import { SlotsFull, type CallSlots } from './call-slots.js';
import { elicitApproval } from './elicit-approval.js';
import { toCallToolResult } from './call-result.js';
import { toMcpTool } from './mcp-tool.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A JSON-RPC error with its code. The SDK's McpError puts "MCP error <code>:" into its message,
 * which the client's McpError then prefixes again; the SDK sends any error's code and message.
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SessionServerOptions {
  session: ToolSession;
  /** What the server calls itself in `initialize` (toolman and its version). */
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** Approve every call that asks for confirmation (`--yes`). */
  yes: boolean;
  secrets: SecretSet;
  /** One line for the operator (standard error); never the protocol stream. */
  log: (line: string) => void;
  verbose: boolean;
  /** Aborts every call still running: the server is shutting down. */
  stop: AbortSignal;
  /** Slots for this session's calls, and (shared by every session) for all calls: a call waits for one of each. */
  slots?: { session: CallSlots; total: CallSlots };
}

/** What the client is offered now, rebuilt only when search finds more tools. */
interface Listing {
  found: number;
  tools: ReadonlySet<Tool>;
  mcp: McpTool[];
}

/**
 * One MCP server over one toolman session, on the SDK's low-level `Server` (tools are the
 * catalog's JSON Schemas, not code). `tools/list` is what the session offers; `tools/call` runs
 * through the session's executor, so validation, confirmation, limits, timeouts, truncation and
 * secret redaction are those of `call` and `chat`. Tools outside the selection (denied by a
 * policy, left out by the profile, disabled, provider-native) do not exist for the client.
 */
export function createSessionServer(options: SessionServerOptions): Server {
  const { session, log } = options;
  const server = new Server(
    { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) },
    { capabilities: { tools: { listChanged: true } }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  let listing: Listing | undefined;
  const deferred: ReadonlySet<Tool> = new Set(session.selection.deferred);
  const listed = (): Listing => {
    const found = session.activated.length;
    if (listing?.found !== found) {
      // Provider-native tools run at the model provider: an MCP client has no way to use them.
      const tools = session.offered(1).tools.filter((t) => !t.native);
      listing = { found, tools: new Set(tools), mcp: tools.map(toMcpTool) };
    }
    return listing;
  };

  // A search activates tools during a call: the notice goes out on that call's stream (HTTP
  // clients may have no other open), before its result, so the client re-lists in time.
  let running = 0;
  let changed = false;
  session.onChange(() => {
    if (running > 0) changed = true;
    else void server.sendToolListChanged().catch(() => undefined);
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed().mcp }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = reachable(name);
    if (!tool) {
      const close = nearest(name, listed().mcp.map((t) => t.name));
      throw new ProtocolError(McpErrorCode.InvalidParams, `Unknown tool: ${name}` + (close.length ? ` (did you mean ${close.join(', ')}?)` : ''));
    }
    let unasked: string | undefined;
    const approve: Approver = async (approval, signal) => {
      if (options.yes) return 'approve';
      const decision = await elicitApproval(server, approval, { relatedRequestId: extra.requestId, signal, secrets: options.secrets });
      if (decision.asked) return decision.decision;
      unasked = approval.reason;
      log(`declined: ${approval.reason} and needs approval; the client cannot ask the user (no elicitation) and --yes was not given`);
      return 'decline';
    };
    const id = String(extra.requestId);
    // Progress sent for this call: the result waits for them, or a client that drops progress
    // once the result is in would lose the last ones.
    const sent: Promise<unknown>[] = [];
    const signal = AbortSignal.any([extra.signal, options.stop]);
    running++;
    const releases: (() => void)[] = [];
    try {
      // One slot of this session's and one of the server's: a client cannot make toolman run more
      // calls at once than it was told to, whatever it sends.
      if (options.slots) {
        try {
          releases.push(await options.slots.session.acquire(signal));
          releases.push(await options.slots.total.acquire(signal));
        } catch (error) {
          if (error instanceof SlotsFull) {
            log(error.message);
            return { isError: true, content: [{ type: 'text', text: error.message }], _meta: { 'toolman/error_kind': 'busy' } };
          }
          throw error;
        }
      }
      const turn = await session.runTurn([{ id, name: tool.name, arguments: request.params.arguments ?? {} }], {
        signal,
        approve,
        onEvent: onEvent(extra, request.params._meta?.progressToken, sent),
      });
      await Promise.all(sent);
      const response = turn.responses[0]!;
      if (options.verbose) log(response.ok ? `✓ ${tool.name} ${response.duration_ms} ms${response.truncated ? ' (truncated)' : ''}` : `✗ ${tool.name} (${response.error_kind}): ${response.error}`);
      const text = unasked && response.error_kind === 'declined'
        ? `not run: ${unasked} and needs the user's approval, which this MCP client cannot ask for (it does not support elicitation). The person running toolman serve can approve such calls with --yes.`
        : undefined;
      return toCallToolResult(response, text);
    } finally {
      for (const release of releases.reverse()) release();
      running--;
      if (changed) {
        changed = false;
        await extra.sendNotification({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
      }
    }
  });

  /** The tool a call names, when the client may reach it: listed now, or deferred (found through search). */
  function reachable(name: string): Tool | undefined {
    const tool = session.resolve(name);
    if (!tool || tool.native) return undefined;
    return listed().tools.has(tool) || deferred.has(tool) ? tool : undefined;
  }

  /** The executor's events: progress to the client when it asked for it, status to the log with --verbose. */
  function onEvent(extra: Extra, progressToken: string | number | undefined, sent: Promise<unknown>[]): ((event: CallEvent) => void) | undefined {
    if (progressToken === undefined && !options.verbose) return undefined;
    let step = 0;
    return (event) => {
      if (event.type === 'tool_progress' && progressToken !== undefined) {
        // The spec wants progress to increase with every notification, with or without a total.
        step = Math.max(step + 1, event.progress ?? 0);
        sent.push(
          extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step, ...(event.total !== undefined ? { total: event.total } : {}), message: event.message } })
            .catch(() => undefined),
        );
      }
      if (options.verbose && event.type === 'tool_status' && (event.status === 'running' || event.status === 'awaiting_approval' || event.status === 'cancelled')) {
        log(`${event.status === 'running' ? '→' : '·'} ${event.name} ${event.status.replace('_', ' ')} [${event.id}]`);
      }
    };
  }

  server.onerror = (error) => log(`protocol error: ${error.message}`);
  return server;
}
