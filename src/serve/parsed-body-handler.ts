import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/** A web-standard MCP handler: what `createMcpHandler` returns. */
export interface FetchHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

/** Headers that describe a body: the web request made here has none (the handler is given the parsed body). */
const BODY_HEADERS: ReadonlySet<string> = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * A web-standard handler on Node's HTTP server, for POSTs whose JSON body toolman has read,
 * bounded and parsed already (`readJson`). The SDK's own adapter (`toNodeHandler` in
 * @modelcontextprotocol/node) serialises the parsed body back to text and gives it to the web
 * `Request`, where undici wraps it in a stream, for a handler that is handed the parsed body as
 * well and never reads the stream (`classifyEntryRequest` reads a body only when none is given);
 * here the `Request` carries the method, the headers and the cancellation, and no body: about a
 * twentieth of a 2026-07-28 call's CPU (issue 24). A JSON answer is written whole, with its
 * length, in one write (the adapter streamed it chunked: a second write for the end); an SSE
 * answer (progress, `subscriptions/listen`) is streamed, waiting for the socket to drain.
 *
 * `origin` gives the endpoint's own (`http://host:port`): the request's URL is built on it, not on
 * the Host header (checked by the guard, but a value no URL can hold would fail the request).
 */
export function parsedBodyHandler(handler: FetchHandler, origin: () => string, onerror: (error: Error) => void) {
  return async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown): Promise<void> => {
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
      const request = new Request(origin() + (req.url ?? '/'), { method: req.method ?? 'POST', headers, signal: gone.signal });
      response = await handler.fetch(request, { ...(req.auth !== undefined ? { authInfo: req.auth } : {}), parsedBody });
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
  };
}

/** Writes a stream's chunks as they come, waiting when the socket is full; stops when the client is gone. */
async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse, gone: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  gone.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone.aborted) return;
      if (!res.write(value)) {
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
