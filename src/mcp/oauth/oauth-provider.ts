import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationContext, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import type { LoopbackCallback } from './loopback-callback.js';
import { newLoginId, type TokenStore } from './token-store.js';

/** How toolman registers with an authorization server, from the entry's `oauth:` and the flags. */
export interface OAuthClientSettings {
  /** A pre-registered client (`oauth.client_id`, `--client-id`). */
  clientId?: string;
  /** Its secret, read from the environment variable the entry names (never written anywhere). */
  clientSecret?: string;
  /** Scopes asked for when the server's challenge and metadata name none. */
  scopes?: string[];
  /** toolman's Client ID Metadata Document (an https URL with a path), used when the server supports CIMD. */
  clientMetadataUrl?: string;
}

/** The browser step, for `mcp login` and `--login` only. */
export interface BrowserStep {
  callback: LoopbackCallback;
  /** Opens (or prints) the authorization page. */
  open(url: string): Promise<void>;
  signal?: AbortSignal;
}

/** A server needs a login, and this command may not open a browser: `toolman mcp login NAME`. */
export class LoginRequired extends ToolmanError {
  constructor(server: string, hint: string, why = 'asks for authorization, and toolman holds no token for it that works') {
    super(ErrorCode.MCP_SERVER, `MCP server "${server}" ${why}`, { hint });
    this.name = 'LoginRequired';
  }
}

/**
 * The SDK's `OAuthClientProvider` for one protected MCP server (its URL is the resource):
 * registrations and tokens in toolman's token store, keyed by the authorization server's issuer
 * (the SDK stamps it; a registration made with one authorization server is never sent to
 * another, SEP-2352), a random `state` per sign-in (checked by the loopback callback, which the
 * SDK does not do), PKCE verifier in memory, discovery state kept with the tokens so a refresh
 * needs no new discovery. Without a browser step it never signs in: the redirect fails with
 * LoginRequired (the hint names `toolman mcp login`). The SDK does the rest: protected-resource
 * and authorization-server discovery with the issuer check, CIMD before DCR, PKCE S256, the
 * `resource` parameter, `iss` in the answer, refresh and step-up.
 */
export class ToolmanOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private lastState: string | undefined;
  private pending: Promise<URLSearchParams> | undefined;
  /** A browser sign-in is under way: the tokens it brings are a new login. */
  private signingIn = false;

  constructor(
    private readonly resource: string,
    private readonly store: TokenStore,
    private readonly settings: OAuthClientSettings,
    private readonly who: { server: string; loginHint: string },
    private readonly browser?: BrowserStep,
  ) {}

  /** Whether this provider may open a browser (`mcp login`, `--login`). */
  get canSignIn(): boolean {
    return this.browser !== undefined;
  }

  get redirectUrl(): string {
    // A loopback URL even without a browser: without one the SDK would take this for a machine client (client_credentials).
    return this.browser?.callback.redirectUrl ?? 'http://127.0.0.1/callback';
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'toolman',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.settings.clientSecret ? 'client_secret_basic' : 'none',
      // A command-line program (OAuth 2.1 / RFC 8252 native app); DCR must say so (MCP 2026-07-28 client-registration.mdx).
      application_type: 'native',
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(' ') } : {}),
    } as OAuthClientMetadata;
  }

  state(): string {
    this.lastState = randomBytes(32).toString('base64url');
    return this.lastState;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    // A pre-registered client is the user's for this server, whichever authorization server it
    // names: stamped with that issuer (SEP-2352), as the SDK would use it unstamped anyway, but
    // with a console warning on every read.
    if (this.settings.clientId) return { client_id: this.settings.clientId, ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}), ...(ctx ? { issuer: ctx.issuer } : {}) } as StoredOAuthClientInformation;
    if (!ctx) return undefined;
    return this.store.read(ctx.issuer).client as StoredOAuthClientInformation | undefined;
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    // A pre-registered client lives in the catalog, not in the store.
    if (this.settings.clientId) return;
    const issuer = ctx?.issuer ?? (info as { issuer?: string }).issuer;
    if (!issuer) return;
    const record = this.store.read(issuer);
    record.client = { ...info };
    this.store.write(record);
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    if (ctx) return this.store.read(ctx.issuer).resources[this.resource]?.tokens as StoredOAuthTokens | undefined;
    return this.store.find(this.resource)?.entry.tokens as StoredOAuthTokens | undefined;
  }

  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): void {
    const issuer = ctx?.issuer ?? (tokens as { issuer?: string }).issuer;
    if (!issuer) return;
    const fresh = this.signingIn;
    this.signingIn = false;
    this.store.update(issuer, this.resource, (entry) => ({ ...entry, tokens: { ...tokens }, ...(this.discovery ? { discovery: { ...this.discovery } } : {}), loginId: fresh || !entry.loginId ? newLoginId() : entry.loginId }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.browser) throw new LoginRequired(this.who.server, this.who.loginHint);
    if (!/^https?:$/.test(url.protocol)) throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${this.who.server}": its authorization server's page is not an http(s) URL`);
    if (!this.lastState || url.searchParams.get('state') !== this.lastState) throw new ToolmanError(ErrorCode.MCP_SERVER, 'the authorization request lost its state parameter; toolman does not sign in without one');
    this.signingIn = true;
    this.pending = this.browser.callback.wait(this.lastState, this.browser.signal);
    // Nobody may be left waiting on a failed wait: the rejection is read where the sign-in finishes.
    this.pending.catch(() => undefined);
    await this.browser.open(url.href);
  }

  /** The answer of the sign-in just started, once the browser brings it back (state checked); undefined when none was started. */
  takeCallback(): Promise<URLSearchParams> | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new ToolmanError(ErrorCode.MCP_SERVER, 'no sign-in is under way (no PKCE verifier)');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    if (this.discovery) return this.discovery;
    const stored = this.store.find(this.resource)?.entry.discovery;
    return isRecord(stored) ? (stored as unknown as OAuthDiscoveryState) : undefined;
  }

  /**
   * The MCP server refused a token toolman sent: what discovery found is forgotten (the tokens are
   * kept: a refresh may still work), so the next sign-in or refresh reads the server's protected
   * resource metadata again; it may name another authorization server now (SEP-2352).
   */
  tokenRefused(): void {
    this.discovery = undefined;
    const found = this.store.find(this.resource);
    const entry = found?.record.resources[this.resource];
    if (!found || !entry?.discovery) return;
    delete entry.discovery;
    this.store.write(found.record);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    const found = this.store.find(this.resource);
    if (!found) return;
    const { record } = found;
    if (scope === 'client' || scope === 'all') delete record.client;
    const entry = record.resources[this.resource];
    if (entry && (scope === 'tokens' || scope === 'all')) delete entry.tokens;
    if (entry && (scope === 'discovery' || scope === 'all')) delete entry.discovery;
    this.store.write(record);
  }
}
