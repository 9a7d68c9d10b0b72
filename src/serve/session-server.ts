import { ProtocolError, Server, type CallToolResult, type ServerContext, type Tool as McpTool } from '@modelcontextprotocol/server';
import type { Tool } from '../catalog/types.js';
import type { Approver } from '../execute/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { nearest } from '../shared/did-you-mean.js';
import type { SecretSet } from '../shared/secrets.js';
import type { CallSlots } from './call-slots.js';
import { busyResult, runCall } from './call-runner.js';
import { elicitApproval } from './elicit-approval.js';
import { mayBeAsked, withCallAsker, type ElicitRequest } from '../manager/mcp-client.js';
import { sessionAsker, withUnanswered } from './relayed-questions.js';
import { toCallToolResult } from './call-result.js';
import { toMcpTool } from './mcp-tool.js';
import { serverCapabilities, servePromptsAndResources, type PromptsAndResources } from './prompts-and-resources.js';
import { errorLine } from './error-line.js';

export interface SessionServerOptions {
  session: ToolSession;
  /** What the server calls itself in `initialize` (toolman and its version). */
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** Prompts and resources (today none; the gateway's later). */
  promptsAndResources: PromptsAndResources;
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

/** The text of a call declined because the client cannot ask its user. */
export function cannotAskText(reason: string): string {
  return `not run: ${reason} and needs the user's approval, which this MCP client cannot ask for (it does not support elicitation). The person running toolman serve can approve such calls with --yes.`;
}

/**
 * One MCP server for one 2025-11-25 session (`initialize`), over one toolman session, on the
 * SDK's low-level `Server` (tools are the catalog's JSON Schemas, not code). `tools/list` is what
 * the session offers, and grows as `tool_search` finds tools; `tools/call` runs through the
 * session's executor, so validation, confirmation, limits, timeouts, truncation and secret
 * redaction are those of `call` and `chat`. Tools outside the selection (denied by a policy, left
 * out by the profile, disabled, provider-native) do not exist for the client. A call that needs
 * approval asks the user while it waits (`elicitation/create` on the call's stream): the way the
 * 2025-11-25 revision asks, and the only one that can also ask for a tool a sub-agent calls
 * midway.
 */
export function createSessionServer(options: SessionServerOptions): Server {
  const { session, log } = options;
  const server = new Server(
    { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) },
    { capabilities: serverCapabilities(options.promptsAndResources), ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  servePromptsAndResources(server, options.promptsAndResources, { era: 'legacy', secrets: options.secrets, log });
  let listing: Listing | undefined;
  const deferred: ReadonlySet<Tool> = new Set(session.selection.deferred);
  const listed = (): Listing => {
    const found = session.activatedCount;
    if (listing?.found !== found) {
      // Provider-native tools run at the model provider: an MCP client has no way to use them.
      const tools = session.offered(1).tools.filter((t) => !t.native);
      listing = { found, tools: new Set(tools), mcp: tools.map((t) => toMcpTool(t, 'legacy')) };
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

  // 2025-11-25 clients get the whole list at once, as before: many read only the first page.
  server.setRequestHandler('tools/list', () => ({ tools: listed().mcp }));

  server.setRequestHandler('tools/call', async (request, ctx: ServerContext): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = reachable(name);
    if (!tool) {
      const close = nearest(name, listed().mcp.map((t) => t.name));
      throw new ProtocolError(-32602, `Unknown tool: ${name}` + (close.length ? ` (did you mean ${close.join(', ')}?)` : ''));
    }
    let unasked: string | undefined;
    const approve: Approver = async (approval, signal) => {
      if (options.yes) return 'approve';
      const decision = await elicitApproval(ctx, server.getClientCapabilities(), approval, { signal, secrets: options.secrets });
      if (decision.asked) return decision.decision;
      unasked = approval.reason;
      log(`declined: ${approval.reason} and needs approval; the client cannot ask the user (no elicitation) and --yes was not given`);
      void ctx.mcpReq.log('warning', cannotAskText(approval.reason), 'toolman').catch(() => undefined);
      return 'decline';
    };
    running++;
    // What the catalog's MCP server behind the tool asks during the call goes to this client.
    const unanswered: ElicitRequest[] = [];
    try {
      const call = () => runCall({
        session,
        tool,
        arguments: request.params.arguments ?? {},
        id: String(ctx.mcpReq.id),
        signal: ctx.mcpReq.signal,
        stop: options.stop,
        approve,
        ...(request.params._meta?.progressToken !== undefined ? { progressToken: request.params._meta.progressToken } : {}),
        notify: (notification) => ctx.mcpReq.notify(notification),
        ...(options.slots ? { slots: options.slots } : {}),
        log,
        verbose: options.verbose,
      });
      // Only a call that can reach an MCP server can be asked anything (see mayBeAsked).
      const outcome = mayBeAsked(tool) ? await withCallAsker(sessionAsker(ctx, () => server.getClientCapabilities(), options.secrets, unanswered, log), call) : await call();
      if (!outcome.ran) {
        void ctx.mcpReq.log('warning', outcome.busy, 'toolman').catch(() => undefined);
        return busyResult(outcome.busy);
      }
      const { response } = outcome;
      const errorText = unasked && response.error_kind === 'declined' ? cannotAskText(unasked) : undefined;
      const result = toCallToolResult(response, errorText ? { errorText } : {});
      // A structured value that is not an object goes out wrapped as 2025-11-25 wants it ({result: ...}).
      return server.projectCallToolResult(unanswered.length ? withUnanswered(result, unanswered, options.secrets) : result, tool.outputSchema?.type === 'object' ? tool.outputSchema : undefined);
    } finally {
      running--;
      if (changed) {
        changed = false;
        await ctx.mcpReq.notify({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
      }
    }
  });

  /** The tool a call names, when the client may reach it: listed now, or deferred (found through search). */
  function reachable(name: string): Tool | undefined {
    const tool = session.resolve(name);
    if (!tool || tool.native) return undefined;
    return listed().tools.has(tool) || deferred.has(tool) ? tool : undefined;
  }

  server.onerror = (error) => log(errorLine('protocol error', error));
  return server;
}
