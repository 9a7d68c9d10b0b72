import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { Headers as FetchHeaders } from '../shared/fetch-headers.js';
import { PROVIDER_ENV } from './credentials.js';
import type { ProviderName } from './types.js';

/** Why a model call failed, in the loop's terms. */
export type ModelFailureKind = 'auth' | 'model_not_found' | 'endpoint_not_found' | 'rate_limited' | 'server' | 'bad_request' | 'network' | 'stream_dropped' | 'cancelled';

/** A failed model call: the message says what happened and the hint what to do. */
export class ModelCallError extends ToolmanError {
  constructor(
    readonly kind: ModelFailureKind,
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs: number | undefined,
    hint?: string,
  ) {
    super(ErrorCode.PROVIDER, message, hint ? { hint } : {});
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'server' || this.kind === 'network';
  }
}

interface SdkErrorLike {
  status?: number;
  name?: string;
  message?: string;
  /** A reply's headers: Node's Headers (live) or toolman's (replayed), both `instanceof FetchHeaders`. */
  headers?: FetchHeaders | Record<string, string | null | undefined>;
  error?: { message?: string; code?: unknown; type?: unknown; error?: { message?: string; type?: unknown } };
  cause?: unknown;
}

/**
 * An SDK's error (openai and @anthropic-ai/sdk throw APIError subclasses with `status` and
 * `headers`, APIConnectionError without a status, APIUserAbortError when cancelled) as a
 * ModelCallError that says what happened and what to do. The API's own message is kept.
 */
export function modelCallError(error: unknown, provider: ProviderName, model: string, baseUrl: string | undefined): ModelCallError {
  if (error instanceof ModelCallError) return error;
  const e = (error ?? {}) as SdkErrorLike;
  // A failure of toolman's own transport (a replay with no matching recording) arrives wrapped by the SDK.
  if (e.cause instanceof ModelCallError) return e.cause;
  const label = PROVIDER_ENV[provider].label;
  const where = baseUrl ?? `the ${label} API`;
  const detail = apiMessage(e);
  if (e.name === 'AbortError' || e.name === 'APIUserAbortError' || /aborted/i.test(e.message ?? '')) return new ModelCallError('cancelled', 'the request was cancelled', undefined, undefined);
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status === undefined) {
    // The SDKs parse a reply (or each streamed event) with JSON.parse and let its SyntaxError out:
    // the server answered, so this is no network failure. V8's message quotes the reply, which is
    // untrusted: it is left out. Retried like a server error (a garbled reply is most often a
    // proxy's passing fault); one that arrives mid-stream is not (withRetries).
    if (e.name === 'SyntaxError') return new ModelCallError('server', `the reply from ${where} is not valid JSON`, undefined, undefined, 'the server (or a proxy in between) sent something that is not the API\'s format; try again, and check --base-url if it keeps happening');
    const cause = e.cause instanceof Error ? `: ${(e.cause as NodeJS.ErrnoException).code ?? ''} ${e.cause.message}`.replace(/: +/, ': ') : detail ? `: ${detail}` : '';
    return new ModelCallError('network', `cannot reach ${where}${cause}`, undefined, undefined, `check the network${PROVIDER_ENV[provider].baseUrl ? ` and ${PROVIDER_ENV[provider].baseUrl} / --base-url` : ''}`);
  }
  const retryAfterMs = retryAfter(e.headers);
  if (status === 401 || status === 403) return new ModelCallError('auth', `${label} refused the API key (HTTP ${status})${detail ? `: ${detail}` : ''}`, status, undefined, `check ${PROVIDER_ENV[provider].key[0]}`);
  if (status === 404) return notFound(e, provider, model, baseUrl, detail);
  if (status === 429) return new ModelCallError('rate_limited', `${label} is rate limiting requests (HTTP 429)${detail ? `: ${detail}` : ''}`, status, retryAfterMs, 'wait a little, or lower the request rate');
  if (status >= 500) return new ModelCallError('server', `${label} failed (HTTP ${status})${detail ? `: ${detail}` : ''}`, status, retryAfterMs, 'the provider had a problem; try again');
  return new ModelCallError('bad_request', `${label} refused the request (HTTP ${status})${detail ? `: ${detail}` : ''}`, status, undefined, 'toolman sent something this API or model does not take; the transcript has the request');
}

/** The paths each provider's client posts to, after its base URL (the SDKs' defaults when none is set). */
const ENDPOINTS: Record<ProviderName, { base: string; path: string }> = {
  openai: { base: 'https://api.openai.com/v1', path: '/chat/completions' },
  'openai-responses': { base: 'https://api.openai.com/v1', path: '/responses' },
  // The Gemini client is the Chat Completions client on Gemini's OpenAI-compatible base (gemini-chat-client.ts).
  gemini: { base: 'https://generativelanguage.googleapis.com/v1beta/openai', path: '/chat/completions' },
  anthropic: { base: 'https://api.anthropic.com', path: '/v1/messages' },
};

/** The URL a model request went to: the client's base URL and its provider's path. */
export function endpointUrl(provider: ProviderName, baseUrl: string | undefined): string {
  const { base, path } = ENDPOINTS[provider];
  return `${(baseUrl ?? base).replace(/\/+$/, '')}${path}`;
}

