import type { IncomingMessage, ServerResponse } from 'node:http';
import { RELATED_TASK_META_KEY, WebStandardStreamableHTTPServerTransport, type AuthInfo, type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { afterThisTurn } from '../shared/after-this-turn.js';
import { Departure, requestView, writeInTick } from './parsed-body-handler.js';

type RequestId = string | number;

/** The SDK transport's interval between SSE keep-alive comments (`DEFAULT_SSE_KEEP_ALIVE_MS`, @modelcontextprotocol/server 2.4). */
export const KEEP_ALIVE_MS = 15_000;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' } as const;

/**
 * The transport of one 2025-11-25 session: the SDK's sessionful streamable HTTP transport
 * (`WebStandardStreamableHTTPServerTransport`) for everything it does (`initialize`, the GET
 * stream, DELETE, notifications and responses from the client, batches, every refusal), and
 * toolman answering the one message that is almost all of a session's traffic itself: a POST of
 * one well-formed JSON-RPC request. For that one, the SDK's transport checks the message again
 * with zod (three schemas, twice each for the result's way back), builds a web `ReadableStream`,
 * `TextEncoder`, `Headers` and `Response`, a keep-alive timer and a stream id (`randomUUID`) per
 * request, and finds the request's stream by a scan of every request in flight: about half of a
 * 2025-11-25 call's CPU (without them a call costs 0.06 ms of the server's CPU instead of 0.13,
 * `bench/serve.mjs`, 2026-11-24, issue 24). Here the request goes to the server as the SDK's transport would hand it on (the
 * same `extra`: the caller, the request), and its answer goes straight to the Node response:
 *  - as JSON (`application/json`, with its length) when the answer is the first thing the server
 *    sends for the request, which the spec allows for any request (2025-11-25
 *    `basic/transports.mdx` §Sending Messages to the Server: "either ... text/event-stream ... or
 *    application/json"; the client MUST support both; read 2026-11-24);
 *  - as an SSE stream, the SDK's headers and event format, once the server sends anything else
 *    first (progress, a log line, a question to the client) or the request outlasts the turn of
 *    the event loop it arrived in (a call that waits, for a tool or a slot): then the headers go
 *    out at once and a keep-alive comment every 15 s, as the SDK's transport does.
 * Anything it is not sure of (another shape of message, an unsupported protocol version header,
 * an Accept without both types, a request id already in flight) takes the SDK's path, which
 * answers it as before; messages the server sends that belong to no request of its own go to the
 * SDK's transport.
 */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly answering = new Map<RequestId, AnsweredRequest>();
  private supportedVersions: readonly string[] | undefined;
  private closed = false;

  constructor(readonly sdk: WebStandardStreamableHTTPServerTransport) {
    sdk.onmessage = (message, extra) => this.onmessage?.(message, extra);
    sdk.onerror = (error) => this.onerror?.(error);
    sdk.onclose = () => {
      this.endAll();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.sdk.sessionId;
  }

  start(): Promise<void> {
    return this.sdk.start();
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedVersions = versions;
    this.sdk.setSupportedProtocolVersions(versions);
  }

  /**
   * Answers a session's request: toolman itself when it is one well-formed JSON-RPC request (see
   * the class), otherwise the SDK's transport through `viaSdk`. Settles once the request's answer
   * has ended (written, its client gone, or the session closed), as `viaSdk` does: the sessions
   * count a session idle from then, not from when a long call came in.
   */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, auth: AuthInfo | undefined, viaSdk: () => Promise<void>): Promise<void> | void {
    if (req.method !== 'POST' || this.closed || this.sessionId === undefined || !isPlainRequest(body) || this.answering.has(body.id) || !this.acceptable(req)) return viaSdk();
    const { id } = body;
    const departure = new Departure(res, () => answer.done);
    const answer = new AnsweredRequest(res, this.sessionId);
    this.answering.set(id, answer);
    // A client gone before its answer: nothing more is written for the request. The server's
    // answer, when it comes, goes to the SDK's transport, which has no stream for it and says so
    // (the server logs a protocol error), as it does for a request of its own whose client left.
    departure.on(() => {
      answer.abandon();
      this.forget(id, answer);
    });
    // What the SDK's transport hands on with a message: the caller and the request.
    const extra: MessageExtraInfo = { request: requestView(req, departure) };
    if (auth !== undefined) extra.authInfo = auth;
    this.onmessage?.(body, extra);
    if (answer.done) return;
    afterThisTurn(() => answer.stream());
    return answer.ended();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const id = response ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    const answer = id === undefined ? undefined : this.answering.get(id);
    if (!answer) return this.sdk.send(message, options);
    answer.write(message, response);
    if (response) this.forget(id!, answer);
  }

  async close(): Promise<void> {
    this.endAll();
    await this.sdk.close();
  }

  private forget(id: RequestId, answer: AnsweredRequest): void {
    if (this.answering.get(id) === answer) this.answering.delete(id);
  }

  private endAll(): void {
    this.closed = true;
    for (const answer of this.answering.values()) answer.end();
    this.answering.clear();
  }

  /** What the SDK's transport checks of a session's POST beyond its message: both types accepted, a protocol version it supports. */
  private acceptable(req: IncomingMessage): boolean {
    const accept = req.headers.accept;
    if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
    const version = req.headers['mcp-protocol-version'];
    return version === undefined || (typeof version === 'string' && this.supportedVersions !== undefined && this.supportedVersions.includes(version));
  }
}

