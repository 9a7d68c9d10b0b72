import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer, type ScriptedReply } from './model-server.js';

// These tests drive the real SDK clients against the fake; nothing here parses the wire by hand.

let server: ModelServer;
beforeEach(async () => {
  server = await startModelServer();
});
afterEach(async () => {
  await server.close();
});

const openai = (options: { maxRetries?: number } = {}) => new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: options.maxRetries ?? 0 });
const anthropic = (options: { maxRetries?: number } = {}) => new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: options.maxRetries ?? 0 });

const WEATHER = { city: 'Paris', days: [1, 2, 3], units: { temp: 'C' } };
const TIME = { zone: 'Europe/Paris' };
const TWO_CALLS: ScriptedReply = {
  text: 'Let me check both.',
  toolCalls: [
    { name: 'get_weather', arguments: WEATHER },
    { id: 'call_custom', name: 'get_time', arguments: TIME },
  ],
  usage: { input: 120, output: 30, cached: 64 },
};

const chatTools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];
const responsesTools: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} }, strict: false },
];
const anthropicTools: Anthropic.Tool[] = [
  { name: 'get_weather', input_schema: { type: 'object', properties: {} } },
  { name: 'get_time', input_schema: { type: 'object', properties: {} } },
];

const chatParams = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }] };
const responsesParams = { model: 'gpt-test', input: 'hi' };
const messagesParams = { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

/** Iterates a stream to the end and returns what was seen plus the error it threw, if any. */
async function drain<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

describe('chat completions', () => {
  it('answers a text reply, records the request, and reports scripted usage', async () => {
    server.script([{ text: 'Hello there', usage: { input: 11, output: 3, cached: 4 } }]);
    const completion = await openai().chat.completions.create({ ...chatParams, temperature: 0 });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello there' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14, prompt_tokens_details: { cached_tokens: 4 } });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ api: 'chat', path: '/v1/chat/completions', stream: false, body: { model: 'gpt-test', temperature: 0, messages: chatParams.messages } });
    expect(request!.headers.authorization).toBe('Bearer test');
    expect(request!.headers['content-type']).toBe('application/json');
  });

  it('answers two tool calls without streaming, with generated and given ids', async () => {
    server.script([TWO_CALLS]);
    const completion = await openai().chat.completions.create({ ...chatParams, tools: chatTools });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls!.map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) } : c));
    expect(calls).toEqual([
      { id: 'call_1', name: 'get_weather', args: WEATHER },
      { id: 'call_custom', name: 'get_time', args: TIME },
    ]);
    expect(server.requests[0]!.body.tools).toEqual(chatTools);
  });

  it('streams text and two tool calls whose fragments reassemble, then a usage chunk when asked', async () => {
    server.script([TWO_CALLS]);
    const stream = await openai().chat.completions.create({ ...chatParams, tools: chatTools, stream: true, stream_options: { include_usage: true } });
    const { items: chunks, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(server.requests[0]!.stream).toBe(true);
    let text = '';
    const calls: { id?: string; name: string; args: string; fragments: number }[] = [];
    for (const chunk of chunks) {
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      for (const tc of delta?.tool_calls ?? []) {
        const call = (calls[tc.index] ??= { name: '', args: '', fragments: 0 });
        if (tc.id) call.id = tc.id;
        call.name += tc.function?.name ?? '';
        call.args += tc.function?.arguments ?? '';
        call.fragments++;
      }
    }
    expect(text).toBe(TWO_CALLS.text);
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) }))).toEqual([
      { id: 'call_1', name: 'get_weather', args: WEATHER },
      { id: 'call_custom', name: 'get_time', args: TIME },
    ]);
    expect(calls.every((c) => c.fragments >= 3)).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 64 } });
  });

  it('sends no usage chunk without include_usage, and the SDK stream helper reassembles the calls', async () => {
    server.script([TWO_CALLS, TWO_CALLS]);
    const { items } = await drain(await openai().chat.completions.create({ ...chatParams, stream: true }));
    expect(items.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    const final = await openai().chat.completions.stream({ ...chatParams, tools: chatTools }).finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls!.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : null))).toEqual([WEATHER, TIME]);
  });

  it('answers 429 with retry-after, which the SDK retries, then succeeds', async () => {
    server.script([{ status: 429, retryAfter: 0.01 }, { text: 'after retry' }]);
    const completion = await openai({ maxRetries: 1 }).chat.completions.create(chatParams);
    expect(completion.choices[0]!.message.content).toBe('after retry');
    expect(server.requests).toHaveLength(2);
  });

  it('surfaces provider-shaped errors and a loud 500 when the script is exhausted', async () => {
    server.script([{ status: 429, retryAfter: 7 }, { status: 401 }]);
    const limited = await openai().chat.completions.create(chatParams).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('7');
    await expect(openai().chat.completions.create(chatParams)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    // x-should-retry: false, so even a retrying client fails at once.
    const exhausted = await openai({ maxRetries: 3 }).chat.completions.create(chatParams).catch((e: unknown) => e);
    expect(exhausted).toBeInstanceOf(OpenAI.InternalServerError);
    expect(String((exhausted as Error).message)).toMatch(/script exhausted/);
    expect(server.requests).toHaveLength(3);
  });

  it('a cut stream makes the iteration throw', async () => {
    server.script([{ ...TWO_CALLS, cutAfterEvents: 3 }]);
    const { items, error } = await drain(await openai().chat.completions.create({ ...chatParams, stream: true }));
    expect(items).toHaveLength(3);
    expect(error).toBeInstanceOf(Error);
    // Undici reports the dropped socket as TypeError('terminated'); the OpenAI SDK passes it through unwrapped.
    expect((error as Error).message).toMatch(/terminated/);
  });

  it("quirk 'indexless-fragments': tool_call deltas carry no index", async () => {
    server.script([{ toolCalls: TWO_CALLS.toolCalls!, quirk: 'indexless-fragments' }]);
    const { items } = await drain(await openai().chat.completions.create({ ...chatParams, stream: true }));
    const fragments = items.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    // Raw chunks look like {"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}
    // then {"tool_calls":[{"function":{"arguments":"{\"city\":\"Par"}}]}: no `index` anywhere.
    expect(fragments.length).toBeGreaterThan(4);
    expect(fragments.every((f) => !('index' in f))).toBe(true);
    expect(fragments[0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(fragments[1]).toEqual({ function: { arguments: expect.any(String) } });
    // A consumer must start a new call at each fragment with an id and append the rest to the latest one.
    const calls: { name: string; args: string }[] = [];
    for (const f of fragments) {
      if (f.id) calls.push({ name: f.function?.name ?? '', args: '' });
      calls.at(-1)!.args += f.function?.arguments ?? '';
    }
    expect(calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([['get_weather', WEATHER], ['get_time', TIME]]);
  });

  it("quirk 'repeated-names': every fragment repeats id and name", async () => {
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: WEATHER }], quirk: 'repeated-names' }]);
    const { items } = await drain(await openai().chat.completions.create({ ...chatParams, stream: true }));
    const fragments = items.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    // Raw chunks look like {"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Par"}}]}
    expect(fragments.length).toBe(3);
    expect(fragments.every((f) => f.index === 0 && f.id === 'call_1' && f.function?.name === 'get_weather')).toBe(true);
    const naive = fragments.map((f) => f.function?.name).join('');
    expect(naive).toBe('get_weatherget_weatherget_weather');
    expect(JSON.parse(fragments.map((f) => f.function?.arguments).join(''))).toEqual(WEATHER);
  });

  it('refuseStreamingTools answers 400 to stream+tools only', async () => {
    server.script([{ refuseStreamingTools: true, text: 'x' }, { refuseStreamingTools: true, toolCalls: [{ name: 'get_time', arguments: TIME }] }]);
    const refused = await openai().chat.completions.create({ ...chatParams, tools: chatTools, stream: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/streaming with tools is not supported/);
    const fallback = await openai().chat.completions.create({ ...chatParams, tools: chatTools });
    expect(fallback.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(server.requests.map((r) => r.stream)).toEqual([true, false]);
  });

  it('lets a function pick the reply per request, and delays answers', async () => {
    server.script((request, index) => ({ text: `#${index} ${request.body.messages[0].content}`, delayMs: 30 }));
    const started = Date.now();
    const first = await openai().chat.completions.create(chatParams);
    const second = await openai().chat.completions.create({ ...chatParams, messages: [{ role: 'user', content: 'again' }] });
    expect([first.choices[0]!.message.content, second.choices[0]!.message.content]).toEqual(['#0 hi', '#1 again']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });
});

describe('responses', () => {
  it('answers text, raw items and two function calls without streaming', async () => {
    const raw = [
      { type: 'tool_search_call', id: 'tsc_1', status: 'completed', arguments: { query: 'weather' }, execution: 'server', call_id: null },
      { type: 'tool_search_output', id: 'tso_1', status: 'completed', tools: [], execution: 'server', call_id: null },
    ];
    server.script([{ ...TWO_CALLS, raw }]);
    const response = await openai().responses.create({ ...responsesParams, tools: responsesTools });
    expect(response.status).toBe('completed');
    expect(response.output.map((o) => o.type)).toEqual(['tool_search_call', 'tool_search_output', 'message', 'function_call', 'function_call']);
    expect(response.output.slice(0, 2)).toEqual(raw);
    expect(response.output_text).toBe(TWO_CALLS.text);
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [{ call_id: o.call_id, name: o.name, args: JSON.parse(o.arguments) }] : []));
    expect(calls).toEqual([
      { call_id: 'call_1', name: 'get_weather', args: WEATHER },
      { call_id: 'call_custom', name: 'get_time', args: TIME },
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, total_tokens: 150, input_tokens_details: { cached_tokens: 64 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(server.requests[0]).toMatchObject({ api: 'responses', path: '/v1/responses', stream: false, body: { input: 'hi' } });
  });

  it('streams the real event sequence with increasing sequence numbers', async () => {
    server.script([TWO_CALLS]);
    const { items: events, error } = await drain(await openai().responses.create({ ...responsesParams, tools: responsesTools, stream: true }));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
    expect(types).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    const args = new Map<number, string>();
    let text = '';
    for (const e of events) {
      if (e.type === 'response.function_call_arguments.delta') args.set(e.output_index, (args.get(e.output_index) ?? '') + e.delta);
      if (e.type === 'response.output_text.delta') text += e.delta;
    }
    expect(text).toBe(TWO_CALLS.text);
    expect([...args.values()].map((a) => JSON.parse(a))).toEqual([WEATHER, TIME]);
    const completed = events.at(-1)!;
    expect(completed.type === 'response.completed' && completed.response.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, input_tokens_details: { cached_tokens: 64 } });
  });

  it('client.responses.stream accumulates the final response', async () => {
    server.script([TWO_CALLS]);
    const final = await openai().responses.stream({ ...responsesParams, tools: responsesTools }).finalResponse();
    expect(final.output_text).toBe(TWO_CALLS.text);
    expect(final.output.flatMap((o) => (o.type === 'function_call' ? [JSON.parse(o.arguments)] : []))).toEqual([WEATHER, TIME]);
    expect(final.usage?.input_tokens).toBe(120);
  });

  it('answers 429 with retry-after, which the SDK retries, then succeeds', async () => {
    server.script([{ status: 429, retryAfter: 0.01 }, { text: 'ok' }]);
    const response = await openai({ maxRetries: 1 }).responses.create(responsesParams);
    expect(response.output_text).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('a cut stream makes the iteration throw, and refuseStreamingTools answers 400', async () => {
    server.script([{ text: 'partial answer', cutAfterEvents: 4 }, { refuseStreamingTools: true, text: 'x' }]);
    const { items, error } = await drain(await openai().responses.create({ ...responsesParams, stream: true }));
    expect(items.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect((error as Error).message).toMatch(/terminated/);
    const refused = await openai().responses.create({ ...responsesParams, tools: responsesTools, stream: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/streaming with tools is not supported/);
  });
});

describe('anthropic messages', () => {
  const raw = [
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_regex', input: { query: 'weather' }, caller: { type: 'direct' } },
    { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }] } },
  ];

  it('answers text, raw blocks and two tool_use blocks without streaming', async () => {
    server.script([{ ...TWO_CALLS, raw, toolCalls: [TWO_CALLS.toolCalls![0]!, { id: 'toolu_given', name: 'get_time', arguments: TIME }] }]);
    const message = await anthropic().messages.create({ ...messagesParams, tools: anthropicTools });
    expect(message.type).toBe('message');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['server_tool_use', 'tool_search_tool_result', 'text', 'tool_use', 'tool_use']);
    expect(message.content.slice(0, 2)).toEqual(raw);
    expect(message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : []))).toEqual([
      { id: 'toolu_1', name: 'get_weather', input: WEATHER },
      { id: 'toolu_given', name: 'get_time', input: TIME },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 64, cache_creation_input_tokens: 0 });
    const [request] = server.requests;
    expect(request).toMatchObject({ api: 'messages', path: '/v1/messages', stream: false, body: { max_tokens: 1024 } });
    // @anthropic-ai/sdk 1.x sends `apiKey` as a bearer token, not as x-api-key.
    expect(request!.headers.authorization).toBe('Bearer test');
    expect(request!.headers['anthropic-version']).toBeTruthy();
  });

  it('streams events whose input_json_delta fragments reassemble', async () => {
    server.script([{ ...TWO_CALLS, raw }]);
    const { items: events, error } = await drain(await anthropic().messages.create({ ...messagesParams, tools: anthropicTools, stream: true }));
    expect(error).toBeUndefined();
    // The SDK drops the `ping` the server sends after message_start.
    const types = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1] || t === 'content_block_start');
    expect(types).toEqual([
      'message_start',
      'content_block_start', 'content_block_stop', 'content_block_start', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    const json = new Map<number, string>();
    let text = '';
    for (const e of events) {
      if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') json.set(e.index, (json.get(e.index) ?? '') + e.delta.partial_json);
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    }
    expect(text).toBe(TWO_CALLS.text);
    expect([...json.values()].map((j) => JSON.parse(j))).toEqual([WEATHER, TIME]);
    const start = events[0]!;
    expect(start.type === 'message_start' && start.message.usage).toMatchObject({ input_tokens: 120, cache_read_input_tokens: 64 });
    const delta = events.at(-2)!;
    expect(delta.type === 'message_delta' && [delta.delta.stop_reason, delta.usage.output_tokens]).toEqual(['tool_use', 30]);
  });

  it('messages.stream().finalMessage() accumulates blocks and usage', async () => {
    server.script([{ ...TWO_CALLS, raw }]);
    const final = await anthropic().messages.stream({ ...messagesParams, tools: anthropicTools }).finalMessage();
    expect(final.content.slice(0, 2)).toEqual(raw);
    expect(final.content.flatMap((b) => (b.type === 'tool_use' ? [b.input] : b.type === 'text' ? [b.text] : []))).toEqual([TWO_CALLS.text, WEATHER, TIME]);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 64 });
  });

  it('answers 429 with retry-after, which the SDK retries, then succeeds; errors are Anthropic-shaped', async () => {
    server.script([{ status: 429, retryAfter: 0.01 }, { text: 'ok' }, { status: 529 }]);
    const message = await anthropic({ maxRetries: 1 }).messages.create(messagesParams);
    expect(message.content).toEqual([{ type: 'text', text: 'ok', citations: null }]);
    const overloaded = await anthropic().messages.create(messagesParams).catch((e: unknown) => e);
    expect(overloaded).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    expect(server.requests).toHaveLength(3);
  });

  it('a cut stream makes the iteration throw and finalMessage() reject', async () => {
    server.script([{ ...TWO_CALLS, cutAfterEvents: 5 }, { ...TWO_CALLS, cutAfterEvents: 5 }]);
    const { items, error } = await drain(await anthropic().messages.create({ ...messagesParams, stream: true }));
    // message_start, (ping dropped), content_block_start, 2 deltas.
    expect(items.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta']);
    // Raw iteration throws undici's TypeError('terminated') (cause: SocketError UND_ERR_SOCKET), not an APIError.
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
    // The MessageStream helper wraps it: AnthropicError('terminated') with the TypeError as cause.
    const rejected = await anthropic().messages.stream(messagesParams).finalMessage().catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(Anthropic.AnthropicError);
    expect(rejected).not.toBeInstanceOf(Anthropic.APIError);
    expect(rejected).toMatchObject({ message: 'terminated', cause: expect.any(TypeError) });
  });

  it('refuseStreamingTools answers 400 in the Anthropic format', async () => {
    server.script([{ refuseStreamingTools: true, text: 'x' }]);
    const refused = await anthropic().messages.create({ ...messagesParams, tools: anthropicTools, stream: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect((refused as Error).message).toMatch(/streaming with tools is not supported/);
  });
});
