import { createServer, type Server } from 'node:http';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';

/** How long the browser step may take before toolman gives up. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;

/** The one page the callback answers with: fixed text, nothing from the request in it. */
const PAGE = (done: boolean) =>
  `<!doctype html><meta charset="utf-8"><title>toolman</title><body style="font-family:sans-serif;margin:3em"><h1>${done ? 'Done' : 'Not accepted'}</h1><p>${done ? 'toolman has the answer. You can close this window and go back to the terminal.' : 'This answer does not belong to the sign-in toolman started; it was ignored.'}</p></body>\n`;

/**
 * The redirect target of a browser sign-in (RFC 8252 §7.3: a loopback address, any port): one
 * HTTP server on 127.0.0.1 and a free port, one path (`/callback`), GET only. It waits for the
 * answer whose `state` is the one toolman sent (RFC 6749 §10.12; the SDK leaves `state` to the
 * client), ignoring any other (a page that guesses the port cannot end the wait), and stops after
 * the answer or `CALLBACK_TIMEOUT_MS`. The page it shows is fixed: nothing the authorization
 * server put in the redirect (`error_description` least of all) is echoed.
 */
export class LoopbackCallback {
  private waiting: { state: string; resolve: (params: URLSearchParams) => void } | undefined;
  private superseded: (() => void) | undefined;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
  ) {}

  static async start(): Promise<LoopbackCallback> {
    let callback: LoopbackCallback | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'GET' || url.pathname !== '/callback') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const waiting = callback?.waiting;
      const accepted = waiting !== undefined && url.searchParams.get('state') === waiting.state;
      res.writeHead(accepted ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).end(PAGE(accepted));
      if (accepted) {
        callback!.waiting = undefined;
        waiting.resolve(url.searchParams);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as { port: number };
    callback = new LoopbackCallback(server, `http://127.0.0.1:${port}/callback`);
    return callback;
  }

  /** The redirect's query once the browser brings it back with `state`; rejects after the timeout or on `signal`. */
  wait(state: string, signal?: AbortSignal, timeoutMs = CALLBACK_TIMEOUT_MS): Promise<URLSearchParams> {
    // A newer sign-in replaces one still waiting: that one ends now, not after its timeout.
    this.superseded?.();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new ToolmanError(ErrorCode.MCP_SERVER, `no answer from the browser within ${Math.round(timeoutMs / 1000)} s`, { hint: 'run toolman mcp login again, and finish the sign-in in the browser' })), timeoutMs);
      const onAbort = () => finish(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      const finish = (error: Error | undefined, params?: URLSearchParams) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        this.superseded = undefined;
        if (error) reject(error);
        else resolve(params!);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = { state, resolve: (params) => finish(undefined, params) };
      this.superseded = () => finish(new ToolmanError(ErrorCode.MCP_SERVER, 'a newer sign-in replaced this one'));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections?.();
      this.server.close(() => resolve());
    });
  }
}
