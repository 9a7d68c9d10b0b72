import { describe, expect, it } from 'vitest';
import { RecordedResponse } from '../../src/loop/recorded-response.js';

// A replayed reply must read as Node's own `new Response(text, { status, headers })` would: the
// same operations on both give the same answers (or the same kind of error).
type Reader = (r: Response) => unknown;

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<unknown> {
  if (!stream) return null;
  const chunks: number[][] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push([value.constructor.name.length, ...value]);
  }
}

async function outcome(make: () => Response, steps: Reader[]): Promise<unknown[]> {
  let response: Response;
  try {
    response = make();
  } catch (error) {
    return [`throws ${(error as Error).constructor.name}`];
  }
  const results: unknown[] = [];
  const look = (r: Response) => [r.type, r.url, r.redirected, r.status, r.ok, r.statusText, [...r.headers], r.body === null, r.bodyUsed, Object.prototype.toString.call(r)];
  results.push(look(response));
  for (const step of steps) {
    try {
      const value = await step(response);
      results.push(value instanceof ArrayBuffer ? ['ArrayBuffer', ...new Uint8Array(value)] : value instanceof Uint8Array ? ['Uint8Array', ...value] : value === undefined ? 'ok' : value);
    } catch (error) {
      results.push(`throws ${(error as Error).constructor.name}`);
    }
    results.push(look(response));
  }
  return results;
}

async function same(body: string | null, init: { status?: number; headers?: Record<string, string> }, steps: Reader[]) {
  const ours = await outcome(() => new RecordedResponse(body, init) as unknown as Response, steps);
  const node = await outcome(() => new Response(body, init), steps);
  expect(ours).toEqual(node);
}

describe('RecordedResponse (a replayed reply) reads as Node\'s own Response', () => {
  it('status, headers, text and JSON (a byte order mark dropped, bad bytes replaced), each body read once', async () => {
    await same('{"a": 1, "b": "h\u00e9"}', { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' } }, [(r) => r.json(), (r) => r.text(), (r) => r.json()]);
    await same('\ufeff{"a": 1}', { status: 201 }, [(r) => r.json()]);
    await same('plain text', {}, [(r) => r.text(), (r) => r.arrayBuffer()]);
    await same('{bad json', { status: 500, headers: { 'retry-after': '0' } }, [(r) => r.json(), (r) => r.text()]);
    await same('', { status: 200 }, [(r) => r.text(), (r) => r.text()]);
    await same('\ud800 lone surrogate', { status: 200 }, [(r) => (r as unknown as { bytes(): Promise<Uint8Array> }).bytes()]);
    await same('bytes', { status: 299 }, [(r) => r.arrayBuffer(), (r) => (r as unknown as { bytes(): Promise<Uint8Array> }).bytes()]);
  });

  it('the body as a stream: one chunk of all the bytes; read or locked, the body is unusable', async () => {
    const stream = 'data: {"x":1}\n\ndata: [DONE]\n\n';
    await same(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } }, [(r) => readAll(r.body), (r) => r.text()]);
    await same(stream, {}, [
      (r) => {
        r.body!.getReader();
        return r.body!.locked;
      },
      (r) => r.text(),
      (r) => r.clone(),
    ]);
    await same('', {}, [(r) => readAll(r.body)]);
  });

  it('no body for 204, 205 and 304; a body there, or a status out of range, is refused', async () => {
    for (const status of [204, 205, 304]) {
      await same(null, { status }, [(r) => r.text(), (r) => readAll(r.body), (r) => r.arrayBuffer()]);
      await same('x', { status }, []);
    }
    for (const status of [199, 600, 100, 42]) await same('x', { status }, []);
    await same(null, { status: 404 }, [(r) => r.text()]);
  });

  it('clone gives the same reply, each readable once; a used body cannot be cloned', async () => {
    await same('{"a":1}', { status: 429, headers: { 'retry-after': '0' } }, [
      async (r) => {
        const copy = r.clone();
        return [await copy.text(), copy.status, [...copy.headers], copy.bodyUsed, await r.text()];
      },
      (r) => r.clone(),
    ]);
  });

  it('blob and formData are Node\'s own, from the same bytes', async () => {
    await same('a=1&b=two', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }, [async (r) => [...(await r.formData())]]);
    await same('blob text', { headers: { 'content-type': 'text/plain' } }, [async (r) => { const b = await r.blob(); return [b.type, await b.text()]; }]);
    await same('{}', { headers: { 'content-type': 'application/json' } }, [(r) => r.formData()]);
  });
});
