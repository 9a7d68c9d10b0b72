import { Role, type AgentCard, type Artifact, type Message, type Part, type SendMessageRequest, type Task, type TaskStatus } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { A2aAgentConfig } from '../catalog/types.js';
import { limitProgress } from '../execute/progress-limit.js';
import { ToolFailure, type RunContext } from '../execute/runner.js';
import { agentFetch, type AgentFetchOptions } from './a2a-fetch.js';
import { answerFromParts, isFinal, messageText, stateName, taskOutcome } from './a2a-answer.js';
import { fillEnv } from './fill-env.js';
import { progressLine } from './untrusted-text.js';

export const DEFAULT_A2A_MAX_RESPONSE_BYTES = 4 << 20;
/** How long a cancellation may take once the call is over (it runs after the call answered). */
const CANCEL_TIMEOUT_MS = 5_000;
/** Polling a task that does not stream: first after this, doubling up to the maximum. */
const POLL_FIRST_MS = 100;
const POLL_MAX_MS = 2_000;

/** What the runner keeps between calls: each agent's card, and cancellations still on their way. */
export interface A2aState {
  cards: Map<string, Promise<FetchedCard>>;
  pending: Set<Promise<unknown>>;
}

/** A card, and whether every hop of its fetch stayed on origins the catalog trusts. */
interface FetchedCard {
  card: AgentCard;
  fromTrusted: boolean;
}

/** What a task is sent as: its text, and the other arguments as a data part when the agent takes more than `task`. */
export interface AgentTask {
  text: string;
  data?: Record<string, unknown>;
}

/**
 * Hands a task to a remote agent over A2A (official SDK, JSON-RPC or HTTP+JSON as its card
 * offers). With a card that says it streams, status updates and artifacts become progress
 * lines as they come; otherwise the message is sent non-blocking and the task polled until it ends. The final state decides:
 * completed gives the answer (artifacts, else the agent's last message), every other state is
 * a tool error in the agent's own (cleaned) words. When the call is cancelled or times out, the
 * remote task is cancelled too.
 */
export async function runA2aAgent(name: string, config: A2aAgentConfig, task: AgentTask, context: RunContext, state: A2aState): Promise<unknown> {
  const url = fillEnv(config.url, context, `${name}'s a2a.url`);
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).map(([header, value]) => [header, fillEnv(value, context, `${name}'s a2a.headers.${header}`)]));
  const base = URL.canParse(url) ? new URL(url) : undefined;
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) throw new ToolFailure(`${name}'s a2a.url must be an http(s) URL; it is ${JSON.stringify(progressLine(url, 100))}`);
  const trusted = new Set([base.origin]);
  for (const origin of config.origins ?? []) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new ToolFailure(`${name}'s a2a.origins must hold http(s) origins; one is ${JSON.stringify(progressLine(origin, 100))}`);
    trusted.add(parsed.origin);
  }
  const fetchOptions: AgentFetchOptions = { agent: name, headers, trusted, maxBytes: config.max_response_bytes ?? DEFAULT_A2A_MAX_RESPONSE_BYTES, signal: context.signal };

  const { card, fromTrusted } = await agentCard(name, url, fetchOptions, state).catch((error) => failWith(fetchOptions, error, `${name}: cannot read the agent card at ${cardUrl(url)}`));
  // The card decides where the catalog's headers may go only when it came from the agent itself:
  // one reached through a redirect to another origin was written by whoever that origin is.
  if (fromTrusted) for (const face of card.supportedInterfaces ?? []) if (URL.canParse(face.url) && /^https?:$/.test(new URL(face.url).protocol)) fetchOptions.trusted.add(new URL(face.url).origin);
  const skills = (card.skills ?? []).map((s) => s.name || s.id).filter(Boolean);
  context.progress(progressLine(`connected to ${card.name || 'an agent'}${card.version ? ` ${card.version}` : ''}${skills.length ? ` (skills: ${skills.join(', ')})` : ''}`));

  const client = await clientFor(card, fetchOptions).catch((error) => failWith(fetchOptions, error, `${name}: no way to talk to the agent its card offers`));

  // An agent decides how often it reports: bounded before it becomes events.
  const limited = limitProgress(context.progress);
  context = { ...context, progress: limited.progress };
  const request = sendRequest(task);
  let taskId: string | undefined;
  // The cancellation goes out after the call's signal fired: through a client not bound to it.
  const onAbort = () => {
    if (taskId) cancelRemote(clientFor(card, { ...fetchOptions, signal: undefined }), taskId, state);
  };
  context.signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (card.capabilities?.streaming) {
      return await streamed(name, client, request, context, (id) => (taskId = id));
    }
    return await polled(name, client, request, context, (id) => {
      taskId = id;
      // The answer came back after the call was stopped: the task is known only now.
      if (context.signal.aborted) onAbort();
    });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof ToolFailure && !fetchOptions.failure) throw error;
    return failWith(fetchOptions, error, `${name} failed`);
  } finally {
    context.signal.removeEventListener('abort', onAbort);
    limited.close();
  }
}

/**
 * The call to an agent that does not stream: the message goes out non-blocking
 * (`returnImmediately`), so the task id is known at once and the task can be cancelled on a
 * timeout or Ctrl-C; then the task is polled (getTask) until it reaches a final state. An agent
 * that blocks anyway answers with the final task, which ends the loop at once.
 */
