import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server that speaks the wire formats of OpenAI Chat Completions (POST /v1/chat/completions),
 * OpenAI Responses (POST /v1/responses) and Anthropic Messages (POST /v1/messages), streaming (SSE, when the body
 * says `stream: true`) and not, so tests can point the real `openai` / `@anthropic-ai/sdk` clients at it
 * (`baseURL: `${url}/v1`` for OpenAI, `baseURL: url` for Anthropic) without network or keys.
 *
 * Every request is recorded (parsed JSON body, lower-cased headers) before it is answered, and consumes the next
 * scripted reply (errors and refusals included). When the script runs out the server answers 500 with
 * `x-should-retry: false`, so the SDKs fail at once instead of retrying. Ids the script does not give are
 * generated per server from counters: `call_1`, `toolu_1`, `msg_1`, `resp_1`, `fc_1`, `chatcmpl_1`...
 */

export interface ScriptedCall {
  id?: string;
  name: string;
  /** An object (serialized with JSON.stringify), or a string sent verbatim (e.g. broken JSON). */
  arguments: unknown;
  /** Chat Completions: sent as the call's `extra_content` (Gemini's thought signature rides there), on its first fragment when streaming. */
  extra?: Record<string, unknown>;
}

export interface ScriptedReply {
  /** Assistant text (streamed in several deltas when streaming). */
  text?: string;
  /** Tool calls in this reply (parallel when several). */
  toolCalls?: ScriptedCall[];
  /**
   * What the "API" reports, each number put verbatim in that API's field: Chat `prompt_tokens`/`completion_tokens`/
   * `prompt_tokens_details.cached_tokens`; Responses `input_tokens`/`output_tokens`/`input_tokens_details.cached_tokens`;
   * Messages `input_tokens`/`output_tokens`/`cache_read_input_tokens`. Mind that OpenAI counts cached tokens inside
   * the input while Anthropic counts them apart: script what the real API would say.
   * Without it: input = body length / 4, output = (text + arguments length) / 4, cached = 0.
   */
  usage?: { input: number; output: number; cached?: number };
  /**
   * Provider-specific items added to the reply as-is, before the text and tool calls: Anthropic content blocks
   * (e.g. server_tool_use, tool_search_tool_result), Responses output items (e.g. tool_search_call/tool_search_output).
   * Ignored by Chat Completions. Streamed as one content_block_start + content_block_stop (Messages) or
   * output_item.added + output_item.done (Responses) each.
   */
  raw?: unknown[];
  /** Answer with this HTTP error instead (429, 500, 401, 404...) and a provider-shaped error body. */
  status?: number;
  /** With `status`: the error's message instead of the API's usual one (a proxy that echoes what it was sent). */
  errorMessage?: string;
  /** Seconds (fractions allowed), sent as the retry-after header with `status`. */
  retryAfter?: number;
  /**
   * Streaming: destroy the socket after N SSE events (every `event:`/`data:` message counts, Anthropic's ping and
   * Chat's `[DONE]` included). The stream never ends cleanly, even when it has N events or fewer.
   */
  cutAfterEvents?: number;
  /**
   * OpenAI Chat streaming quirks of compatible servers. 'indexless-fragments': tool_call deltas carry no `index`
   * (a fragment with an `id` starts a new call, the rest continue the last one). 'repeated-names': every fragment
   * of a call repeats `id`, `type` and `function.name` (naive concatenation doubles the name).
   */
  quirk?: 'indexless-fragments' | 'repeated-names';
  /** When the request has stream:true and tools, answer 400 ("streaming with tools is not supported"); otherwise answer normally. */
  refuseStreamingTools?: boolean;
  /** Wait before answering. */
  delayMs?: number;
}

export interface RecordedRequest {
  api: 'chat' | 'responses' | 'messages';
  /** The request path as sent, query string included. */
  path: string;
  headers: Record<string, string>;
  body: any;
  stream: boolean;
}

export interface ModelServer {
  /** http://127.0.0.1:PORT — OpenAI clients use `${url}/v1` as baseURL, Anthropic clients use `url`. */
  url: string;
  requests: RecordedRequest[];
  /**
   * Replies are consumed in order, one per request (errors included); a function decides per request instead
   * (index counts requests from 0). Calling `script` again replaces the script and restarts the count. When the
   * script is exhausted, answer 500 with a message saying so (tests must fail loudly).
   */
  script(replies: ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply)): void;
  close(): Promise<void>;
}