/**
 * A 404 says which URL answered and what that usually means. It is an unknown model only when the
 * answer says so: OpenAI's `code: "model_not_found"`, Anthropic's `not_found_error` about the
 * model, or any error text naming the model (Ollama's "model "x" not found", Gemini's "models/x is
 * not found"). Anything else (`404 page not found`, `{"detail": "Not Found"}`) is a path the
 * server does not serve: most often a compatible server's base URL without `/v1`, or one without
 * the Responses API.
 */
function notFound(e: SdkErrorLike, provider: ProviderName, model: string, baseUrl: string | undefined, detail: string): ModelCallError {
  const label = PROVIDER_ENV[provider].label;
  const url = endpointUrl(provider, baseUrl);
  const about = `HTTP 404 from POST ${url}${detail ? `: ${detail}` : ''}`;
  const aboutModel = e.error?.code === 'model_not_found' || (e.error?.error?.type === 'not_found_error' && /model/i.test(detail)) || (model !== '' && detail.includes(model));
  if (aboutModel) return new ModelCallError('model_not_found', `${label} has no model "${model}" (${about})`, 404, undefined, 'check --model (and --base-url for a local server)');
  const hints = [
    baseUrl !== undefined && provider !== 'anthropic' && !/\/v\d[\w.]*\/?$/.test(baseUrl) && provider !== 'gemini' ? `OpenAI-compatible servers usually serve under /v1: try --base-url ${baseUrl.replace(/\/+$/, '')}/v1` : '',
    provider === 'openai-responses' ? 'a server without the Responses API answers 404 here: -P openai uses Chat Completions (/chat/completions), which compatible servers serve' : '',
    provider === 'anthropic' && baseUrl !== undefined ? 'ANTHROPIC_BASE_URL / --base-url is the server\'s root: toolman adds /v1/messages' : '',
  ].filter(Boolean);
  return new ModelCallError('endpoint_not_found', `POST ${url} answered HTTP 404${detail ? ` (${detail})` : ''}: the server has no such endpoint, so no model was asked`, 404, undefined, hints.length ? hints.join('; ') : `check --base-url (and ${PROVIDER_ENV[provider].baseUrl}): the model request went to ${url}`);
}

/** The most of an API's error text a message keeps: a proxy's 502 page can be kilobytes of HTML. */
export const MAX_API_MESSAGE = 300;

function apiMessage(e: SdkErrorLike): string {
  const nested = e.error?.error?.message ?? e.error?.message;
  // The SDKs prefix the status to the message ("429 Too many requests"): keep what follows.
  const text = typeof nested === 'string' && nested ? nested : (e.message ?? '').replace(/^\d{3}\s*/, '');
  return shortText(text);
}

/** An error body as one short line: markup and scripts out, whitespace folded, cut with an ellipsis. */
export function shortText(text: string): string {
  const plain = text
    .slice(0, 20_000) // the patterns below stay cheap on a body of any size
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]{0,2000}>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > MAX_API_MESSAGE ? `${plain.slice(0, MAX_API_MESSAGE - 1)}…` : plain;
}

function retryAfter(headers: SdkErrorLike['headers']): number | undefined {
  // toolman's Headers answers `instanceof` for its own (a replayed reply's) and Node's (a live
  // one's), and never loads Node's fetch to ask: the global would miss a replay's retry-after.
  const value = headers instanceof FetchHeaders ? headers.get('retry-after') : headers?.['retry-after'];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/**
 * Calls `attempt` and retries what is worth retrying (rate limits, server errors, network
 * failures) up to `maxRetries` times, waiting as the server asks (retry-after, at most 20 s) or
 * 0.5 s, 1 s, 2 s...; each retry is announced. `attempt` says through `started()` once output
 * reached the user: a stream cut after that is not retried (the text would repeat), it fails.
 */
export async function withRetries<T>(
  attempt: (started: () => void) => Promise<T>,
  hooks: { signal: AbortSignal; onRetry?: (notice: { attempt: number; status?: number; waitMs: number; reason: string }) => void },
  toError: (error: unknown) => ModelCallError,
  maxRetries = 2,
): Promise<T> {
  for (let tries = 0; ; tries++) {
    let begun = false;
    try {
      return await attempt(() => (begun = true));
    } catch (raw) {
      const error = toError(raw);
      if (hooks.signal.aborted) throw new ModelCallError('cancelled', 'the request was cancelled', undefined, undefined);
      if (!error.retryable || begun || tries >= maxRetries) throw begun && error.kind === 'network' ? new ModelCallError('stream_dropped', `the reply stopped in the middle: ${error.message}`, undefined, undefined, 'what arrived is kept; ask again to continue') : error;
      const waitMs = Math.min(20_000, error.retryAfterMs ?? 500 * 2 ** tries);
      hooks.onRetry?.({ attempt: tries + 1, ...(error.status !== undefined ? { status: error.status } : {}), waitMs, reason: error.message });
      await sleep(waitMs, hooks.signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
