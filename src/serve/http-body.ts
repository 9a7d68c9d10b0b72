import type { IncomingMessage, ServerResponse } from 'node:http';

/** The spec's own limit for the SDK transport; a call's arguments are far smaller. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC error as the body, so MCP clients can show it. */
export function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000, id: string | number | null = null): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

export type ReadResult = { ok: true; value: unknown } | { ok: false; status: number; message: string; code: number };

/** How much of a refused body is read and dropped, so the client can read the 413 before the socket closes. */
const MAX_DRAIN_BYTES = 4 * MAX_BODY_BYTES;
const TOO_LARGE = { ok: false, status: 413, message: `Payload too large: at most ${MAX_BODY_BYTES} bytes`, code: -32600 } as const;

/**
 * The request body as JSON, within the size limit; never throws. A body over the limit, declared
 * (Content-Length) or found while reading (chunked), is refused with 413. The rest of a chunked
 * body is read and dropped (up to a bound, then the socket is closed): closing a socket with
 * unread data resets it, and the client would never see the answer.
 */
export function readJson(req: IncomingMessage): Promise<ReadResult> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > MAX_BODY_BYTES + MAX_DRAIN_BYTES) req.socket.destroy();
        return;
      }
      if (size > MAX_BODY_BYTES) {
        refused = true;
        chunks.length = 0;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => resolve({ ok: false, status: 400, message: 'Bad request: the body could not be read', code: -32700 }));
    req.on('end', () => {
      if (refused) return;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      } catch {
        resolve({ ok: false, status: 400, message: 'Parse error: the body is not JSON', code: -32700 });
      }
    });
  });
}

/** A request's one header value (the first, when sent more than once). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