type Api = RecordedRequest['api'];
type Json = Record<string, unknown>;
interface SseEvent {
  event?: string;
  data: string;
}

const ROUTES: Record<string, Api> = {
  '/v1/chat/completions': 'chat',
  // Gemini's OpenAI-compatible endpoint (GEMINI_BASE_URL=url).
  '/v1beta/openai/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
};

/** Splits a string into up to `parts` non-empty pieces (on code points, so no surrogate pair is cut). */
function fragments(text: string, parts = 3): string[] {
  const chars = Array.from(text);
  if (chars.length <= 1) return [text];
  const size = Math.ceil(chars.length / Math.min(parts, chars.length));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

const argumentsText = (call: ScriptedCall): string =>
  typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});

/** Anthropic's `input` must be an object: strings are parsed when they are JSON, else sent as they are. */
function argumentsObject(call: ScriptedCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}

const OPENAI_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again later.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
};

const ANTHROPIC_ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request.' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'model: not found' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function errorBody(api: Api, status: number, message?: string, requestId?: string): unknown {
  if (api === 'messages') {
    const known = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500]! : ANTHROPIC_ERRORS[400]!);
    return { type: 'error', error: { type: known.type, message: message ?? known.message }, request_id: requestId };
  }
  const known = OPENAI_ERRORS[status] ?? (status >= 500 ? OPENAI_ERRORS[500]! : OPENAI_ERRORS[400]!);
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

