import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ContentBlockParam, Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { systemPayloadFor } from '../system-payload.js';
import { sdkOptions, type ClientConnection, type ModelCallHooks, type ModelClient, type ModelReply, type ModelRequest } from '../model-client.js';
import { ModelCallError, modelCallError, withRetries } from '../model-errors.js';

/**
 * Anthropic Messages through the official SDK. An assistant turn goes back as the content blocks
 * it came as (a native tool search's server_tool_use and tool_search_tool_result blocks
 * included); tool results are `tool_result` blocks with `is_error` for failures. Streams by
 * default with the SDK's message stream, which assembles the blocks; text arrives as deltas.
 */
export class AnthropicClient implements ModelClient {
  readonly provider = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(
    readonly model: string,
    private readonly connection: ClientConnection,
  ) {
    this.client = new Anthropic(sdkOptions(connection));
  }

  body(request: ModelRequest): Record<string, unknown> {
    const messages: MessageParam[] = [];
    // The API takes alternating roles; a turn that ended early can leave two user messages in a row.
    const push = (role: 'user' | 'assistant', content: ContentBlockParam[]) => {
      const previous = messages[messages.length - 1];
      if (previous?.role === role && Array.isArray(previous.content)) previous.content.push(...content);
      else messages.push({ role, content });
    };
    for (const message of request.messages) {
      if (message.role === 'user') push('user', [{ type: 'text', text: message.text }]);
      else if (message.role === 'assistant') {
        const blocks: ContentBlockParam[] = Array.isArray(message.native)
          ? (message.native as ContentBlockParam[])
          : [...(message.text ? [{ type: 'text' as const, text: message.text }] : []), ...message.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: parseInput(c.arguments) }))];
        if (blocks.length) push('assistant', blocks);
      } else push('user', message.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, ...(r.isError ? { is_error: true } : {}) })));
    }
    return { model: request.model, max_tokens: request.maxTokens, ...systemPayloadFor('anthropic', request.system), messages, ...request.tools.payload, ...(request.stream ? { stream: true } : {}) };
  }

  async send(request: ModelRequest, hooks: ModelCallHooks): Promise<ModelReply> {
    const toError = (error: unknown) => modelCallError(error, this.provider, this.model, this.connection.baseUrl);
    return withRetries((started) => this.once(request, hooks, started), hooks, toError);
  }

  private async once(request: ModelRequest, hooks: ModelCallHooks, started: () => void): Promise<ModelReply> {
    const { stream, ...body } = this.body(request);
    if (!stream) {
      const message = (await this.client.messages.create(body as never, { signal: hooks.signal })) as Message;
      const reply = replyOf(message);
      if (reply.text) hooks.onText?.(reply.text);
      return reply;
    }
    const messageStream = this.client.messages.stream(body as never, { signal: hooks.signal });
    messageStream.on('text', (delta) => {
      started();
      hooks.onText?.(delta);
    });
    messageStream.on('streamEvent', (event) => {
      if (event.type === 'content_block_start') started();
    });
    let message: Message;
    try {
      message = await messageStream.finalMessage();
    } catch (error) {
      if (error instanceof Error && /stream ended without producing/i.test(error.message)) {
        throw new ModelCallError('stream_dropped', 'the reply stream ended before the message was complete', undefined, undefined, 'what arrived is kept; ask again to continue');
      }
      throw error;
    }
    return replyOf(message);
  }
}

function replyOf(message: Message): ModelReply {
  const blocks = message.content as ContentBlock[];
  const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const toolCalls = blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : []));
  const usage = message.usage;
  return {
    text,
    toolCalls,
    usage: { input: (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0), output: usage.output_tokens ?? 0, cached: usage.cache_read_input_tokens ?? 0 },
    stopReason: message.stop_reason ?? 'end_turn',
    // Sent back as is: server tool blocks must stay where they were.
    native: blocks,
  };
}

/** Tool-use input is an object; arguments the model sent as other JSON (or broken text) are kept as a string field. */
function parseInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { arguments: text };
  }
}
