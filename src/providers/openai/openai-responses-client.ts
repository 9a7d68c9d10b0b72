import OpenAI from 'openai';
import type { Response, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { systemPayloadFor } from '../system-payload.js';
import { sdkOptions, type ClientConnection, type ModelCallHooks, type ModelClient, type ModelReply, type ModelRequest } from '../model-client.js';
import { ModelCallError, modelCallError, withRetries } from '../model-errors.js';

/** Output items that belong to a native tool search: sent back as they came, so the model keeps what it found. */
const NATIVE_ITEMS = new Set(['tool_search_call', 'tool_search_output']);

/**
 * The OpenAI Responses API through the official SDK. Each request carries the whole conversation
 * as input items (toolman keeps the history, nothing is stored server-side for it), the system
 * prompt as `instructions`. Streams by default: text arrives as deltas; the final response
 * (`response.completed`) is the authority for calls and usage.
 */
export class OpenAiResponsesClient implements ModelClient {
  readonly provider = 'openai-responses' as const;
  private readonly client: OpenAI;

  constructor(
    readonly model: string,
    private readonly connection: ClientConnection,
  ) {
    this.client = new OpenAI(sdkOptions(connection));
  }

  body(request: ModelRequest): Record<string, unknown> {
    const input: unknown[] = [];
    for (const message of request.messages) {
      if (message.role === 'user') input.push({ role: 'user', content: message.text });
      else if (message.role === 'assistant') {
        if (Array.isArray(message.native)) input.push(...message.native);
        if (message.text) input.push({ role: 'assistant', content: message.text });
        for (const call of message.toolCalls) input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
      } else for (const result of message.results) input.push({ type: 'function_call_output', call_id: result.id, output: result.isError ? `Error: ${result.content}` : result.content } satisfies ResponseInputItem);
    }
    return { model: request.model, ...systemPayloadFor('openai-responses', request.system), input, ...(request.capOutput ? { max_output_tokens: request.maxTokens } : {}), ...request.tools.payload, ...(request.stream ? { stream: true } : {}) };
  }

  async send(request: ModelRequest, hooks: ModelCallHooks): Promise<ModelReply> {
    const toError = (error: unknown) => modelCallError(error, this.provider, this.model, this.connection.baseUrl);
    return withRetries((started) => this.once(request, hooks, started), hooks, toError);
  }

  private async once(request: ModelRequest, hooks: ModelCallHooks, started: () => void): Promise<ModelReply> {
    const body = this.body(request);
    if (!body.stream) {
      const response = (await this.client.responses.create(body as never, { signal: hooks.signal })) as Response;
      const reply = replyOf(response);
      if (reply.text) hooks.onText?.(reply.text);
      return reply;
    }
    const stream = (await this.client.responses.create(body as never, { signal: hooks.signal })) as unknown as AsyncIterable<ResponseStreamEvent>;
    let final: Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') {
        started();
        hooks.onText?.(event.delta);
      } else if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
      else if (event.type === 'response.failed') throw new ModelCallError('server', `the response failed: ${event.response.error?.message ?? 'no reason given'}`, undefined, undefined);
      else if (event.type === 'error') throw new ModelCallError('server', `the stream reported an error: ${event.message}`, undefined, undefined);
    }
    if (!final) throw new ModelCallError('stream_dropped', 'the reply stream ended before the response was complete', undefined, undefined, 'what arrived is kept; ask again to continue');
    return replyOf(final);
  }
}

function replyOf(response: Response): ModelReply {
  let text = '';
  const toolCalls: ModelReply['toolCalls'] = [];
  const native: unknown[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') for (const part of item.content) text += part.type === 'output_text' ? part.text : '';
    else if (item.type === 'function_call') toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments ?? '' });
    else if (NATIVE_ITEMS.has(item.type)) native.push(item);
  }
  const usage = response.usage;
  return {
    text,
    toolCalls,
    ...(usage ? { usage: { input: usage.input_tokens ?? 0, output: usage.output_tokens ?? 0, cached: usage.input_tokens_details?.cached_tokens ?? 0 } } : {}),
    stopReason: response.status === 'incomplete' ? `incomplete: ${response.incomplete_details?.reason ?? 'unknown'}` : toolCalls.length ? 'tool_calls' : 'stop',
    ...(native.length ? { native } : {}),
  };
}