async function polled(name: string, client: Client, request: SendMessageRequest, context: RunContext, onTask: (id: string) => void): Promise<unknown> {
  const first = await client.sendMessage({ ...request, configuration: { ...request.configuration!, returnImmediately: true } }, { signal: context.signal });
  if ('parts' in first) return answerFromParts([{ parts: first.parts }]);
  onTask(first.id);
  let current: Task = first;
  let wait = POLL_FIRST_MS;
  while (!isFinal(current.status?.state)) {
    await sleep(wait, context.signal);
    wait = Math.min(wait * 2, POLL_MAX_MS);
    current = await client.getTask({ tenant: '', id: first.id }, { signal: context.signal });
  }
  return taskOutcome(name, current);
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The streaming call: progress as events come, the outcome from the last state seen. */
async function streamed(name: string, client: Client, request: SendMessageRequest, context: RunContext, onTask: (id: string) => void): Promise<unknown> {
  let status: TaskStatus | undefined;
  let history: Message[] = [];
  const artifacts = new Map<string, Artifact>();
  for await (const event of client.sendMessageStream(request, { signal: context.signal })) {
    const payload = event.payload;
    switch (payload?.$case) {
      case 'message':
        return answerFromParts([{ parts: payload.value.parts }]);
      case 'task': {
        const task: Task = payload.value;
        onTask(task.id);
        status = task.status;
        history = task.history ?? [];
        for (const artifact of task.artifacts ?? []) artifacts.set(artifact.artifactId, artifact);
        context.progress(progressLine(`task ${stateName(status?.state)}`));
        break;
      }
      case 'statusUpdate': {
        onTask(payload.value.taskId);
        status = payload.value.status;
        const said = messageText(status?.message);
        context.progress(progressLine(`${stateName(status?.state)}${said ? `: ${said}` : ''}`));
        break;
      }
      case 'artifactUpdate': {
        const update = payload.value;
        if (!update.artifact) break;
        const earlier = artifacts.get(update.artifact.artifactId);
        // An appended chunk continues the artifact with the same id.
        const parts: Part[] = update.append && earlier ? [...earlier.parts, ...update.artifact.parts] : update.artifact.parts;
        artifacts.set(update.artifact.artifactId, { ...update.artifact, parts });
        context.progress(progressLine(`artifact${update.artifact.name ? ` "${update.artifact.name}"` : ''}${update.append ? ' (more)' : ''}`));
        break;
      }
    }
    if (isFinal(status?.state)) break;
  }
  return taskOutcome(name, { status, artifacts: [...artifacts.values()], history });
}

function clientFor(card: AgentCard, fetchOptions: AgentFetchOptions): Promise<Client> {
  const transports = { fetchImpl: agentFetch(fetchOptions) };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory(transports), new RestTransportFactory(transports)] }));
  return factory.createFromAgentCard(card);
}

function sendRequest(task: AgentTask): SendMessageRequest {
  const parts: Part[] = [{ content: { $case: 'text', value: task.text }, metadata: undefined, filename: '', mediaType: 'text/plain' }];
  if (task.data) parts.push({ content: { $case: 'data', value: task.data }, metadata: undefined, filename: '', mediaType: 'application/json' });
  const message: Message = { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
  return { tenant: '', message, configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false }, metadata: undefined };
}

/**
 * The card, fetched once per agent and kept, with whether every origin its fetch went to
 * (redirects included) is one the catalog trusts; a failed fetch is forgotten so the next call
 * tries again.
 */
function agentCard(name: string, url: string, fetchOptions: AgentFetchOptions, state: A2aState): Promise<FetchedCard> {
  let card = state.cards.get(name);
  if (!card) {
    const visited = new Set<string>();
    // The same options (a failure the fetch records is the one reported), now noting where it went.
    fetchOptions.visited = visited;
    const resolver = new DefaultAgentCardResolver({ fetchImpl: agentFetch(fetchOptions) });
    // A URL that names a .json file is the card itself; otherwise the card is at the well-known path.
    const trusted = new Set(fetchOptions.trusted);
    card = (url.endsWith('.json') ? resolver.resolve(url, '') : resolver.resolve(url)).then((fetched) => ({ card: checkCard(fetched), fromTrusted: [...visited].every((origin) => trusted.has(origin)) }));
    state.cards.set(name, card);
    card.catch(() => state.cards.delete(name));
  }
  return card;
}

function checkCard(card: AgentCard): AgentCard {
  if (!card || typeof card !== 'object' || !Array.isArray(card.supportedInterfaces) || card.supportedInterfaces.length === 0) {
    throw new ToolFailure('the agent card names no interface to send tasks to (supportedInterfaces is empty)');
  }
  return card;
}

function cardUrl(url: string): string {
  return url.endsWith('.json') ? url : `${url.replace(/\/$/, '')}/.well-known/agent-card.json`;
}

/** Asks the agent to cancel its task; the runner's close waits for it (bounded), so `toolman call` does not exit first. */
function cancelRemote(client: Promise<Client>, taskId: string, state: A2aState): void {
  const cancel = client.then((c) => c.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) })).catch(() => undefined);
  state.pending.add(cancel);
  void cancel.finally(() => state.pending.delete(cancel));
}

/** A ToolFailure with the clearest message: the fetch's own, else the SDK's, after `prefix`. */
function failWith(fetchOptions: AgentFetchOptions, error: unknown, prefix: string): never {
  if (fetchOptions.failure) throw fetchOptions.failure;
  if (error instanceof ToolFailure) throw new ToolFailure(`${prefix}: ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  throw new ToolFailure(`${prefix}: ${progressLine(message, 500)}`);
}
