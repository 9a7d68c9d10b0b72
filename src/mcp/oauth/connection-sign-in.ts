import { InsufficientScopeError, IssuerMismatchError, OAuthError, SdkErrorCode, SdkHttpError, UnauthorizedError, type StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { plainText } from '../../shared/plain-text.js';
import type { SecretSet } from '../../shared/secrets.js';
import { reasonOf } from '../mcp-errors.js';
import type { ServerLaunch } from '../server-launch.js';
import { LoginRequired, type ToolmanOAuthProvider } from './oauth-provider.js';

// How one MCP connection signs in over HTTP: what it sends through, how a sign-in started during
// the handshake or a request is finished, and how a refusal is said. The connection
// (mcp-connection.ts) decides when; this file knows the OAuth side.

/**
 * The fetch the HTTP transport sends through: when the MCP server refuses a token toolman sent
 * (401), the authorization server toolman found for it may be another one now (the server's
 * protected resource metadata names a new one, SEP-2352), so the next sign-in or refresh looks
 * again instead of going where the old discovery said.
 */
export function refusalsTo(server: string, provider: ToolmanOAuthProvider): typeof fetch {
  const target = new URL(server).href;
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const sentToken = new Headers(init?.headers).has('authorization');
    if (response.status === 401 && sentToken && new URL(url).href === target) provider.tokenRefused();
    return response;
  };
}

/** The handshake started a browser sign-in: finish it (the transport exchanges the code), then connect again. */
export class SignInStarted extends Error {
  constructor(
    readonly transport: StreamableHTTPClientTransport,
    readonly callback: Promise<URLSearchParams>,
  ) {
    super('a sign-in is under way');
  }
}

/**
 * The last step of a browser sign-in: the answer the loopback callback took (its `state` already
 * checked) goes to the SDK, which checks `iss` against the issuer it discovered (RFC 9207),
 * exchanges the code at that authorization server with the PKCE verifier and the `resource`,
 * and saves the tokens through the provider. What the authorization server said goes into a
 * message only as its error code: `error_description` is its text, and after an issuer mismatch
 * not even the code is shown (MCP 2026-07-28 basic/authorization/index.mdx).
 */
export async function finishSignIn(launch: ServerLaunch, transport: StreamableHTTPClientTransport, callback: Promise<URLSearchParams>, secrets: SecretSet): Promise<void> {
  const params = await callback;
  try {
    await transport.finishAuth(params);
  } catch (error) {
    const failed = `MCP server "${launch.name}" sign-in failed:`;
    if (error instanceof IssuerMismatchError) {
      const why = params.has('iss') ? 'the answer came from another authorization server than the one toolman asked (iss)' : 'the answer does not say which authorization server sent it (no iss), though that server says it always does';
      throw new ToolmanError(ErrorCode.MCP_SERVER, `${failed} ${why}; it was not used`, { hint: 'this can be a mix-up attack: sign in again, and check the server\'s address' });
    }
    if (error instanceof OAuthError) {
      const code = /^[a-z_]{1,40}$/.test(error.code) ? error.code : 'an error';
      throw new ToolmanError(ErrorCode.MCP_SERVER, `${failed} the authorization server refused it (${code})`, { hint: 'sign in again: toolman mcp login' });
    }
    throw new ToolmanError(ErrorCode.MCP_SERVER, secrets.redact(`${failed} ${plainText(reasonOf(error)).slice(0, 300)}`), { hint: 'sign in again: toolman mcp login', cause: error });
  }
}

/**
 * A refusal to authorize as toolman says it (login needed, more scopes, a mix-up), or undefined
 * for any other failure. `hint` names the way to log in; `holdsToken` whether toolman had a
 * provider (and so maybe a token) for the server.
 */
export function authRefusal(error: unknown, server: string, hint: string, holdsToken: boolean): ToolmanError | undefined {
  if (error instanceof LoginRequired) return error;
  if (error instanceof InsufficientScopeError) return new LoginRequired(server, hint, `needs more scopes than toolman's login has${error.requiredScope ? ` (${plainText(String(error.requiredScope)).slice(0, 200)})` : ''}`);
  if (error instanceof UnauthorizedError) return new LoginRequired(server, hint);
  if (error instanceof SdkHttpError && (error.code === SdkErrorCode.ClientHttpAuthentication || error.code === SdkErrorCode.ClientHttpForbidden)) {
    return new LoginRequired(server, hint, `refused toolman's request (HTTP ${error.code === SdkErrorCode.ClientHttpAuthentication ? 401 : 403})${holdsToken ? '' : ', and toolman holds no token for it'}`);
  }
  return undefined;
}
