import { ToolFailure } from '../execute/runner.js';

const MAX_REDIRECTS = 5;

export interface AgentFetchOptions {
  /** The agent's name, for messages. */
  agent: string;
  /** Headers from the catalog (secrets already filled in). */
  headers: Record<string, string>;
  /** Origins the headers may go to: the catalog's URL and the interfaces its card names. */
  trusted: Set<string>;
  /** Every response body stops here (the card, JSON-RPC answers, a whole event stream). */
  maxBytes: number;
  /** The call's signal: every request stops with the call (the card resolver passes none of its own). */
  signal?: AbortSignal;
  /** Every origin a request went to, redirects included (the card's fetch: was it all on trusted origins?). */
  visited?: Set<string>;
  /**
   * The first failure this fetch raised: the SDK wraps what fetch throws in its own errors, and
   * the runner reports this one instead, with its clearer message.
   */
  failure?: ToolFailure;
}

/**
 * The fetch the A2A SDK sends through. The catalog's headers (which hold `${env:}` secrets) are
 * added only to requests for trusted origins, and redirects are followed by hand so that a hop to
 * another origin goes without them. Bodies are cut at `maxBytes`: a hostile agent cannot make
 * toolman read without end, whether in one JSON answer or a stream that never stops.
 */
export function agentFetch(options: AgentFetchOptions): typeof fetch {
  return async (input, init = {}) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = init.method ?? (input instanceof Request ? input.method : 'GET');
    let body = init.body;
    const signals = [init.signal, options.signal].filter((s): s is AbortSignal => !!s);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    for (let hop = 0; ; hop++) {
      options.visited?.add(url.origin);
      const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
      if (options.trusted.has(url.origin)) for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
      let response: Response;
      try {
        response = await fetch(url, { ...init, method, headers, body: body ?? null, redirect: 'manual', ...(signal ? { signal } : {}) });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
        const code = (cause as NodeJS.ErrnoException | undefined)?.code;
        throw fail(options, `${options.agent} failed: cannot reach ${url.origin}: ${code ? `${code}: ` : ''}${cause?.message ?? (error instanceof Error ? error.message : String(error))}`);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) throw fail(options, `${options.agent} failed: more than ${MAX_REDIRECTS} redirects`);
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw fail(options, `${options.agent} failed: redirected to a ${next.protocol} URL`);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      return capped(response, options);
    }
  };
}

/** The response with its body cut at `maxBytes` (an error from the stream when it goes over). */
function capped(response: Response, options: AgentFetchOptions): Response {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw fail(options, `${options.agent} failed: the agent's answer is ${declared} bytes, over max_response_bytes (${options.maxBytes})`);
  }
  if (!response.body) return response;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > options.maxBytes) controller.error(fail(options, `${options.agent} failed: the agent's answer went over max_response_bytes (${options.maxBytes}); stopped reading at ${seen} bytes`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}

function fail(options: AgentFetchOptions, message: string): ToolFailure {
  const failure = new ToolFailure(message);
  options.failure ??= failure;
  return failure;
}
