import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/** The SDK's own limit for one stdio message. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * MCP over stdio, one JSON-RPC message a line, that keeps serving whatever a client sends.
 * The SDK's StdioServerTransport closes itself on a line over its 10 MiB buffer; here such a
 * line is dropped as it streams in (never held whole) and answered with -32600 "message too
 * large"; a line that is not JSON gets -32700, a JSON value that is not a JSON-RPC message
 * -32600. Each is logged, and the next line is read as usual.
 */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes of the line being dropped, while one is. */
  private dropping: number | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly log: (line: string) => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      const head = newline === -1 ? data : data.subarray(0, newline);
      data = newline === -1 ? Buffer.alloc(0) : data.subarray(newline + 1);
      if (this.dropping !== undefined) this.dropping += head.length;
      else if (this.size + head.length > this.maxBytes) {
        this.dropping = this.size + head.length;
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(head);
        this.size += head.length;
      }
      if (newline === -1) break;
      this.endLine();
    }
  };

  private endLine(): void {
    if (this.dropping !== undefined) {
      const bytes = this.dropping;
      this.dropping = undefined;
      this.log(`dropped an incoming message of ${bytes} bytes: over the ${this.maxBytes}-byte limit for one message; still serving`);
      this.reject(-32600, `message too large: at most ${this.maxBytes} bytes`);
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.log('dropped an incoming line that is not JSON; still serving');
      this.reject(-32700, 'Parse error: the message is not JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.log('dropped an incoming JSON value that is not a JSON-RPC message; still serving');
      const id = (value as { id?: unknown } | null)?.id;
      this.reject(-32600, 'Invalid Request: not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : null);
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private reject(code: number, message: string, id: string | number | null = null): void {
    if (this.closed) return;
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }
}
