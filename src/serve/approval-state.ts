import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, ProtocolError, type AuthInfo, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { canonicalJson } from '../shared/canonical-json.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';

/** How long an approval question stays answerable: the spec's example and the SDK codec's default. */
export const APPROVAL_TTL_SECONDS = 600;
/** Spent states are remembered until they expire; past this many, the oldest are forgotten first. */
const MAX_SPENT = 50_000;

/**
 * Who a 2026-07-28 request comes from. Over HTTP the host attaches an `AuthInfo` to every request
 * (a verified token's subject, or `anonymous`); over stdio there is none, and the principal is
 * the one local client that started the process.
 */
export interface Principal {
  key: string;
  /** A verified bearer token (or the stdio client): only these may approve a tool "for this session". */
  authenticated: boolean;
  /** When the token expires (ms since the epoch): a remembered approval lasts no longer. */
  expiresAtMs?: number;
}

export function principalOf(ctx: Pick<ServerContext, 'http'>): Principal {
  const auth = ctx.http?.authInfo;
  if (!auth) return ctx.http ? { key: 'anonymous', authenticated: false } : { key: 'stdio', authenticated: true };
  return principalOfAuth(auth);
}

export function principalOfAuth(auth: AuthInfo): Principal {
  const key = typeof auth.extra?.principal === 'string' ? auth.extra.principal : 'anonymous';
  return { key, authenticated: auth.extra?.authenticated === true, ...(auth.expiresAt ? { expiresAtMs: auth.expiresAt * 1000 } : {}) };
}

/**
 * What the `requestState` of a question serve asks says: the call it was asked for, a nonce so it
 * is answered once, and, for an upstream server's question, which waiting call the answer goes to.
 */
export interface StateClaim {
  /** The tool's name as the client called it (a prompt's name, a resource's URI). */
  t: string;
  /** sha256 of the call's arguments as canonical JSON. */
  d: string;
  n: string;
  /** The parked call (16 random bytes, base64url) whose upstream server asked: absent for toolman's own approval question. */
  q?: string;
}
type ApprovalClaim = StateClaim;

/**
 * The `requestState` of toolman's approval questions in the 2026-07-28 era (spec
 * `basic/patterns/mrtr.mdx`: the server MUST integrity-protect state that influences
 * authorization and bind it to the user; read 2026-11-24). The SDK's HMAC-SHA256 codec seals the
 * claim with a key made for this process (32 random bytes), an expiry of 600 s, and a binding to
 * the method and the principal, so a state is refused (-32602) when it was altered, is older than
 * ten minutes, or comes back from someone else or on another method. The claim itself binds the
 * tool and the digest of the arguments: a retry whose call differs from the one asked about is
 * refused too, and a state is spent by its first answer, so one approval runs one call.
 */
export class ApprovalStates {
  private readonly codec: RequestStateCodec<ApprovalClaim>;
  /** Nonces of states already answered, with when they expire anyway (ms). */
  private readonly spent = new Map<string, number>();
  /** Tools a principal allowed "for this session": until its token expires (stdio: until the process ends). */
  private readonly remembered = new Map<string, Map<string, number>>();

  constructor(key: Uint8Array = randomBytes(32)) {
    this.codec = createRequestStateCodec<ApprovalClaim>({
      key,
      ttlSeconds: APPROVAL_TTL_SECONDS,
      bind: (ctx) => `${ctx.mcpReq.method}\0${principalOf(ctx).key}`,
    });
  }

  /** `ServerOptions.requestState.verify`: MAC, expiry and binding; the SDK answers a failure with -32602. */
  readonly verify = (state: string, ctx: ServerContext): Promise<ApprovalClaim> => this.codec.verify(state, ctx);

  /** The state for a question about this call; `parked` names the waiting call an upstream server's question belongs to. */
  mint(name: string, args: unknown, ctx: ServerContext, parked?: string): Promise<string> {
    return this.codec.mint({ t: name, d: argumentsDigest(args), n: randomBytes(12).toString('base64url'), ...(parked !== undefined ? { q: parked } : {}) }, ctx);
  }

  /**
   * The verified claim of a retry, checked against the call it came with, and spent. Throws the
   * protocol error -32602 when the call is not the one that was asked about, or the state was
   * answered before.
   */
  redeem(claim: unknown, name: string, args: unknown): StateClaim {
    const c = claim as Partial<ApprovalClaim> | undefined;
    if (!c || typeof c.t !== 'string' || typeof c.d !== 'string' || typeof c.n !== 'string' || (c.q !== undefined && typeof c.q !== 'string')) throw new ProtocolError(-32602, 'Invalid or expired requestState');
    if (c.t !== name || c.d !== argumentsDigest(args)) throw new ProtocolError(-32602, `requestState was issued for another call: retry ${c.t === name ? 'with the arguments that were approved' : `the call to ${c.t}`}, or call again without requestState to be asked anew`);
    const now = Date.now();
    for (const [nonce, until] of this.spent) {
      if (until > now && this.spent.size < MAX_SPENT) break;
      this.spent.delete(nonce);
    }
    if (this.spent.has(c.n)) throw new ProtocolError(-32602, 'requestState was already answered: call again without requestState to be asked anew');
    this.spent.set(c.n, now + APPROVAL_TTL_SECONDS * 1000);
    return { t: c.t, d: c.d, n: c.n, ...(c.q !== undefined ? { q: c.q } : {}) };
  }

  remember(principal: Principal, tool: string): void {
    if (!principal.authenticated) return;
    let tools = this.remembered.get(principal.key);
    if (!tools) this.remembered.set(principal.key, (tools = new Map()));
    tools.set(tool, principal.expiresAtMs ?? Number.POSITIVE_INFINITY);
  }

  isRemembered(principal: Principal, tool: string): boolean {
    const until = this.remembered.get(principal.key)?.get(tool);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.remembered.get(principal.key)!.delete(tool);
    return false;
  }

  /** A principal whose state `serve` drops (idle, evicted) forgets what it allowed. */
  forget(principal: string): void {
    this.remembered.delete(principal);
  }
}

/** sha256 of canonical JSON; arguments too deep to walk safely get a digest no claim can match (the executor refuses such calls anyway). */
export function argumentsDigest(args: unknown): string {
  if (nestsDeeperThan(args, MAX_JSON_DEPTH)) return 'too-deep';
  return createHash('sha256').update(canonicalJson(args ?? {})).digest('hex');
}
