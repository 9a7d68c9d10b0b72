import { AsyncLocalStorage } from 'node:async_hooks';
import type { HandlerKind, Tool } from '../catalog/types.js';
import type { ElicitAnswer, ElicitRequest, McpInteraction } from './mcp-interaction.js';

/**
 * Who answers a server's question for one call: in `toolman serve`, serve's own client (the one
 * whose request runs the call). The question is already checked and cleaned (`elicitRequest`).
 */
export type CallAsker = (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitAnswer>;

/**
 * The asker of the call running in this async context. A 2026-07-28 server asks inside the
 * call's own result (`input_required`): the SDK answers it in the call's promise chain, so the
 * call's context is found here. A 2025 server's question is a request of its own, unrelated to
 * the call on stdio: the connection routes it itself (`McpConnection`), never through this.
 */
const callScope = new AsyncLocalStorage<CallAsker>();

/** Runs `run` (a call, a `prompts/get`, a `resources/read`) with `asker` answering what its server asks. */
export function withCallAsker<T>(asker: CallAsker, run: () => Promise<T>): Promise<T> {
  return callScope.run(asker, run);
}

/**
 * Handler kinds whose calls never reach an MCP server: a mock answers from the catalog, a program,
 * a request, a module or a plugin get no connection of the manager's. An MCP tool does; so may a
 * sub-agent (its tools) and a meta-tool (invoke_tool, a job's tools); a kind added later is
 * assumed to until it is listed here.
 */
const NEVER_REACHES_SERVERS: ReadonlySet<HandlerKind> = new Set<HandlerKind>(['mock', 'exec', 'http', 'module', 'plugin']);

/**
 * Whether a call of `tool` may reach an MCP server, and so be asked something by one: only then
 * does a driver need `withCallAsker` around it. On Node 20 the first `AsyncLocalStorage.run` of a
 * process turns on async hooks for every promise it makes from then on (an init, before and after
 * hook each): about a twentieth of the CPU of each `serve` call, SDK work included, for calls that
 * can never be asked anything (issue 24).
 */
export function mayBeAsked(tool: Tool): boolean {
  return tool.handler === undefined || !NEVER_REACHES_SERVERS.has(tool.handler.kind);
}

/** The asker of the call running now, when a driver gave one. */
export function currentCallAsker(): CallAsker | undefined {
  return callScope.getStore();
}

/**
 * The interaction of a manager opened for `toolman serve`: its upstream connections declare form
 * and URL elicitation, so a server may ask, and each question goes to the asker of the call it
 * belongs to (serve's client). A question no call can be found for (asked outside a call, or by
 * a 2025 server while several calls run, when toolman cannot tell which one it is about) is
 * declined, and `note` says so.
 */
export function relayInteraction(note: (text: string) => void): McpInteraction {
  return {
    supports: { form: true, url: true },
    async elicit(request) {
      note(`MCP server "${request.server}" asked "${request.message}" where toolman cannot tell which client call it is about; declined`);
      return { action: 'decline' };
    },
    note,
  };
}
