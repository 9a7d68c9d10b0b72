import type { LocalAgentConfig } from '../catalog/types.js';
import { ownUsage } from '../conversation/side-models.js';
import { ToolFailure, type RunContext } from '../execute/runner.js';
import type { Approver } from '../execute/types.js';
import type { LoopEvent, SideUsage, TurnSummary } from '../loop/loop-events.js';
import { CHAT_PROVIDERS } from '../providers/model-clients.js';
import type { ProviderName } from '../providers/types.js';
import { isToolmanError } from '../shared/errors.js';
import type { AgentHost } from './agent-host.js';
import { fillEnv } from './fill-env.js';
import { progressLine, untrustedText } from './untrusted-text.js';

/** How much of a nested loop's answer becomes the tool's result (the executor truncates further). */
const MAX_ANSWER_CHARS = 200_000;

/**
 * Runs the task as the user turn of a nested toolman conversation: its own provider, model,
 * system prompt and profile, opened through the same facade as every other conversation (the same
 * runners, secrets, policies and format settings), at most `max_rounds` rounds. Its tool calls
 * reach the parent as progress lines, and every event of the loop goes to the host (a driver
 * writes them to its transcript). The loop's final answer is the result; a loop that ends any
 * other way is a tool error that says how.
 */
export async function runLocalAgent(name: string, config: LocalAgentConfig, task: string, context: RunContext, host: AgentHost, depth: number): Promise<unknown> {
  const provider = (config.provider ?? 'openai') as ProviderName;
  if (!(CHAT_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ToolFailure(`${name} is a local agent on ${provider}, which toolman's loop does not talk to yet (it does: ${CHAT_PROVIDERS.join(', ')})`);
  }
  let conversation;
  try {
    conversation = await host.conversation({
      provider,
      ...(config.model ? { model: config.model } : {}),
      ...(config.base_url !== undefined ? { baseUrl: fillEnv(config.base_url, context, `${name}'s local.base_url`) } : {}),
      env: context.env,
      purpose: (label) => `${name} is a local agent on ${label}`,
      missingKeyHint: (variable) => `set ${variable} in the environment (or give local.base_url for a local server)`,
      ...(config.profile ? { profile: config.profile } : {}),
      ...(config.system ? { system: config.system } : {}),
      maxRounds: config.max_rounds ?? host.catalog.limits.max_rounds,
      ...(context.approve ? { approve: askParent(name, context.callId, context.approve) } : {}),
    });
  } catch (error) {
    // A missing key is the tool's failure here (the parent's model is told), not toolman's.
    if (isToolmanError(error)) throw new ToolFailure(error.hint ? `${error.message}: ${error.hint}` : error.message);
    throw error;
  }
  try {
    const onEvent = (event: LoopEvent) => {
      host.onEvent?.({ agent: name, call_id: context.callId, depth, event });
      const line = progressFor(event);
      if (line) context.progress(progressLine(line));
    };
    const summary = await conversation.run(task, { signal: context.signal, onEvent });
    // The nested loop's tokens are the parent turn's cost too, whatever its ending.
    context.countUsage?.(nestedUsage(conversation.provider, conversation.model, summary));
    const answer = untrustedText(summary.answer, MAX_ANSWER_CHARS).trim();
    switch (summary.stop) {
      case 'done':
      case 'took_control':
        return answer || `${name} finished without an answer`;
      case 'cancelled':
        if (context.signal.aborted) throw context.signal.reason;
        throw new ToolFailure(`${name} was cancelled`);
      case 'max_rounds':
        throw new ToolFailure(`${name} stopped after ${summary.rounds} rounds (its local.max_rounds) without a final answer${answer ? `; it had said: ${answer}` : ''}`);
      case 'repeats':
        throw new ToolFailure(`${name} stopped: it kept repeating the same tool call${answer ? `; it had said: ${answer}` : ''}`);
      case 'error':
        throw new ToolFailure(`${name} failed: ${progressLine(summary.message ?? 'the model call failed', 500)}`);
    }
  } finally {
    conversation.close();
  }
}

/**
 * The nested loop's questions go to the parent's driver (the REPL, `call`'s terminal, an MCP
 * client), saying which agent asks; the call id names the parent's call too, so a transcript
 * keeps the two apart.
 */
function askParent(agent: string, parentCallId: string, approve: Approver): Approver {
  return (request, signal) => approve({ ...request, callId: `${parentCallId}/${request.callId}`, reason: `${request.reason}; asked by the sub-agent ${agent}` }, signal);
}

/**
 * A nested turn's tokens as the parent's side usage: its own requests under its provider and
 * model (one per round; rounds whose API reported nothing are `unreported`), then its own side
 * calls as they were.
 */
export function nestedUsage(provider: string, model: string, summary: TurnSummary): SideUsage[] {
  const own = ownUsage(summary.usage);
  const reported = own.input + own.output > 0;
  const list: SideUsage[] = summary.rounds > 0 ? [{ provider, model, calls: summary.rounds, ...own, unreported: reported ? 0 : summary.rounds }] : [];
  return [...list, ...summary.usage.side];
}

/** What the parent sees of the nested loop while it runs: its calls, their failures, their progress, retries. */
function progressFor(event: LoopEvent): string | undefined {
  switch (event.type) {
    case 'tool_calls':
      return event.calls.map((c) => `calling ${c.tool}(${preview(c.arguments)})`).join('; ');
    case 'tool_result':
      return event.response.ok ? undefined : `${event.response.tool} failed: ${event.response.error ?? ''}`;
    case 'tool_progress':
      return `${event.name}: ${event.message}`;
    case 'retry':
      return `retrying the model call (${event.reason})`;
    default:
      return undefined;
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
