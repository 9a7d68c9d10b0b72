import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/**
 * A loopback A2A agent on the official SDK's server side (express, JSON-RPC on 127.0.0.1:0).
 * What it does with a task is decided by the first word of the task's text:
 *   `echo X`      completes with one artifact "You said: X"
 *   `steps`       streams working updates ("step 1/3"...), an artifact, then completes
 *   `data`        completes with a data part ({answer: 42})
 *   `fail`        fails with a status message
 *   `reject`      rejects the task
 *   `input`       asks for input (input-required)
 *   `hang`        works until cancelled (then reports canceled)
 *   `escapes`     a status and an answer full of terminal escapes and control characters
 *   `hostile`     answers with terminal escapes and about 6 MB of text
 *   `message`     answers with a bare message, no task
 * Requests' headers are recorded; `cancelled` lists the task ids cancelTask was called for.
 */
export interface A2aServer {
  url: string;
  headers: Record<string, string | string[] | undefined>[];
  cancelled: string[];
  tasks: string[];
  close(): Promise<void>;
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { role: Role.ROLE_AGENT, messageId: crypto.randomUUID(), parts, taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [] };
}

export async function startA2aServer(options: { streaming?: boolean; name?: string } = {}): Promise<A2aServer> {
  const cancelled: string[] = [];
  const tasks: string[] = [];
  const cancelRequested = new Set<string>();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const executor: AgentExecutor = {
    cancelTask: async (taskId: string) => {
      cancelled.push(taskId);
      cancelRequested.add(taskId);
    },
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId, userMessage } = context;
      const first = userMessage.parts.find((p) => p.content?.$case === 'text');
      const input = first?.content?.$case === 'text' ? first.content.value : '';
      tasks.push(input);
      const [verb = '', ...rest] = input.trim().split(/\s+/);
      const status = (state: TaskState, message?: string, final = false) =>
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: message === undefined ? undefined : agentMessage(taskId, contextId, [text(message)]), timestamp: new Date().toISOString() }, metadata: final ? {} : undefined }));
      const artifact = (parts: Part[], name = 'answer') =>
        bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: crypto.randomUUID(), name, description: '', parts, metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));

      if (verb === 'message') {
        bus.publish(AgentEvent.message(agentMessage(taskId, contextId, [text('A plain message answer.')])));
        bus.finished();
        return;
      }
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [userMessage], metadata: undefined }));
      switch (verb) {
        case 'echo':
          artifact([text(`You said: ${rest.join(' ')}`)]);
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        case 'steps':
          for (let i = 1; i <= 3; i++) {
            status(TaskState.TASK_STATE_WORKING, `step ${i}/3`);
            await sleep(20);
          }
          artifact([text('Report: three steps done.')], 'report');
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        case 'data':
          artifact([{ content: { $case: 'data', value: { answer: 42 } }, metadata: undefined, filename: '', mediaType: 'application/json' }]);
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        case 'fail':
          status(TaskState.TASK_STATE_FAILED, 'the upstream index is unavailable');
          break;
        case 'reject':
          status(TaskState.TASK_STATE_REJECTED, 'I only do research tasks');
          break;
        case 'input':
          status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which year do you mean?');
          break;
        case 'hang':
          status(TaskState.TASK_STATE_WORKING, 'thinking');
          while (!cancelRequested.has(taskId)) await sleep(10);
          status(TaskState.TASK_STATE_CANCELED, 'stopped on request');
          break;
        case 'escapes':
          status(TaskState.TASK_STATE_WORKING, '\u001b[2Kworking\u001b]52;c;cHduZWQ=\u0007 hard\nnext line');
          artifact([text('\u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m ok\u0000\u009b \u202eevil\nline two\tend')]);
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        case 'hostile':
          artifact([text(`\u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m ok\u0000\u009b${'x'.repeat(6_000_000)}`)]);
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        default:
          status(TaskState.TASK_STATE_COMPLETED, `unknown task ${JSON.stringify(verb)}`);
      }
      bus.finished();
    },
  };

  const headers: A2aServer['headers'] = [];
  const app = express();
  app.use((req, _res, next) => {
    headers.push({ ...req.headers });
    next();
  });
  let url = '';
  const card = (): AgentCard => ({
    name: options.name ?? 'Loopback Researcher',
    description: 'Answers research questions (test agent).',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id: 'research', name: 'Research', description: 'Research a question', tags: ['research'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  });
  // The card names the server's own URL, known once it listens: the handlers are built on first use.
  let handlers: { card: express.RequestHandler; rpc: express.RequestHandler } | undefined;
  const built = () => {
    if (handlers) return handlers;
    const requestHandler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
    return (handlers = { card: agentCardHandler({ agentCardProvider: requestHandler }), rpc: jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }) });
  };
  app.use(`/${AGENT_CARD_PATH}`, (req, res, next) => built().card(req, res, next));
  app.use((req, res, next) => built().rpc(req, res, next));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    headers,
    cancelled,
    tasks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
