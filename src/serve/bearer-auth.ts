import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { plainText } from '../shared/plain-text.js';
import type { RequestAuthorizer } from './http-host.js';
import { isLoopbackHost, type Refusal } from './http-guard.js';

/**
 * Signature algorithms accepted on access tokens: asymmetric ones only. A symmetric key (HS256)
 * would be shared with the authorization server, and `none` is no signature; the verifier never
 * lets a token's header choose (RFC 8725 §3.1, "Perform Algorithm Verification").
 */
export const TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** How long a metadata or key-set fetch may take, and how big its answer may be. */
const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** Clocks differ a little: a token is valid this long around its `nbf`/`exp`. */
const CLOCK_TOLERANCE_S = 30;

export interface BearerAuthOptions {
  /** The authorization server's issuer identifier (`--auth-issuer`). */
  issuer: string;
  /** The `aud` tokens must carry (`--auth-audience`); default: the resource URL. */
  audience?: string;
  /** Scopes every token must hold (`--auth-scope`, repeatable). */
  scopes: string[];
  /** The URL clients use for this server (`--public-url`, behind a proxy); default: the address it listens on. */
  publicUrl?: string;
  /** What the resource calls itself in its metadata. */
  resourceName?: string;
  log(line: string): void;
}

/**
 * `toolman serve --port` as an OAuth resource server (spec 2026-07-28
 * `basic/authorization/index.mdx` §Token Handling, §Error Handling and
 * `authorization-server-discovery.mdx`; RFC 9728 protected-resource metadata; read 2026-11-24):
 * it accepts access tokens that the configured authorization server issued for it, and never
 * issues any. At start it reads the server's metadata (RFC 8414, then OpenID Connect discovery),
 * whose `issuer` must be exactly the configured one, and takes its `jwks_uri`. Each token is a
 * JWT checked with jose: signature by a key of that set (fetched with a timeout and a size cap,
 * cached), an asymmetric algorithm from a fixed list, `iss`, `aud`, `exp` required and not past,
 * and the required scopes. A missing or bad token gets 401 with `WWW-Authenticate: Bearer
 * resource_metadata="…"` (and the scopes); a token without a required scope gets 403
 * `insufficient_scope`. The token is never passed on (no token passthrough): the catalog's tools
 * and MCP servers use their own credentials.
 */
export class BearerAuth implements RequestAuthorizer {
  private resourceUrl: URL | undefined;
  private metadataPath = '';
  private prm: object | undefined;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  private constructor(
    private readonly options: BearerAuthOptions,
    private readonly metadata: OAuthMetadata & { jwks_uri: string },
  ) {
    this.jwks = createRemoteJWKSet(new URL(metadata.jwks_uri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      // A key set is fetched again at most every 30 s (a token with an unknown kid asks for it), kept 10 minutes.
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
      [customFetch]: cappedFetch,
    });
  }

