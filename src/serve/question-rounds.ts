import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, ProtocolError, type ClientCapabilities, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { CallAsker } from '../manager/mcp-client.js';
import type { SecretSet } from '../shared/secrets.js';
import type { ApprovalStates, Principal, StateClaim } from './approval-state.js';
import { AskingCall, type OpenQuestion, type ParkedCalls } from './parked-calls.js';
import { canAsk, clientAnswer, relayedQuestion } from './relayed-questions.js';

/** What a 2026-07-28 request needs to relay its upstream server's questions. */
export interface QuestionRelay {
  parked: ParkedCalls;
  approvals: ApprovalStates;
  secrets: SecretSet;
  log(line: string): void;
}

export type RoundOutcome<T> = { kind: 'done'; value: T; call: AskingCall<T> } | { kind: 'input_required'; result: InputRequiredResult };

/**
 * A request whose upstream server may ask serve's 2026-07-28 client something, in rounds
 * (`basic/patterns/mrtr.mdx`, read 2026-11-24): the call runs in the background; when its
 * server asks, the client gets `input_required` with the questions (cleaned, bounded, redacted)
 * and a sealed `requestState` naming the waiting call; the client's retry (same method, same
 * name, same arguments, same principal: the state binds them all) answers the questions and
 * waits for the next stop. A question the client cannot answer (it declared no elicitation, or
 * not the mode) is declined for it and kept in `call.unanswered`. The client's cancelling of a
 * request stops the call only while that request waits for it.
 *
 * `resume` is the parked call's id from a verified, redeemed claim; `start` runs the call with
 * the asker its upstream questions go to.
 */
export async function modernRounds<T>(relay: QuestionRelay, ctx: ServerContext, principal: Principal, bound: { name: string; args: unknown }, resume: StateClaim | undefined, start: (asker: CallAsker, signal: AbortSignal) => Promise<T>): Promise<RoundOutcome<T>> {
  let call: AskingCall<T>;
  if (resume?.q !== undefined) {
    const waiting = relay.parked.take(resume.q, principal.key);
    if (!waiting) throw new ProtocolError(-32602, 'the call this answer is for is no longer waiting (it timed out, was answered, or toolman serve restarted): call again without requestState');
    call = waiting.call as AskingCall<T>;
    // A retry that leaves a question unanswered is asked again (`mrtr.mdx` §Error Handling: the
    // server SHOULD "respond with a new InputRequiredResult requesting the missing information again").
    if (!answerAll(waiting.questions, ctx)) {
      const again = await askAgain(relay, ctx, principal, bound, call, waiting.questions);
      if (again.kind === 'input_required') return again;
      for (const question of waiting.questions) question.answer({ action: 'decline' });
    }
  } else {
    call = new AskingCall(start);
  }
  // What this request says its client can do (the `_meta` envelope, `basic/index.mdx` §_meta).
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const stop = () => call.controller.abort(ctx.mcpReq.signal.reason);
  ctx.mcpReq.signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const step = await call.next();
      if (step.kind === 'done') return { kind: 'done', value: step.value, call };
      if (step.kind === 'failed') throw step.error;
      const askable: OpenQuestion[] = [];
      for (const question of step.questions) {
        if (canAsk(capabilities, question.request.mode, 'modern')) askable.push(question);
        else {
          call.unanswered.push(question.request);
          relay.log(`declined for the client: MCP server "${question.request.server}" asked a question and the client cannot answer it (no elicitation${question.request.mode === 'url' ? ' in URL mode' : ''})`);
          question.answer({ action: 'decline' });
        }
      }
      if (askable.length === 0) continue;
      const asked = await askAgain(relay, ctx, principal, bound, call, askable);
      if (asked.kind === 'input_required') return asked;
      relay.log('declined an MCP server\'s question for the client: too many calls wait for answers already');
      for (const question of askable) question.answer({ action: 'decline' });
    }
  } finally {
    ctx.mcpReq.signal.removeEventListener('abort', stop);
  }
}

/** `question1`, `question2`...: the keys of relayed questions in `inputRequests` (toolman's own approval is `approval`). */
function questionKey(index: number): string {
  return `question${index + 1}`;
}

/**
 * Parks the call with its questions and gives the client `input_required` with them and a state
 * naming the parked call; `full` when no more calls may wait (the caller declines the questions).
 */
async function askAgain<T>(relay: QuestionRelay, ctx: ServerContext, principal: Principal, bound: { name: string; args: unknown }, call: AskingCall<T>, questions: OpenQuestion[]): Promise<{ kind: 'input_required'; result: InputRequiredResult } | { kind: 'full' }> {
  // Built before the call is parked: a question that cannot be shown must not leave a call waiting.
  const inputRequests = Object.fromEntries(
    questions.map((question, index) => {
      const relayed = relayedQuestion(question.request, relay.secrets);
      if (relayed.mode === 'form') return [questionKey(index), inputRequired.elicit({ message: relayed.params.message, requestedSchema: relayed.params.requestedSchema })];
      return [questionKey(index), inputRequired.elicitUrl({ message: relayed.params.message, url: relayed.params.url })];
    }),
  );
  const id = relay.parked.park(principal.key, call as AskingCall<unknown>, questions);
  if (id === undefined) return { kind: 'full' };
  return { kind: 'input_required', result: inputRequired({ inputRequests, requestState: await relay.approvals.mint(bound.name, bound.args, ctx, id) }) };
}

/** The retry's answers to the waiting questions, when it answers every one (an answer that is no elicitation result declines); false, and nothing answered, when one is missing. */
function answerAll(questions: readonly OpenQuestion[], ctx: ServerContext): boolean {
  const views = questions.map((_, index) => inputResponse(ctx.mcpReq.inputResponses, questionKey(index)));
  if (views.some((view) => view.kind === 'missing')) return false;
  questions.forEach((question, index) => {
    const view = views[index]!;
    question.answer(view.kind === 'elicit' ? clientAnswer({ action: view.action, content: view.content }, question.request) : { action: 'decline' });
  });
  return true;
}
