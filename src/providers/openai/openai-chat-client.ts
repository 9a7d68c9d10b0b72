import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { sdkOptions, type ClientConnection, type ModelCallHooks, type ModelClient, type ModelReply, type ModelRequest, type ModelToolCall, type ModelUsage } from '../model-client.js';
import { ModelCallError, modelCallError, withRetries } from '../model-errors.js';

/**
 * OpenAI Chat Completions (and the many servers that speak it: Ollama, vLLM, llama.cpp, LM
 * Studio) through the official SDK. Streams by default; tool-call fragments are stitched by index,
 * and also when a server sends no index or repeats the name and id in every fragment. A server
 * that refuses to stream with tools is asked again without streaming, once, with a warning, and
 * from then on.
 */
export class OpenAiChatClient implements ModelClient {
  readonly provider: 'openai' | 'gemini' = 'openai';
  private readonly client: OpenAI;
  private streamToolsRefused = false;

  constructor(
    readonly model: string,
    private readonly connection: ClientConnection,
  ) {
    this.client = new OpenAI(sdkOptions(connection));
  }

  body(request: ModelRequest): Record<string, unknown> {
    const messages: ChatCompletionMessageParam[] = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    for (const message of request.messages) {
      if (message.role === 'user') messages.push({ role: 'user', content: message.text });
      else if (message.role === 'assistant') {
        messages.push({
          role: 'assistant',
          content: message.text || null,
          ...(message.toolCalls.length ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments }, ...(c.extra ? { extra_content: c.extra } : {}) })) } : {}),
        });
      } else for (const result of message.results) messages.push({ role: 'tool', tool_call_id: result.id, content: result.isError ? `Error: ${result.content}` : result.content });
    }
    const stream = request.stream && !(this.streamToolsRefused && hasTools(request));
    // The output cap: OpenAI's current name, and the older one Gemini's OpenAI-compatible endpoint documents.
    const cap = request.capOutput ? { [this.provider === 'gemini' ? 'max_tokens' : 'max_completion_tokens']: request.maxTokens } : {};
    return { model: request.model, messages, ...cap, ...this.toolsFor(request), ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
  }

  /** The tools and tool choice, as the formatter made them for this provider. */
  protected toolsFor(request: ModelRequest): Record<string, unknown> {
    return request.tools.payload;
  }

  async send(request: ModelRequest, hooks: ModelCallHooks): Promise<ModelReply> {
    const toError = (error: unknown) => modelCallError(error, this.provider, this.model, this.connection.baseUrl);
    try {
      return await withRetries((started) => this.once(request, hooks, started), hooks, toError);
    } catch (error) {
      const failure = toError(error);
      // Some compatible servers cannot stream tool calls and say so with a 400.
      if (failure.kind === 'bad_request' && request.stream && hasTools(request) && !this.streamToolsRefused && /stream/i.test(failure.message)) {
        this.streamToolsRefused = true;
        hooks.onWarning?.(`this server cannot stream tool calls (${failure.message}); sending requests without streaming from now on`);
        return withRetries((started) => this.once(request, hooks, started), hooks, toError);
      }
      throw failure;
    }
  }

  private async once(request: ModelRequest, hooks: ModelCallHooks, started: () => void): Promise<ModelReply> {
    const body = this.body(request);
    if (!body.stream) {
      const response = (await this.client.chat.completions.create(body as never, { signal: hooks.signal })) as OpenAI.Chat.Completions.ChatCompletion;
      const choice = response.choices[0];
      const message = choice?.message;
      if (message?.content) hooks.onText?.(message.content);
      return {
        text: message?.content ?? '',
        toolCalls: (message?.tool_calls ?? []).flatMap((c, i) => (c.type === 'function' ? [{ id: c.id || `call_${i + 1}`, name: c.function.name, arguments: c.function.arguments ?? '', ...extraOf(c) }] : [])),
        ...(response.usage ? { usage: chatUsage(response.usage) } : {}),
        stopReason: choice?.finish_reason ?? 'stop',
      };
    }
    const stream = (await this.client.chat.completions.create(body as never, { signal: hooks.signal })) as unknown as AsyncIterable<ChatCompletionChunk>;
    const calls = new ToolCallStitcher();
    let text = '';
    let usage: ModelUsage | undefined;
    let stopReason = '';
    for await (const chunk of stream) {
      if (chunk.usage) usage = chatUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const content = choice.delta?.content;
      if (content) {
        started();
        text += content;
        hooks.onText?.(content);
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        started();
        calls.add(fragment);
      }
      if (choice.finish_reason) stopReason = choice.finish_reason;
    }
    if (!stopReason) throw new ModelCallError('stream_dropped', 'the reply stream ended before the model finished', undefined, undefined, 'what arrived is kept; ask again to continue');
    return { text, toolCalls: calls.calls(), ...(usage ? { usage } : {}), stopReason };
  }
}

/** A call's `extra_content` (a compatible server's own fields, e.g. Gemini's thought signature), kept to be sent back. */
function extraOf(call: object): { extra?: Record<string, unknown> } {
  const extra = (call as { extra_content?: unknown }).extra_content;
  return extra !== null && typeof extra === 'object' && !Array.isArray(extra) ? { extra: extra as Record<string, unknown> } : {};
}

function hasTools(request: ModelRequest): boolean {
  return Array.isArray(request.tools.payload.tools) && request.tools.payload.tools.length > 0;
}

function chatUsage(usage: OpenAI.Completions.CompletionUsage): ModelUsage {
  return { input: usage.prompt_tokens ?? 0, output: usage.completion_tokens ?? 0, cached: usage.prompt_tokens_details?.cached_tokens ?? 0 };
}

type Fragment = NonNullable<ChatCompletionChunk.Choice['delta']['tool_calls']>[number];

/**
 * Rebuilds tool calls from streamed fragments. OpenAI numbers each call (`index`), sends its id
 * and name once, then the arguments in pieces. Compatible servers vary: some send no index (a
 * new id starts a new call), some repeat the id and name in every fragment (kept once, not
 * concatenated).
 */
export class ToolCallStitcher {
  private readonly byIndex = new Map<number, { id: string; name: string; arguments: string; extra?: Record<string, unknown> }>();
  private last: number | undefined;

  add(fragment: Fragment): void {
    const partial = fragment as Partial<Fragment>;
    let index = typeof partial.index === 'number' ? partial.index : undefined;
    if (index === undefined) {
      const known = partial.id ? [...this.byIndex].find(([, c]) => c.id === partial.id)?.[0] : undefined;
      index = known ?? (partial.id || this.last === undefined ? this.byIndex.size : this.last);
    }
    this.last = index;
    let call = this.byIndex.get(index);
    if (!call) this.byIndex.set(index, (call = { id: '', name: '', arguments: '' }));
    if (partial.id && !call.id) call.id = partial.id;
    const name = partial.function?.name;
    if (name && call.name !== name) call.name = call.name && !name.startsWith(call.name) ? call.name + name : name;
    if (partial.function?.arguments) call.arguments += partial.function.arguments;
    const { extra } = extraOf(fragment);
    if (extra) call.extra = { ...call.extra, ...extra };
  }

  calls(): ModelToolCall[] {
    return [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, c], i) => ({ id: c.id || `call_${i + 1}`, name: c.name, arguments: c.arguments, ...(c.extra ? { extra: c.extra } : {}) }));
  }
}
