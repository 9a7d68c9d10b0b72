import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/** A web-standard MCP handler: what `createMcpHandler` returns. */
export interface FetchHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

/** Headers that describe a body: the web request made here has none (the handler is given the parsed body). */
const BODY_HEADERS: ReadonlySet<string> = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * One request to a web-standard MCP handler (the 2026-07-28 handler, a 2025-11-25 session's
 * transport) on Node's HTTP server, its JSON body (for a POST) read, bounded and parsed already
 * (`readJson`). The SDK's Node adapters (`toNodeHandler`, and `NodeStreamableHTTPServerTransport`
 * through @hono/node-server) build the web `Request` with the body again (serialised back to
 * text, or read from a stream that is already read) for handlers that are handed the parsed body
 * and never read it; here the `Request` carries the method, the headers and the cancellation, and
 * no body. The answer: a JSON one is written whole with its length, in one write; an SSE one is
 * streamed as it comes, each chunk written with the headers or the end that follow it in the same
 * turn of the event loop (a result that ends its stream at once: headers, event and end in one
 * write, where the adapters made three), waiting for the socket to drain. About a fifth of
 * toolman's CPU per call over the SDK's adapters (issue 24).
 *
 * `origin` gives the endpoint's own (`http://host:port`): the request's URL is built on it, not on
 * the Host header (checked by the guard, but a value no URL can hold would fail the request).
 */
export async function serveWebRequest(req: IncomingMessage, res: ServerResponse, origin: string, handle: (request: Request) => Promise<Response>, onerror: (error: Error) => void, parsedBody?: unknown): Promise<void> {
  // The client going away (the socket closed before the answer was written) cancels the request.
  const gone = new AbortController();
  let finished = false;
  res.once('close', () => {
    if (!finished) gone.abort();
  });
  if (res.destroyed) gone.abort();
  let response: Response;
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || BODY_HEADERS.has(name)) continue;
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else headers.set(name, value);
    }
    response = await handle(new Request(origin + (req.url ?? '/'), { method: req.method ?? 'POST', headers, signal: gone.signal }));
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: requestIdOf(parsedBody) }, { status: 500 });
  }
  const head: Record<string, string> = {};
  for (const [name, value] of response.headers) head[name] = value;
  if (response.body === null) {
    finished = true;
    res.writeHead(response.status, head).end();
    return;
  }
  if (!(head['content-type'] ?? '').includes('text/event-stream')) {
    const whole = Buffer.from(await response.arrayBuffer());
    finished = true;
    head['content-length'] = String(whole.length);
    res.writeHead(response.status, head).end(whole);
    return;
  }
  res.writeHead(response.status, head);
  await pipeStream(response.body, res, gone.signal);
  finished = true;
  res.end();
}

/** A 2026-07-28 handler (`createMcpHandler`) on Node's HTTP server, for POSTs toolman has parsed (see serveWebRequest). */
export function parsedBodyHandler(handler: FetchHandler, origin: () => string, onerror: (error: Error) => void) {
  return (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown): Promise<void> =>
    serveWebRequest(req, res, origin(), (request) => handler.fetch(request, { ...(req.auth !== undefined ? { authInfo: req.auth } : {}), parsedBody }), onerror, parsedBody);
}

/**
 * Writes a stream's chunks as they come, waiting when the socket is full; stops when the client
 * is gone. Each chunk is written corked until the end of the current tick: what follows it at
 * once (the end of a stream that closes after its one event) goes out in the same write.
 */
async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse, gone: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  gone.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone.aborted) return;
      res.cork();
      const room = res.write(value);
      // end() uncorks fully, so this one finds nothing left to do when the stream ended meanwhile.
      process.nextTick(() => res.uncork());
      if (!room) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            gone.removeEventListener('abort', go);
            resolve();
          };
          res.on('drain', go);
          gone.addEventListener('abort', go, { once: true });
        });
      }
    }
  } catch {
    // The stream failed or was cancelled (the client left): the answer ends here.
  } finally {
    gone.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}

function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
