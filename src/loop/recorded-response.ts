import * as nodeStream from 'node:stream';
import { Headers } from '../shared/fetch-headers.js';

/** Whether a stream was read from (Node's own, as undici asks; stable since Node 16.8, not in @types/node 20). */
const isDisturbed = (nodeStream as unknown as { isDisturbed(stream: ReadableStream): boolean }).isDisturbed;

/** Statuses whose response has no body (the Fetch standard's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A recorded reply as the `Response` a provider SDK reads, made without Node's fetch: Node 20's
 * global `Response` loads all of it (undici, with http, http2, tls), about 17 ms of CPU of every
 * replayed run, which opens no connection (src/shared/fetch-headers.ts says the same of `Headers`).
 * It is what `new Response(body, { status, headers })` gives for a recorded text body: the same
 * bytes as a byte stream (one chunk when short, a long one in network-sized reads: see
 * bytesStream), the same status, headers and body rules (a body is read once; read or locked, it
 * is unusable: TypeError), checked against Node's own Response member by member
 * (test/loop/recorded-response.test.ts). `blob()` and `formData()`, which no SDK asks of a
 * chat reply, are Node's own, made from the same bytes when asked for.
 */
export class RecordedResponse {
  readonly type = 'default';
  readonly url = '';
  readonly redirected = false;
  readonly statusText = '';
  readonly status: number;
  readonly headers: Headers;
  #body: ReadableStream<Uint8Array> | null;

  /** `body`: the recorded text; a stream only from `clone()`. */
  constructor(body: string | ReadableStream<Uint8Array> | null, init: { status?: number; headers?: Record<string, string> | Headers } = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`Response constructor: Invalid response status code ${status}`);
    if (body !== null && NULL_BODY_STATUSES.has(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
    this.status = status;
    this.headers = new Headers(init.headers);
    // Node's content type for a text body (undici's extractBody), unless the headers name one.
    if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8');
    this.#body = typeof body === 'string' ? bytesStream(body) : body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#body !== null && isDisturbed(this.#body);
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#consume();
  }

  async text(): Promise<string> {
    // The standard's "UTF-8 decode": a byte order mark dropped, bad bytes replaced.
    return new TextDecoder().decode(await this.#consume());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return (await this.#asNodeResponse()).blob();
  }

  async formData(): Promise<FormData> {
    return (await this.#asNodeResponse()).formData();
  }

  clone(): RecordedResponse {
    if (this.#unusable()) throw new TypeError('Response.clone: Body has already been consumed.');
    let theirs: ReadableStream<Uint8Array> | null = null;
    if (this.#body) [this.#body, theirs] = this.#body.tee();
    return new RecordedResponse(theirs, { status: this.status, headers: this.headers });
  }

  #unusable(): boolean {
    return this.#body !== null && (isDisturbed(this.#body) || this.#body.locked);
  }

  /** All of the body's bytes, read from its stream as Node's Response reads its own. */
  async #consume(): Promise<Uint8Array> {
    if (this.#unusable()) throw new TypeError('Body is unusable: Body has already been read');
    if (this.#body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    const reader = this.#body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  async #asNodeResponse(): Promise<Response> {
    const bytes = await this.#consume();
    return new globalThis.Response(this.#body === null ? null : bytes, { status: this.status, headers: [...this.headers] });
  }
}

/**
 * The most bytes one read of a replayed body gives: about what a live connection delivers at once.
 * A recording is untrusted and may be large, and the SDKs' SSE readers copy the rest of a chunk
 * for every event they cut from it: a 30 MB stream given as one chunk (as Node's Response gives a
 * string body) took 30-35 s to replay, in chunks of this size it is linear (2026-11-24, Node 20.20,
 * test/loop/recorded-response-chunks.test.ts).
 */
export const MOST_BYTES_PER_READ = 64 * 1024;

/** The text's UTF-8 bytes as a byte stream, in reads of at most MOST_BYTES_PER_READ (one for a short text, none for ""). */
function bytesStream(text: string): ReadableStream<Uint8Array> {
  let bytes: Uint8Array | undefined;
  let at = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      bytes ??= new TextEncoder().encode(text);
      const length = bytes.length;
      if (at < length) {
        const end = Math.min(at + MOST_BYTES_PER_READ, length);
        // Bytes of their own (the whole array, or a copy of a part): a byte stream takes (detaches) the buffer it is given.
        controller.enqueue(at === 0 && end === length ? bytes : bytes.slice(at, end));
        at = end;
      }
      if (at >= length) {
        bytes = undefined;
        controller.close();
      }
    },
  }) as ReadableStream<Uint8Array>;
}
