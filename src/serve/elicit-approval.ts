import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalDecision, ApprovalRequest } from '../execute/types.js';
import type { SecretSet } from '../shared/secrets.js';

/** A person answers: allow them time, but not forever (the call's own signal ends it sooner). */
const APPROVAL_TIMEOUT_MS = 10 * 60_000;
const MAX_ARGUMENTS_SHOWN = 2_000;

/** The form the client shows: accepting approves; the box approves the tool for the rest of the session. */
const APPROVAL_FORM = {
  type: 'object' as const,
  properties: {
    always: { type: 'boolean' as const, title: 'Allow for this session', description: 'Do not ask again for this tool until the session ends', default: false },
  },
};

export type ElicitedApproval = { asked: true; decision: ApprovalDecision } | { asked: false };

/**
 * Asks the user through the MCP client (form elicitation, spec 2025-11-25 "Elicitation") whether
 * a call that needs confirmation may run. `asked: false` when the client declared no form
 * elicitation: the caller declines and says why. A client that fails to answer, cancels or
 * declines declines the call; nothing here throws.
 */
export async function elicitApproval(server: Server, request: ApprovalRequest, options: { relatedRequestId: RequestId; signal: AbortSignal; secrets: SecretSet }): Promise<ElicitedApproval> {
  if (!server.getClientCapabilities()?.elicitation?.form) return { asked: false };
  let shown = options.secrets.redact(JSON.stringify(request.arguments, null, 2) ?? '{}');
  if (shown.length > MAX_ARGUMENTS_SHOWN) shown = `${shown.slice(0, MAX_ARGUMENTS_SHOWN)}…`;
  try {
    const result = await server.elicitInput(
      { mode: 'form', message: `${request.reason}. Allow toolman to run ${request.tool.name} with these arguments?\n${shown}`, requestedSchema: APPROVAL_FORM },
      // Related to the tools/call, so over HTTP it travels on that call's stream.
      { relatedRequestId: options.relatedRequestId, signal: options.signal, timeout: APPROVAL_TIMEOUT_MS },
    );
    if (result.action !== 'accept') return { asked: true, decision: 'decline' };
    return { asked: true, decision: result.content?.always === true ? 'always' : 'approve' };
  } catch {
    return { asked: true, decision: 'decline' };
  }
}
