import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/**
 * A loopback HTTP server that answers Anthropic's count_tokens, Gemini's countTokens and OpenAI's
 * responses/input_tokens the way
 * the real APIs do (same paths, headers and reply shapes), with counts it derives from the body,
 * and records every request. `status` makes it fail instead.
 */
export async function startFakeProvider(options: { status?: number } = {}): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk));
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (options.status) return reply(options.status, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      const size = JSON.stringify(body).length;
      if (req.url === '/v1/messages/count_tokens') return reply(200, { input_tokens: 10 + Math.round(size / 4) });
      if (/^\/v1beta\/models\/[^/]+:countTokens$/.test(req.url ?? '')) return reply(200, { totalTokens: 7 + Math.round(size / 5) });
      if (req.url === '/v1/responses/input_tokens') return reply(200, { object: 'response.input_tokens', input_tokens: 5 + Math.round(size / 4) });
      reply(404, { error: { message: `no route ${req.url}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
