import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import type { InteractionHandlers } from './mcp-interaction.js';

/** Rounds of `input_required` one request may take (the SDK's own default): a server cannot loop a call forever. */
export const MAX_INPUT_ROUNDS = 10;
/** Embedded requests one round may hold: a server cannot make toolman ask without end at once. */
const MAX_INPUT_REQUESTS = 16;

/**
 * A 2026-07-28 request's rounds (`basic/patterns/mrtr.mdx`, read 2026-11-24): while the server
 * answers `input_required`, each embedded request is answered through the interaction's handlers
 * and the request is sent again with the answers and the server's `requestState` as it came ("the
 * client MUST echo back the exact value"), at most MAX_INPUT_ROUNDS times. `send` must pass
 * `allowInputRequired` to the SDK, so an `input_required` result comes back here instead of to the
 * SDK's own driver: that driver answers from the transport's message handler, where the call's
 * async context (and the asker a driver put there, `withCallAsker`) is lost.
 */
export async function inputRounds(params: Record<string, unknown>, send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>, handlers: InteractionHandlers | undefined, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
  let sent = params;
  for (let round = 0; ; round++) {
    const result = await send(sent);
    if (result.resultType !== 'input_required') return result;
    if (round >= MAX_INPUT_ROUNDS) throw new Error(`the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    const requests = isRecord(result.inputRequests) ? Object.entries(result.inputRequests).slice(0, MAX_INPUT_REQUESTS) : [];
    // One round's answers are given together; the request's cancellation stops them all.
    const answering = new AbortController();
    const stop = () => answering.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const answers = await Promise.all(requests.map(async ([key, request]) => [key, await answerInputRequest(handlers, request, answering.signal)] as const));
      sent = { ...params, inputResponses: Object.fromEntries(answers), ...(result.requestState !== undefined ? { requestState: result.requestState } : {}) };
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}

/** One embedded request, answered by the handler of its method; a method toolman did not declare is refused. */
async function answerInputRequest(handlers: InteractionHandlers | undefined, request: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
  const method = isRecord(request) ? request.method : undefined;
  const params = isRecord(request) && isRecord(request.params) ? request.params : {};
  if (method === 'elicitation/create' && handlers?.elicit) return handlers.elicit(params, signal);
  if (method === 'sampling/createMessage' && handlers?.sample) return handlers.sample(params, signal);
  if (method === 'roots/list' && handlers?.roots) return handlers.roots();
  throw new Error(`the server asked for ${typeof method === 'string' ? plainText(method).slice(0, 60) : 'an input request without a method'}, which toolman did not declare it answers`);
}
