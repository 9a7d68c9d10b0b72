import type { ClientCapabilities, ElicitRequestFormParams, ServerContext } from '@modelcontextprotocol/server';
import type { ApprovalDecision, ApprovalRequest } from '../execute/types.js';
import type { SecretSet } from '../shared/secrets.js';

/** A person answers: allow them time, but not forever (the call's own signal ends it sooner). */
const APPROVAL_TIMEOUT_MS = 10 * 60_000;
const MAX_ARGUMENTS_SHOWN = 2_000;

/**
 * The form the client shows: accepting approves. With `always`, a box approves the tool for the
 * rest of the session (offered only where there is a session to remember it in).
 */
export function approvalForm(always: boolean): ElicitRequestFormParams['requestedSchema'] {
  return {
    type: 'object',
    properties: always ? { always: { type: 'boolean', title: 'Allow for this session', description: 'Do not ask again for this tool until the session ends', default: false } } : {},
  };
}

/** The question: the reason, the tool and its arguments with every secret taken out, cut to a readable length. */
export function approvalMessage(request: ApprovalRequest, secrets: SecretSet): string {
  let shown = secrets.redact(JSON.stringify(request.arguments, null, 2) ?? '{}');
  if (shown.length > MAX_ARGUMENTS_SHOWN) shown = `${shown.slice(0, MAX_ARGUMENTS_SHOWN)}…`;
  return `${request.reason}. Allow toolman to run ${request.tool.name} with these arguments?\n${shown}`;
}

/**
 * Whether a client can answer a form: it declared form elicitation. In the 2026-07-28 era a bare
 * `elicitation: {}` also means form mode (`client/elicitation.mdx` §Capabilities, read
 * 2026-11-24), and the SDK's input-required gate reads it so; a 2025 session is asked through the
 * SDK's push API, which wants `form` itself.
 */
export function canAskForm(capabilities: ClientCapabilities | undefined, era: 'legacy' | 'modern'): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || (era === 'modern' && elicitation.url === undefined);
}

/** The client's answer to the form: accept approves (with the box: for the session); anything else declines. */
export function decisionOf(action: string | undefined, content: unknown): ApprovalDecision {
  if (action !== 'accept') return 'decline';
  return (content as { always?: unknown } | undefined)?.always === true ? 'always' : 'approve';
}

export type ElicitedApproval = { asked: true; decision: ApprovalDecision } | { asked: false };

/**
 * Asks the user through a 2025-11-25 client whether a call that needs confirmation may run: a
 * server-to-client `elicitation/create` on the call's own stream, while the call waits (spec
 * 2025-11-25 "Elicitation"). `asked: false` when the client declared no form elicitation: the
 * caller declines and says why. A client that fails to answer, cancels or declines declines the
 * call; nothing here throws.
 *
 * Sent with `ctx.mcpReq.send`, which ties the question to the call, so it goes out on the call's
 * SSE stream. The SDK's `ctx.mcpReq.elicitInput` (2.4.0) sends it unrelated, on the session's GET
 * stream: a client that has not opened that stream yet, or never does (2025-11-25
 * `basic/transports.mdx` §Listening for Messages from the Server makes it a MAY), is never asked
 * and the call waits out the timeout. The spec says such requests "SHOULD relate to the
 * originating client request" (§Sending Messages to the Server; read 2026-11-24).
 */
export async function elicitApproval(ctx: ServerContext, capabilities: ClientCapabilities | undefined, request: ApprovalRequest, options: { signal: AbortSignal; secrets: SecretSet }): Promise<ElicitedApproval> {
  if (!canAskForm(capabilities, 'legacy')) return { asked: false };
  try {
    const result = await ctx.mcpReq.send(
      { method: 'elicitation/create', params: { mode: 'form', message: approvalMessage(request, options.secrets), requestedSchema: approvalForm(true) } },
      { signal: options.signal, timeout: APPROVAL_TIMEOUT_MS },
    );
    return { asked: true, decision: decisionOf(result.action, result.content) };
  } catch {
    return { asked: true, decision: 'decline' };
  }
}