/** What the server sends for one request, written to its Node response: JSON when the answer comes first, else an SSE stream. */
class AnsweredRequest {
  done = false;
  private streaming = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private onEnd: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
  ) {}

  write(message: JSONRPCMessage, last: boolean): void {
    if (this.done) return;
    const text = JSON.stringify(message);
    if (last && !this.streaming) {
      this.finish();
      this.res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': this.sessionId, 'content-length': Buffer.byteLength(text) }).end(text);
      return;
    }
    this.stream();
    // An event and the end that follows it at once go out in one write.
    writeInTick(this.res, `event: message\ndata: ${text}\n\n`);
    if (last) {
      this.finish();
      this.res.end();
    }
  }

  /** Starts the SSE answer (headers now, a keep-alive comment every 15 s) unless it has started or ended. */
  stream(): void {
    if (this.streaming || this.done) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => this.res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** Settles when the answer ends, however it ends. */
  ended(): Promise<void> {
    return new Promise((resolve) => (this.onEnd = resolve));
  }

  /** The session closes: the answer ends as the SDK's transport ends its streams (an SSE stream closed without an answer). */
  end(): void {
    if (this.done) return;
    this.finish();
    if (!this.streaming) this.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    this.res.end();
  }

  /** The client is gone: nothing more is written. */
  abandon(): void {
    this.finish();
  }

  private finish(): void {
    this.done = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.onEnd?.();
  }
}

/**
 * A JSON-RPC request exactly as the SDK's `JSONRPCRequestSchema` accepts it (strict: no other
 * top-level key; an id that is a string or an integer; params an object, its `_meta` an object with
 * a progress token of the same kinds), not `initialize` (which opens a session) and without the
 * 2025-11-25 task metadata the SDK's schema would reshape. Anything else goes the SDK's way.
 */
function isPlainRequest(body: unknown): body is JSONRPCMessage & { id: RequestId; method: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  for (const key in message) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || message.method === 'initialize') return false;
  if (!(typeof message.id === 'string' || Number.isSafeInteger(message.id))) return false;
  const { params } = message;
  if (params === undefined) return true;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const meta = (params as { _meta?: unknown })._meta;
  if (meta === undefined) return true;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || Object.hasOwn(meta, RELATED_TASK_META_KEY)) return false;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token);
}

/** A JSON-RPC response (a result or an error), as the server's messages are told apart: no method, a result or an error. */
function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}
