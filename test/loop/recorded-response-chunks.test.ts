import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { RecordedResponse } from '../../src/loop/recorded-response.js';
import { replayFetch, type RecordedExchange } from '../../src/loop/recording.js';

// A recording is untrusted and may be large: its reply reaches the SDK as a live one would, in
// network-sized chunks. One chunk of all the bytes made the SDKs' SSE readers quadratic (each
// event cut copies the rest of the chunk): a 30 MB recorded stream took 30-35 s to replay.
describe('a large recorded reply is read in bounded chunks', () => {
  it('the body stream gives the same bytes in chunks of at most 64 KiB', async () => {
    const text = 'é'.repeat(200_000) + 'end';
    const reader = new RecordedResponse(text).body!.getReader();
    const sizes: number[] = [];
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sizes.push(value.byteLength);
      parts.push(value);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
    expect(new TextDecoder().decode(Buffer.concat(parts))).toBe(text);
    expect(await new RecordedResponse(text).text()).toBe(text);
  });

  it('the OpenAI SDK streams 12 MB of recorded events in linear time', async () => {
    const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };
    const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const event = chunk('x'.repeat(1000));
    const count = Math.ceil((12 * 1024 * 1024) / event.length);
    const body = event.repeat(count) + 'data: [DONE]\n\n';
    const exchange: RecordedExchange = { type: 'exchange', request: { method: 'POST', path: '/v1/chat/completions', body: request }, response: { status: 200, headers: { 'content-type': 'text/event-stream' }, body } };
    const client = new OpenAI({ apiKey: 'replay', baseURL: 'https://api.example/v1', fetch: replayFetch([exchange], () => undefined), maxRetries: 0 });
    const started = performance.now();
    let seen = 0;
    for await (const part of await client.chat.completions.create(request)) if (part.choices.length) seen++;
    const took = performance.now() - started;
    expect(seen).toBe(count);
    // Linear: well under a second on this machine (one chunk took about 6 s here).
    expect(took).toBeLessThan(3000);
  }, 60_000);
});