  /** Reads the authorization server's metadata; throws a usage error (exit 2) when it cannot be used. */
  static async discover(options: BearerAuthOptions): Promise<BearerAuth> {
    const issuer = parseSecureUrl(options.issuer, '--auth-issuer');
    let metadata: (OAuthMetadata & { jwks_uri?: string }) | undefined;
    const tried: string[] = [];
    for (const url of metadataUrls(issuer)) {
      tried.push(url.href);
      const document = await fetchJson(url).catch((error: unknown) => {
        options.log(`authorization server metadata at ${url.href}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      if (document === undefined) continue;
      metadata = document as OAuthMetadata & { jwks_uri?: string };
      break;
    }
    if (!metadata) throw new ToolmanError(ErrorCode.USAGE, `--auth-issuer ${options.issuer}: no authorization server metadata found`, { hint: `tried ${tried.join(', ')}` });
    // The issuer the document names must be the one asked for, exactly (RFC 8414 §3.3).
    if (metadata.issuer !== options.issuer) {
      throw new ToolmanError(ErrorCode.USAGE, `--auth-issuer ${options.issuer}: the metadata names the issuer ${JSON.stringify(plainText(String(metadata.issuer)).slice(0, 200))}, not this one`, { hint: 'give --auth-issuer exactly as the authorization server writes its issuer' });
    }
    if (typeof metadata.jwks_uri !== 'string') throw new ToolmanError(ErrorCode.USAGE, `--auth-issuer ${options.issuer}: the metadata has no jwks_uri, so toolman cannot check token signatures`);
    parseSecureUrl(metadata.jwks_uri, 'the jwks_uri of the authorization server');
    for (const scope of options.scopes) {
      if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) throw new ToolmanError(ErrorCode.USAGE, `--auth-scope ${JSON.stringify(scope)} is not an OAuth scope (RFC 6749 §3.3: printable characters, no spaces or quotes)`);
    }
    return new BearerAuth(options, metadata as OAuthMetadata & { jwks_uri: string });
  }

  bind(url: string): void {
    this.resourceUrl = new URL(this.options.publicUrl ?? url);
    const prmUrl = new URL(getOAuthProtectedResourceMetadataUrl(this.resourceUrl));
    this.metadataPath = prmUrl.pathname;
    this.prm = buildOAuthProtectedResourceMetadata({
      oauthMetadata: this.metadata,
      resourceServerUrl: this.resourceUrl,
      ...(this.options.scopes.length ? { scopesSupported: this.options.scopes } : {}),
      ...(this.options.resourceName ? { resourceName: this.options.resourceName } : {}),
      dangerouslyAllowInsecureIssuerUrl: isLoopbackUrl(new URL(this.options.issuer)),
    });
  }

  /** The URL of the protected-resource metadata, as a 401 names it. */
  get metadataUrl(): string {
    return getOAuthProtectedResourceMetadataUrl(this.resourceUrl!);
  }

  get audience(): string {
    return this.options.audience ?? this.resourceUrl!.href;
  }

  document(path: string): object | undefined {
    // The path-aware location first (RFC 9728 §3.1), the root one for clients that only try that.
    return path === this.metadataPath || path === '/.well-known/oauth-protected-resource' ? this.prm : undefined;
  }

  async authorize(authorization: string | undefined): Promise<{ ok: true; auth: AuthInfo } | { ok: false; refusal: Refusal }> {
    const challenge = { resourceMetadataUrl: this.metadataUrl, ...(this.options.scopes.length ? { requiredScopes: this.options.scopes } : {}) };
    try {
      const auth = await verifyBearerToken(authorization, { verifier: { verifyAccessToken: (token) => this.verify(token) }, ...challenge });
      return { ok: true, auth };
    } catch (error) {
      const response = bearerAuthChallengeResponse(error, challenge);
      const headers: Record<string, string> = {};
      const www = response.headers.get('www-authenticate');
      if (www) headers['WWW-Authenticate'] = www;
      const reason = error instanceof OAuthError ? error.message : 'the token could not be checked';
      return { ok: false, refusal: { status: response.status, message: `${response.status === 403 ? 'Forbidden' : 'Unauthorized'}: ${reason}`, headers } };
    }
  }

  /** A JWT access token as toolman's `AuthInfo`; throws `OAuthError(invalid_token)` with why. */
  private async verify(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.options.issuer,
        audience: this.audience,
        algorithms: TOKEN_ALGORITHMS,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
      }));
    } catch (error) {
      // The keys could not be fetched (too big, too slow, not there): not the token's fault, and
      // no reason for the client to ask for another one.
      if (!(error instanceof joseErrors.JOSEError) || error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
        this.options.log(`could not read the authorization server's keys (${this.metadata.jwks_uri}): ${error instanceof Error ? error.message : String(error)}`);
        throw new OAuthError(OAuthErrorCode.ServerError, "the authorization server's keys could not be read");
      }
      throw new OAuthError(OAuthErrorCode.InvalidToken, tokenProblem(error));
    }
    const subject = typeof payload.sub === 'string' ? payload.sub : undefined;
    const clientId = [payload.client_id, payload.azp].find((v): v is string => typeof v === 'string');
    if (!subject && !clientId) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token names no subject (sub) or client (client_id)');
    return {
      token,
      clientId: clientId ?? subject!,
      scopes: scopesOf(payload),
      expiresAt: payload.exp!,
      resource: this.resourceUrl!,
      // The principal jobs, approvals and sessions are kept for: the subject at this issuer.
      extra: { principal: `${this.options.issuer}|${subject ?? `client:${clientId}`}`, authenticated: true },
    };
  }
}

/** RFC 8414 §3.1 with the issuer's path inserted, then OpenID Connect discovery (inserted, then appended). */
export function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/$/, '');
  const at = (wellKnown: string) => new URL(`${wellKnown}${path}`, issuer.origin);
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration'), new URL(`${path}/.well-known/openid-configuration`, issuer.origin)];
}

function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
}

/** Why jose refused a token, in words a client can act on (never the token itself). */
function tokenProblem(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted (${error.reason === 'missing' ? 'missing' : 'wrong value'})`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm toolman does not accept';
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the token is not signed by the authorization server';
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid) return 'the token is not a valid JWT';
  return 'the token could not be verified';
}

function isLoopbackUrl(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/** An https URL, or http on loopback (a local test server): tokens and keys never travel in the clear. */
function parseSecureUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ToolmanError(ErrorCode.USAGE, `${what} must be a URL, not ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url))) return url;
  throw new ToolmanError(ErrorCode.USAGE, `${what} must be an https URL (http only on this machine), not ${JSON.stringify(value.slice(0, 200))}`);
}

/** A JSON document from the authorization server: within the timeout and size cap, no redirects. */
async function fetchJson(url: URL): Promise<unknown> {
  const res = await cappedFetch(url.href, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return JSON.parse(await res.text()) as unknown;
}

/**
 * fetch with the answer cut at MAX_DOCUMENT_BYTES (the whole request fails past it) and
 * redirects refused: a metadata document or key set is small, and a server that answers with
 * megabytes or points elsewhere is not trusted with either.
 */
async function cappedFetch(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...init, redirect: 'error' });
  const declared = Number(res.headers.get('content-length'));
  if (declared > MAX_DOCUMENT_BYTES) {
    await res.body?.cancel();
    throw new Error(`the answer is over ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error(`the answer is over ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const empty = [101, 204, 205, 304].includes(res.status);
  return new Response(empty ? null : Buffer.concat(chunks), { status: res.status, headers: res.headers });
}
