import { describe, expect, it } from 'vitest';
import { readRecording, replayFetch, ReplayMismatchError, type RecordedExchange } from '../../src/loop/recording.js';

const exchange = (body: unknown, answer: string): RecordedExchange => ({ type: 'exchange', request: { method: 'POST', path: '/v1/chat/completions', body }, response: { status: 200, headers: { 'content-type': 'application/json' }, body: answer } });
const post = (fetch: typeof globalThis.fetch, body: string) => fetch('https://api.example/v1/chat/completions', { method: 'POST', body }).then((r) => r.text());

describe('replay: which recorded exchange answers a request', () => {
  const recorded = [exchange({ model: 'm', messages: [{ role: 'user', content: 'one' }], tools: [{ a: 1, b: [1, 2] }] }, 'first'), exchange({ model: 'm', messages: [{ role: 'user', content: 'two' }] }, 'second')];

  it('a request sent exactly as recorded, and one with its keys in another order, get the same exchange', async () => {
    expect(await post(replayFetch(recorded, () => undefined), JSON.stringify(recorded[1]!.request.body))).toBe('second');
    // Key order and spacing do not matter: the bodies are compared as values.
    expect(await post(replayFetch(recorded, () => undefined), '{"tools":[{"b":[1,2],"a":1}], "messages":[{"content":"one","role":"user"}],"model":"m"}')).toBe('first');
  });

  it('each exchange answers once, and a request that matches none says how the closest differs', async () => {
    const fetch = replayFetch(recorded, () => undefined);
    const body = JSON.stringify(recorded[0]!.request.body);
    expect(await post(fetch, body)).toBe('first');
    await expect(post(fetch, body)).rejects.toThrow(ReplayMismatchError);
    await expect(post(replayFetch(recorded, () => undefined), '{"model":"m","messages":[{"role":"user","content":"three"}]}')).rejects.toThrow(/differs in/);
  });
});

describe('replay: a recorded reply\'s headers are checked when the recording is read', () => {
  const header = JSON.stringify({ type: 'recording', version: 1, provider: 'openai', model: 'm' });
  const withHeaders = (headers: Record<string, string>) => `${header}\n${JSON.stringify({ ...exchange({ model: 'm' }, 'x'), response: { status: 200, headers, body: 'x' } })}\n`;

  it('one a reply could not carry (not a byte string, a line break, a bad name) is refused with its line, not replayed', () => {
    for (const headers of [{ 'x-request-id': 'req \u20ac' }, { 'content-type': 'text/\u0100' }, { 'x-a': 'a\nb' }, { 'bad name': 'x' }] as Record<string, string>[]) {
      expect(() => readRecording(withHeaders(headers), 'r.jsonl'), JSON.stringify(headers)).toThrow(/r\.jsonl:2 is not a recorded exchange: response header/);
    }
  });

  it('one it could (Latin-1 text, other control characters, spaces at the ends) is read and replayed as Node\'s fetch would', async () => {
    for (const headers of [{ 'x-request-id': 'caf\u00e9' }, { 'x-request-id': 'a\u0001b' }, { 'x-request-id': '  padded\t' }]) {
      const { exchanges } = readRecording(withHeaders(headers), 'r.jsonl');
      const reply = await replayFetch(exchanges, () => undefined)('https://api.example/v1/chat/completions', { method: 'POST', body: '{"model":"m"}' });
      expect(reply.headers.get('x-request-id')).toBe(new Headers(headers).get('x-request-id'));
    }
  });
});

describe('replay: a recorded rate limit or server error is retried at once', () => {
  it('whatever retry-after it recorded, in any case of the name: the reply says 0', async () => {
    for (const status of [429, 500, 503]) {
      for (const recordedHeaders of [{}, { 'retry-after': '30' }, { 'Retry-After': 'Thu, 31 Dec 2099 00:00:00 GMT' }, { 'RETRY-AFTER': '5', 'retry-after': '7' }] as Record<string, string>[]) {
        const recorded: RecordedExchange = { type: 'exchange', request: { method: 'POST', path: '/v1/chat/completions', body: { model: 'm' } }, response: { status, headers: { 'content-type': 'application/json', ...recordedHeaders }, body: '{}' } };
        const reply = await replayFetch([recorded], () => undefined)('https://api.example/v1/chat/completions', { method: 'POST', body: '{"model":"m"}' });
        expect(reply.headers.get('retry-after'), JSON.stringify(recordedHeaders)).toBe('0');
        expect(reply.headers.get('content-type')).toBe('application/json');
      }
    }
  });
});
