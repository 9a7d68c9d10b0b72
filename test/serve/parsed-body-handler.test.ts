import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parsedBodyHandler, type FetchHandler } from '../../src/serve/parsed-body-handler.js';

// The adapter serve's handlers (2026-07-28, and each 2025-11-25 session's transport) run behind
// (issue 24): the handler reads the request's method and headers as a web Request's and is given
// the parsed body, a JSON answer goes out whole with its length, an SSE answer is streamed, the
// client leaving cancels the request (its signal), and a handler that throws is a 500.

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: FetchHandler, errors: Error[] = []): Promise<string> {
  const node = parsedBodyHandler(handler, (error) => errors.push(error));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void node(Object.assign(req, { auth: { token: 't', clientId: 'c', scopes: [] } }), res, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?x=1`;
}

function post(url: string, body: unknown): Promise<{ res: IncomingMessage; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-two': ['a', 'b'] } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ res, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('parsedBodyHandler', () => {
  it('hands the parsed body and the caller to the handler, with the request\'s method and headers', async () => {
    const seen: { request?: Request; options?: { authInfo?: unknown; parsedBody?: unknown } } = {};
    const url = await serve({
      fetch: async (request, options) => {
        Object.assign(seen, { request, options });
        return Response.json({ jsonrpc: '2.0', id: 1, result: { ok: true } });
      },
    });
    const { res, text } = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    expect(seen.options).toEqual({ authInfo: { token: 't', clientId: 'c', scopes: [] }, parsedBody: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(seen.request!.method).toBe('POST');
    // Names in any case, as a web Headers reads them; a header sent twice joined as one.
    expect(seen.request!.headers.get('Content-Type')).toBe('application/json');
    expect(seen.request!.headers.get('x-two')).toBe('a, b');
    expect(seen.request!.headers.get('mcp-session-id')).toBeNull();
    expect(seen.request!.headers.has('x-two')).toBe(true);
    expect(seen.request!.signal.aborted).toBe(false);
    // Written whole, with its length (not chunked).
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toContain('application/json');
  });

  it('streams an SSE answer as it comes', async () => {
    let push: (text: string) => void = () => undefined;
    let end: () => void = () => undefined;
    // The handler's stream exists only once the request reached it: waiting a fixed time for that
    // raced under load (push and end were still no-ops, and the answer never ended).
    let started: () => void = () => undefined;
    const streaming = new Promise<void>((resolve) => (started = resolve));
    const url = await serve({
      fetch: async () => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (text) => controller.enqueue(new TextEncoder().encode(text));
            end = () => controller.close();
            started();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    const first = new Promise<{ res: IncomingMessage; chunks: string[] }>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: string[] = [];
        res.on('data', (chunk) => {
          chunks.push(String(chunk));
          // The first event arrives before the stream ends.
          if (chunks.length === 1) end();
        });
        res.on('end', () => resolve({ res, chunks }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    await streaming;
    push('event: message\ndata: {"a":1}\n\n');
    const { res, chunks } = await first;
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(chunks.join('')).toBe('event: message\ndata: {"a":1}\n\n');
  });

  it('cancels the request when the client goes away before the answer', async () => {
    let aborted: (() => void) | undefined;
    const cancelled = new Promise<void>((resolve) => (aborted = resolve));
    const url = await serve({
      fetch: (request) =>
        new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => {
            aborted!();
            reject(new Error('gone'));
          });
        }),
    });
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end('{"id":3}');
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();
    await cancelled;
  });

  it('answers 500 with a JSON-RPC error naming the request when the handler throws, and reports it', async () => {
    const errors: Error[] = [];
    const url = await serve({ fetch: async () => Promise.reject(new Error('broken')) }, errors);
    const { res, text } = await post(url, { jsonrpc: '2.0', id: 'r7', method: 'tools/list' });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: 'r7' });
    expect(errors.map((e) => e.message)).toEqual(['broken']);
  });

  it('writes a bodiless answer (202) as it is', async () => {
    const url = await serve({ fetch: async () => new Response(null, { status: 202 }) });
    const { res, text } = await post(url, { jsonrpc: '2.0', method: 'notifications/x' });
    expect(res.statusCode).toBe(202);
    expect(text).toBe('');
  });
});