export async function startModelServer(): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let replies: ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply) = [];
  let answered = 0;
  const counters = new Map<string, number>();
  const nextId = (prefix: string) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return `${prefix}_${n}`;
  };
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => (timers.delete(timer), resolve()), ms);
      timers.add(timer);
    });

  const nextReply = (request: RecordedRequest): ScriptedReply | undefined => {
    const index = answered++;
    return typeof replies === 'function' ? replies(request, index) : replies[index];
  };

  const sendJson = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };

  const write = (res: ServerResponse, text: string) =>
    new Promise<void>((resolve) => {
      if (res.destroyed || res.writableEnded) return resolve();
      res.write(text, () => resolve());
    });

  const sendSse = async (res: ServerResponse, events: SseEvent[], headers: Record<string, string>, cutAfter?: number) => {
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
    res.flushHeaders();
    let sent = 0;
    for (const e of events) {
      if (cutAfter !== undefined && sent >= cutAfter) break;
      await write(res, `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`);
      sent++;
    }
    if (cutAfter !== undefined) res.destroy();
    else res.end();
  };

  const usageOf = (reply: ScriptedReply, rawBody: string) => {
    if (reply.usage) return { input: reply.usage.input, output: reply.usage.output, cached: reply.usage.cached ?? 0 };
    const produced = (reply.text ?? '').length + (reply.toolCalls ?? []).reduce((n, c) => n + argumentsText(c).length, 0);
    return { input: Math.max(1, Math.round(rawBody.length / 4)), output: Math.max(1, Math.round(produced / 4)), cached: 0 };
  };
  type Usage = ReturnType<typeof usageOf>;

  // ---------- OpenAI Chat Completions ----------
  const chat = (reply: ScriptedReply, request: RecordedRequest, usage: Usage): { json: unknown } | { events: SseEvent[] } => {
    const body = request.body as Json;
    const id = nextId('chatcmpl');
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === 'string' ? body.model : 'gpt-test';
    const calls = (reply.toolCalls ?? []).map((c) => ({ id: c.id ?? nextId('call'), name: c.name, args: argumentsText(c), extra: c.extra ? { extra_content: c.extra } : {} }));
    const finish = calls.length ? 'tool_calls' : 'stop';
    const wireUsage = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    if (!request.stream) {
      const message: Json = { role: 'assistant', content: reply.text ?? null, refusal: null, annotations: [] };
      if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args }, ...c.extra }));
      return {
        json: {
          id, object: 'chat.completion', created, model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
          usage: wireUsage, service_tier: 'default', system_fingerprint: null,
        },
      };
    }
    const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
    const chunks: unknown[] = [];
    const chunk = (delta: Json, finishReason: string | null = null) =>
      chunks.push({
        id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(includeUsage ? { usage: null } : {}),
      });
    chunk({ role: 'assistant', content: reply.text !== undefined ? '' : null, refusal: null });
    if (reply.text) for (const piece of fragments(reply.text)) chunk({ content: piece });
    calls.forEach((call, index) => {
      const pieces = fragments(call.args);
      const head = { id: call.id, type: 'function', ...call.extra };
      const at = reply.quirk === 'indexless-fragments' ? {} : { index };
      if (reply.quirk === 'repeated-names') {
        for (const piece of pieces) chunk({ tool_calls: [{ ...at, ...head, function: { name: call.name, arguments: piece } }] });
      } else {
        chunk({ tool_calls: [{ ...at, ...head, function: { name: call.name, arguments: '' } }] });
        for (const piece of pieces) if (piece) chunk({ tool_calls: [{ ...at, function: { arguments: piece } }] });
      }
    });
    chunk({}, finish);
    if (includeUsage) chunks.push({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: null, choices: [], usage: wireUsage });
    return { events: [...chunks.map((c) => ({ data: JSON.stringify(c) })), { data: '[DONE]' }] };
  };

  // ---------- OpenAI Responses ----------
  const responses = (reply: ScriptedReply, request: RecordedRequest, usage: Usage): { json: unknown } | { events: SseEvent[] } => {
    const body = request.body as Json;
    const id = nextId('resp');
    const createdAt = Math.floor(Date.now() / 1000);
    const message =
      reply.text !== undefined
        ? { id: nextId('msg'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }] }
        : undefined;
    const calls = (reply.toolCalls ?? []).map((c) => ({
      id: nextId('fc'), type: 'function_call', status: 'completed', arguments: argumentsText(c), call_id: c.id ?? nextId('call'), name: c.name,
    }));
    const output: unknown[] = [...(reply.raw ?? []), ...(message ? [message] : []), ...calls];
    const response = (status: 'in_progress' | 'completed', items: unknown[]) => ({
      id, object: 'response', created_at: createdAt, status, background: false, error: null, incomplete_details: null,
      instructions: body.instructions ?? null, max_output_tokens: body.max_output_tokens ?? null, model: body.model ?? 'gpt-test',
      output: items, parallel_tool_calls: body.parallel_tool_calls ?? true, previous_response_id: body.previous_response_id ?? null,
      reasoning: { effort: null, summary: null }, service_tier: 'default', store: body.store ?? true, temperature: body.temperature ?? 1,
      text: { format: { type: 'text' } }, tool_choice: body.tool_choice ?? 'auto', tools: body.tools ?? [], top_p: body.top_p ?? 1,
      truncation: 'disabled', user: null, metadata: body.metadata ?? {},
      ...(status === 'completed'
        ? {
            completed_at: createdAt,
            usage: {
              input_tokens: usage.input, input_tokens_details: { cached_tokens: usage.cached },
              output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output,
            },
          }
        : { usage: null }),
    });
    if (!request.stream) return { json: response('completed', output) };

    const events: SseEvent[] = [];
    let sequence = 0;
    const emit = (type: string, fields: Json) => events.push({ event: type, data: JSON.stringify({ type, ...fields, sequence_number: sequence++ }) });
    emit('response.created', { response: response('in_progress', []) });
    emit('response.in_progress', { response: response('in_progress', []) });
    output.forEach((item, outputIndex) => {
      if (item === message && message) {
        const part = message.content[0]!;
        emit('response.output_item.added', { output_index: outputIndex, item: { ...message, status: 'in_progress', content: [] } });
        const at = { item_id: message.id, output_index: outputIndex, content_index: 0 };
        emit('response.content_part.added', { ...at, part: { ...part, text: '' } });
        if (part.text) for (const delta of fragments(part.text)) emit('response.output_text.delta', { ...at, delta, logprobs: [] });
        emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
        emit('response.content_part.done', { ...at, part });
        emit('response.output_item.done', { output_index: outputIndex, item: message });
      } else if (calls.includes(item as (typeof calls)[number])) {
        const call = item as (typeof calls)[number];
        emit('response.output_item.added', { output_index: outputIndex, item: { ...call, status: 'in_progress', arguments: '' } });
        const at = { item_id: call.id, output_index: outputIndex };
        for (const delta of fragments(call.arguments)) if (delta) emit('response.function_call_arguments.delta', { ...at, delta });
        emit('response.function_call_arguments.done', { ...at, name: call.name, arguments: call.arguments });
        emit('response.output_item.done', { output_index: outputIndex, item: call });
      } else {
        emit('response.output_item.added', { output_index: outputIndex, item });
        emit('response.output_item.done', { output_index: outputIndex, item });
      }
    });
    emit('response.completed', { response: response('completed', output) });
    return { events };
  };

  // ---------- Anthropic Messages ----------
  const messages = (reply: ScriptedReply, request: RecordedRequest, usage: Usage): { json: unknown } | { events: SseEvent[] } => {
    const body = request.body as Json;
    const id = nextId('msg');
    const model = typeof body.model === 'string' ? body.model : 'claude-test';
    const calls = (reply.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id ?? nextId('toolu'), name: c.name, input: argumentsObject(c), caller: { type: 'direct' }, text: argumentsText(c) }));
    const stopReason = calls.length ? 'tool_use' : 'end_turn';
    const fullUsage = {
      input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cached,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: usage.output, service_tier: 'standard',
    };
    const content: unknown[] = [
      ...(reply.raw ?? []),
      ...(reply.text !== undefined ? [{ type: 'text', text: reply.text, citations: null }] : []),
      ...calls.map(({ text: _text, ...block }) => block),
    ];
    const message = (blocks: unknown[], stop: string | null, u: Json) => ({
      id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage: u,
    });
    if (!request.stream) return { json: message(content, stopReason, fullUsage) };

    const events: SseEvent[] = [];
    const emit = (type: string, fields: Json) => events.push({ event: type, data: JSON.stringify({ type, ...fields }) });
    emit('message_start', { message: message([], null, { ...fullUsage, output_tokens: 1 }) });
    emit('ping', {});
    let index = 0;
    for (const block of reply.raw ?? []) {
      emit('content_block_start', { index, content_block: block });
      emit('content_block_stop', { index: index++ });
    }
    if (reply.text !== undefined) {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (reply.text) for (const text of fragments(reply.text)) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
      emit('content_block_stop', { index: index++ });
    }
    for (const call of calls) {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {}, caller: call.caller } });
      for (const partial_json of ['', ...fragments(call.text)]) emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      emit('content_block_stop', { index: index++ });
    }
    emit('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } });
    emit('message_stop', {});
    return { events };
  };

  const builders = { chat, responses, messages };

  const handle = async (req: IncomingMessage, res: ServerResponse, rawBody: string) => {
    const path = req.url ?? '/';
    const api = req.method === 'POST' ? ROUTES[path.split('?')[0]!] : undefined;
    const requestId = nextId('req');
    const idHeader: Record<string, string> = api === 'messages' ? { 'request-id': requestId } : { 'x-request-id': requestId };
    if (!api) {
      const isAnthropic = 'x-api-key' in req.headers || 'anthropic-version' in req.headers;
      return sendJson(res, 404, errorBody(isAnthropic ? 'messages' : 'chat', 404, `model-server: no route ${req.method} ${path}`, requestId), { 'x-should-retry': 'false', ...idHeader });
    }
    let body: any;
    try {
      body = rawBody ? JSON.parse(rawBody) : {};
    } catch {
      return sendJson(res, 400, errorBody(api, 400, 'model-server: the request body is not JSON', requestId), { 'x-should-retry': 'false', ...idHeader });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    const request: RecordedRequest = { api, path, headers, body, stream: body?.stream === true };
    requests.push(request);

    let reply: ScriptedReply | undefined;
    try {
      reply = nextReply(request);
    } catch (error) {
      return sendJson(res, 500, errorBody(api, 500, `model-server: the script function threw: ${String(error)}`, requestId), { 'x-should-retry': 'false', ...idHeader });
    }
    if (!reply) {
      const message = `model-server: script exhausted: no reply scripted for request #${answered} (${req.method} ${path})`;
      return sendJson(res, 500, errorBody(api, 500, message, requestId), { 'x-should-retry': 'false', ...idHeader });
    }
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.status) {
      const headers: Record<string, string> = { ...idHeader };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      return sendJson(res, reply.status, errorBody(api, reply.status, reply.errorMessage, requestId), headers);
    }
    const tools = body?.tools;
    if (reply.refuseStreamingTools && request.stream && Array.isArray(tools) && tools.length > 0) {
      const message = 'model-server: streaming with tools is not supported by this server; send stream: false';
      return sendJson(res, 400, errorBody(api, 400, message, requestId), idHeader);
    }
    const answer = builders[api](reply, request, usageOf(reply, rawBody));
    if ('json' in answer) return sendJson(res, 200, answer.json, idHeader);
    await sendSse(res, answer.events, idHeader, reply.cutAfterEvents);
  };

  const server: Server = createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `model-server: ${String(error)}`, type: 'server_error', code: null } }, { 'x-should-retry': 'false' });
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(next) {
      replies = next;
      answered = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
