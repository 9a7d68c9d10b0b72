import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type Server } from '@modelcontextprotocol/server';
import type { ServeLimits } from './call-slots.js';
import { reply } from './http-body.js';
import { serveWebRequest } from './parsed-body-handler.js';
import { SessionTransport } from './session-transport.js';
import { errorLine } from './error-line.js';

/** One MCP session: its server (over its own toolman session), what to close, and whether a call of it is running or waiting. */
export interface OpenedSession {
  server: Server;
  close(): void;
  busy(): boolean;
}

interface Live {
  transport: SessionTransport;
  opened: OpenedSession;
  lastSeen: number;
  closed: boolean;
  /** Who opened it: a session answers only the caller that opened it. */
  principal: string;
}

/**
 * The 2025-11-25 side of the endpoint: sessions opened by `initialize` (`Mcp-Session-Id`), each
 * with its own transport (the SDK's sessionful streamable HTTP transport, the web-standard one,
 * toolman writing its answers to Node's response itself, `serveWebRequest`; toolman answers a
 * session's plain requests itself, `SessionTransport`), MCP server and toolman
 * session (tools found by search belong to the session that searched). At most
 * `limits.maxSessions` are kept: a new client closes the one idle longest, never one with a call
 * running or waiting; sessions idle past the idle timeout are closed.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Live>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly openSession: () => Promise<OpenedSession>,
    private readonly limits: Pick<ServeLimits, 'maxSessions' | 'idleTimeoutMs'>,
    private readonly log: (line: string) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(50, Math.floor(limits.idleTimeoutMs / 4))));
    this.sweeper.unref();
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /** A request of an open session (POST, GET for its stream, DELETE to end it). */
  async handle(id: string, req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown, principal: string): Promise<void> {
    const live = this.sessions.get(id);
    // Someone else's session id is as unknown as a made-up one.
    if (!live || live.principal !== principal) return reply(res, 404, 'Session not found: start a new one with initialize', undefined, -32001);
    live.lastSeen = Date.now();
    await this.serve(live.transport, req, res, body);
    live.lastSeen = Date.now();
  }

  /** An `initialize`: a new session, making room first when the limit is reached. */
  async open(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown, principal: string): Promise<void> {
    if (this.sessions.size >= this.limits.maxSessions) {
      // Clients that vanished never say goodbye: the session idle longest makes room, but never
      // one with a call running or waiting (another client's work is not thrown away for a newcomer).
      const idle = [...this.sessions].filter(([, live]) => !live.opened.busy()).sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
      if (!idle) return reply(res, 503, `Service unavailable: ${this.sessions.size} sessions are open and each has a call in flight; try again later`, { 'Retry-After': '5' });
      this.log(`closing the session idle longest (${idle[0]}): ${this.limits.maxSessions} sessions are open`);
      this.end(idle[1], idle[0]);
    }
    const opened = await this.openSession();
    const live: Live = { transport: undefined as never, opened, lastSeen: Date.now(), closed: false, principal };
    live.transport = new SessionTransport(
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void this.sessions.set(sessionId, live),
        onsessionclosed: (sessionId) => this.end(live, sessionId),
      }),
    );
    opened.server.onclose = () => this.end(live, live.transport.sessionId);
    await opened.server.connect(live.transport);
    await this.serve(live.transport, req, res, body);
    // An initialize the transport refused leaves no session behind.
    if (live.transport.sessionId === undefined) this.end(live, undefined);
  }

  private async serve(transport: SessionTransport, req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void> {
    await transport.handle(req, res, body, req.auth, () => {
      const options = { ...(req.auth !== undefined ? { authInfo: req.auth } : {}), ...(body !== undefined ? { parsedBody: body } : {}) };
      return serveWebRequest(req, res, (request) => transport.sdk.handleRequest(request, options), (error) => this.log(errorLine('HTTP request failed', error)), body);
    });
  }

  private end(live: Live, id: string | undefined): void {
    if (live.closed) return;
    live.closed = true;
    if (id) this.sessions.delete(id);
    live.opened.close();
    void live.opened.server.close().catch(() => undefined);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, live] of [...this.sessions]) {
      if (now - live.lastSeen < this.limits.idleTimeoutMs || live.opened.busy()) continue;
      this.log(`closing session ${id}: idle for ${Math.round((now - live.lastSeen) / 1000)} s`);
      this.end(live, id);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const [id, live] of [...this.sessions]) this.end(live, id);
  }
}
