import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** Names and addresses that stay on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

export type Refusal = { status: number; message: string; headers?: Record<string, string> };

/**
 * Who may talk to the HTTP endpoint. With a token, every request must carry it as a bearer
 * token. Without one the server listens on loopback only, and the Host and Origin headers must
 * name this machine too: a web page the user visits could otherwise reach it through DNS
 * rebinding (the transport section of the spec, 2025-11-25, asks servers to check Origin).
 */
export class HttpGuard {
  private readonly digest: Buffer | undefined;
  /** The last Host header found to name this machine. */
  private hostAccepted: string | undefined;
  /** Whether the server listens on loopback only: then Host must name this machine (decided once, not per request). */
  private readonly loopback: boolean;

  /**
   * @param authorized whether requests must prove who they are (a token, or an authorization
   * server's bearer tokens with `--auth-issuer`): then any origin may ask, since it cannot
   * without credentials. Default: when there is a token.
   */
  constructor(
    bind: string,
    token: string | undefined,
    private readonly authorized = token !== undefined,
  ) {
    this.digest = token === undefined ? undefined : sha256(token);
    this.loopback = isLoopbackHost(bind);
  }

  /** Whether the request carries the static token (`--token-env`); false when there is none. */
  tokenMatches(headers: IncomingHttpHeaders): boolean {
    if (!this.digest) return false;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
    return match !== null && timingSafeEqual(sha256(match[1]!), this.digest);
  }

  /** Why a request may not pass, or undefined. A CORS preflight carries no credentials, so it is not asked for the token. */
  check(headers: IncomingHttpHeaders, preflight = false): Refusal | undefined {
    if (this.loopback && (this.hostAccepted === undefined || headers.host !== this.hostAccepted)) {
      const host = hostnameOf(headers.host);
      if (host === undefined || !isLoopbackHost(host)) return { status: 403, message: 'Forbidden: the Host header must name this machine (localhost, 127.0.0.1 or [::1])' };
      // Every request of a client names the same Host: the verdict on it is kept (a pure function of the header).
      this.hostAccepted = headers.host;
    }
    const origin = headers.origin;
    if (origin !== undefined && !this.authorized) {
      const host = hostnameOf(safeUrlHost(origin));
      if (host === undefined || !isLoopbackHost(host)) return { status: 403, message: `Forbidden: requests from ${JSON.stringify(origin.slice(0, 200))} are not allowed` };
    }
    // Digests have one length, so the comparison takes the same time whatever was sent.
    if (this.digest && !preflight && !this.tokenMatches(headers)) {
      const sent = /^Bearer\s+\S+\s*$/i.test(headers.authorization ?? '');
      return { status: 401, message: sent ? 'Unauthorized: wrong bearer token' : 'Unauthorized: send Authorization: Bearer <token>', headers: { 'WWW-Authenticate': 'Bearer realm="toolman"' } };
    }
    return undefined;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** `example.com:8080` or `[::1]:3000` → the hostname alone. */
function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(hostHeader.trim());
  return match?.[1] || undefined;
}

function safeUrlHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
