import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/** A web-standard MCP handler: what `createMcpHandler` returns. */
export interface FetchHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

/** The client going away before its answer was written: what must stop then (the request, the answer's stream). */
export class Departure {
  gone = false;
  private readonly stops: (() => void)[] = [];

  constructor(res: ServerResponse, done: () => boolean) {
    res.once('close', () => {
      if (done()) return;
      this.gone = true;
      for (const stop of this.stops.splice(0)) stop();
    });
    if (res.destroyed) this.gone = true;
  }

  /** Runs `stop` when the client goes (at once when it has); returns what takes it back. */
  on(stop: () => void): () => void {
    if (this.gone) {
      stop();
      return () => undefined;
    }
    this.stops.push(stop);
    return () => {
      const at = this.stops.indexOf(stop);
      if (at >= 0) this.stops.splice(at, 1);
    };
  }
}

/**
 * One request to a web-standard MCP handler (the 2026-07-28 handler, a 2025-11-25 session's
 * transport) on Node's HTTP server, its JSON body (for a POST) read, bounded and parsed already
 * (`readJson`) and handed to the handler as such. The SDK's Node adapters build a web `Request`
 * with the body again (`toNodeHandler` serialises the parsed body back to text for undici to
 * stream; `NodeStreamableHTTPServerTransport` goes through @hono/node-server), for handlers that
 * never read it. These handlers read of their request only its method, its headers
 * (`headers.get`) and its signal (the 2026-07-28 handler: a call's and a listen stream's
 * cancellation), as @modelcontextprotocol/server 2.4 does (`createMcpHandler`,
 * `PerRequestHTTPServerTransport`, `WebStandardStreamableHTTPServerTransport`): they get a view of
 * the Node request with just those, the signal made only when read. A `Request` built per request
 * (URL, headers copied, signal linked) cost more than the rest of serve's HTTP layer. The answer:
 * a JSON one is written whole with its length, in one write; an SSE one is streamed as it comes,
 * each chunk corked until the end of its tick so that what follows it at once goes in the same
 * write (a call's answer that ends its stream: headers, event and end in one write, where the
 * adapters made two or three), waiting for the socket to drain. Together about a fifth of a call's
 * CPU (issue 24). The serve tests (both eras, every method, cancellation, streams) and the MCP
 * conformance legs hold that the handlers need nothing more.
 */
export async function serveWebRequest(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>, onerror: (error: Error) => void, parsedBody?: unknown): Promise<void> {
  let finished = false;
  const departure = new Departure(res, () => finished);
  let response: Response;
  try {
    response = await handle(requestView(req, departure));
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
  await pipeStream(response.body, res, departure);
  finished = true;
  res.end();
}

/**
 * The method, the headers and the cancellation of a Node request, read as a web `Request`'s are
 * (names in any case; a header sent twice joined with ", "); the signal is made when read.
 */
export function requestView(req: IncomingMessage, departure: Departure): Request {
  return new RequestView(req, departure) as unknown as Request;
}

/**
 * Classes, not object literals: V8 makes a literal with a getter (`get signal()`) in dictionary
 * mode, so every request's view was built by a runtime call and every read of it by the SDK was a
 * hash lookup (the executor's call context had the same cost: execute/call-context.ts, issue 24).
 */
class RequestView {
  readonly method: string;
  readonly headers: NodeHeaders;
  private gone: AbortController | undefined;

  constructor(
    req: IncomingMessage,
    private readonly departure: Departure,
  ) {
    this.method = req.method ?? 'POST';
    this.headers = new NodeHeaders(req.headers);
  }

  get signal(): AbortSignal {
    if (!this.gone) {
      const controller = (this.gone = new AbortController());
      this.departure.on(() => controller.abort());
    }
    return this.gone.signal;
  }
}

class NodeHeaders {
  constructor(private readonly headers: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.headers[name.toLowerCase()] !== undefined;
  }
}

/** A 2026-07-28 handler (`createMcpHandler`) on Node's HTTP server, for POSTs toolman has parsed (see serveWebRequest). */
export function parsedBodyHandler(handler: FetchHandler, onerror: (error: Error) => void) {
  return (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown): Promise<void> =>
    serveWebRequest(req, res, (request) => handler.fetch(request, { ...(req.auth !== undefined ? { authInfo: req.auth } : {}), parsedBody }), onerror, parsedBody);
}

/**
 * Writes a stream's chunks as they come, waiting when the socket is full; stops when the client
 * is gone (the stream is cancelled: the transport's end of it learns so).
 */
async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse, departure: Departure): Promise<void> {
  const reader = body.getReader();
  const forget = departure.on(() => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || departure.gone) return;
      const room = writeInTick(res, value);
      if (!room) {
        await new Promise<void>((resolve) => {
          let stopWaiting = () => undefined as void;
          const go = () => {
            res.off('drain', go);
            stopWaiting();
            resolve();
          };
          res.on('drain', go);
          stopWaiting = departure.on(go);
        });
      }
    }
  } catch {
    // The stream failed or was cancelled (the client left): the answer ends here.
  } finally {
    forget();
    reader.releaseLock();
  }
}

function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Writes `chunk` corked until the end of this tick, so that what follows it at once (the next
 * event, the end of the answer) goes out in the same write; returns `write`'s answer (room left).
 * An `end()` meanwhile uncorks fully, and the later uncork finds nothing left to do.
 */
export function writeInTick(res: ServerResponse, chunk: string | Uint8Array): boolean {
  res.cork();
  const room = res.write(chunk);
  process.nextTick(() => res.uncork());
  return room;
}
