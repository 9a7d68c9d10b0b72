import { APIError as AnthropicError } from '@anthropic-ai/sdk';
import { APIError as OpenAIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { RecordedResponse } from '../../src/loop/recorded-response.js';
import { endpointUrl, modelCallError } from '../../src/providers/model-errors.js';

// Errors as the official SDKs build them from an HTTP answer (status, parsed body, text).
const openai404 = (body: unknown, text: string) => OpenAIError.generate(404, body as object, text, new Headers());
const anthropic404 = (body: unknown, text: string) => AnthropicError.generate(404, body as object, text, new Headers());

describe('a 404 from a model API says which URL answered and what it means', () => {
  it('knows the URL each provider posts to, with and without a base URL', () => {
    expect(endpointUrl('openai', undefined)).toBe('https://api.openai.com/v1/chat/completions');
    expect(endpointUrl('openai-responses', 'http://localhost:11434/v1/')).toBe('http://localhost:11434/v1/responses');
    expect(endpointUrl('anthropic', undefined)).toBe('https://api.anthropic.com/v1/messages');
  });

  it('an unknown model only when the answer says so: OpenAI\'s code, Anthropic\'s not_found_error, or the model named', () => {
    const openai = modelCallError(openai404({ error: { message: 'The model `gpt-9` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } }, '404 The model'), 'openai', 'gpt-9', undefined);
    expect(openai.kind).toBe('model_not_found');
    expect(openai.message).toContain('OpenAI has no model "gpt-9" (HTTP 404 from POST https://api.openai.com/v1/chat/completions: The model `gpt-9` does not exist');
    const anthropic = modelCallError(anthropic404({ type: 'error', error: { type: 'not_found_error', message: 'model: claude-x' } }, '404'), 'anthropic', 'claude-x', undefined);
    expect(anthropic.kind).toBe('model_not_found');
    const ollama = modelCallError(openai404({ error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error' } }, '404'), 'openai', 'llama9', 'http://localhost:11434/v1');
    expect(ollama.kind).toBe('model_not_found');
  });

  it('any other 404 is a path the server does not serve, with the usual cause as the hint', () => {
    const noV1 = modelCallError(openai404(undefined, '404 page not found'), 'openai', 'gpt-4o', 'http://localhost:11434');
    expect(noV1.kind).toBe('endpoint_not_found');
    expect(noV1.message).toBe('POST http://localhost:11434/chat/completions answered HTTP 404 (404 page not found): the server has no such endpoint, so no model was asked');
    expect(noV1.hint).toContain('try --base-url http://localhost:11434/v1');
    const noResponses = modelCallError(openai404({ detail: 'Not Found' }, '404 Not Found'), 'openai-responses', 'gpt-4o', 'http://127.0.0.1:8000/v1');
    expect(noResponses.kind).toBe('endpoint_not_found');
    expect(noResponses.message).toContain('POST http://127.0.0.1:8000/v1/responses answered HTTP 404');
    expect(noResponses.hint).toContain('-P openai uses Chat Completions');
    expect(noResponses.hint).not.toContain('/v1/v1');
  });
});

describe('a rate limit or server error says how long to wait, from any reply\'s headers', () => {
  // A replayed reply carries toolman's Headers (src/shared/fetch-headers.ts), a live one Node's:
  // the SDK's error holds the reply's headers, and both must give their retry-after.
  const replayed = (status: number, retryAfter: string) => new RecordedResponse('{}', { status, headers: { 'retry-after': retryAfter } }).headers as unknown as Headers;
  const live = (retryAfter: string) => new Headers({ 'retry-after': retryAfter });
  it.each([
    ['openai', (status: number, headers: Headers) => OpenAIError.generate(status, { error: { message: 'slow down' } }, 'slow down', headers)],
    ['anthropic', (status: number, headers: Headers) => AnthropicError.generate(status, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, 'slow down', headers)],
  ] as const)('%s: 429 and 5xx, replayed and live', (provider, make) => {
    for (const status of [429, 503]) {
      expect(modelCallError(make(status, replayed(status, '0')), provider, 'm', undefined).retryAfterMs).toBe(0);
      expect(modelCallError(make(status, replayed(status, '7')), provider, 'm', undefined).retryAfterMs).toBe(7000);
      expect(modelCallError(make(status, live('7')), provider, 'm', undefined).retryAfterMs).toBe(7000);
    }
  });
});

describe('a reply that is not JSON is the server answering, not a network failure', () => {
  // What the real SDKs throw when a reply or a streamed event does not parse (their logger silenced).
  const logger = { error() {}, warn() {}, info() {}, debug() {} };
  const sse = (text: string) => async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } });

  it('says so for OpenAI and Anthropic streams, without quoting the reply, and is retried like a server error', async () => {
    const { default: OpenAI } = await import('openai');
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const thrown: unknown[] = [];
    try {
      const stream = await new OpenAI({ apiKey: 'k', fetch: sse('data: {"secret-ish \u001b[2J\n\n'), logger, maxRetries: 0 }).chat.completions.create({ model: 'm', messages: [], stream: true });
      for await (const _ of stream) void _;
    } catch (error) {
      thrown.push(error);
    }
    try {
      const stream = await new Anthropic({ apiKey: 'k', fetch: sse('event: message_start\ndata: {"secret-ish\n\n'), logger, maxRetries: 0 }).messages.create({ model: 'm', max_tokens: 5, messages: [], stream: true });
      for await (const _ of stream) void _;
    } catch (error) {
      thrown.push(error);
    }
    expect(thrown).toHaveLength(2);
    for (const [i, raw] of thrown.entries()) {
      const error = modelCallError(raw, i === 0 ? 'openai' : 'anthropic', 'm', 'http://127.0.0.1:9/v1');
      expect(error.kind).toBe('server');
      expect(error.retryable).toBe(true);
      expect(error.message).toBe('the reply from http://127.0.0.1:9/v1 is not valid JSON');
      expect(error.message).not.toContain('cannot reach');
    }
  });
});
