import type { McpServerConfig } from '../../catalog/types.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { SecretSet } from '../../shared/secrets.js';
import type { ServerLaunch } from '../server-launch.js';
import { LoopbackCallback } from './loopback-callback.js';
import { ToolmanOAuthProvider } from './oauth-provider.js';
import { TokenStore } from './token-store.js';

export interface ServerSignInOptions {
  env: Record<string, string | undefined>;
  secrets: SecretSet;
  /** The browser step, for `mcp login` and `--login` only (see McpServersOptions.login). */
  login?: { open: (url: string) => Promise<void>; signal?: AbortSignal };
  /** How to tell the user to log in to a server (default `toolman mcp login NAME`). */
  loginHint?: (server: string) => string;
  /** OAuth settings from the command line, over the entry's `oauth:`. */
  oauth?: { clientId?: string; clientSecretEnv?: string; scopes?: string[] };
}

/**
 * The OAuth side of one catalog's HTTP servers: one token store, one loopback callback for every
 * browser sign-in of the command, and one provider per server (made on its first connection and
 * kept: the callback and the provider's refreshed tokens outlive a restart of the server).
 */
export class ServerSignIns {
  private tokens: TokenStore | undefined;
  private callback: Promise<LoopbackCallback> | undefined;
  /** A server's provider, or null once it was decided the server gets none. */
  private readonly providers = new Map<string, ToolmanOAuthProvider | null>();

  constructor(private readonly options: ServerSignInOptions) {}

  /**
   * The OAuth provider of an HTTP server: with the browser step when this command may sign in
   * (`mcp login`, `--login`), else only when toolman holds tokens for it (so they are sent and
   * refreshed); a server without either gets none, and its 401 says to log in. A static
   * `Authorization` header in the entry wins: that server is not signed in to.
   */
  async provider(config: McpServerConfig, launch: ServerLaunch | undefined): Promise<ToolmanOAuthProvider | undefined> {
    const known = this.providers.get(config.name);
    if (known !== undefined) return known ?? undefined;
    this.providers.set(config.name, null);
    if (launch?.kind !== 'http' || Object.keys(launch.headers).some((h) => h.toLowerCase() === 'authorization')) return undefined;
    const store = this.tokenStore();
    const resource = canonicalResource(launch.url);
    if (!this.options.login && !store.find(resource)) return undefined;
    const oauth = { ...launch.oauth, ...this.options.oauth };
    const secretEnv = this.options.oauth?.clientSecretEnv ?? launch.oauth?.clientSecretEnv;
    const clientSecret = secretEnv ? this.options.env[secretEnv] : undefined;
    if (secretEnv && clientSecret === undefined) throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${config.name}": environment variable ${secretEnv} (its OAuth client secret) is not set`, { hint: `set ${secretEnv}` });
    if (clientSecret) this.options.secrets.add(clientSecret);
    const clientMetadataUrl = launch.oauth?.clientMetadataUrl ?? this.options.env.TOOLMAN_OAUTH_CLIENT_METADATA_URL;
    const browser = this.options.login ? { callback: await (this.callback ??= LoopbackCallback.start()), open: this.options.login.open, ...(this.options.login.signal ? { signal: this.options.login.signal } : {}) } : undefined;
    const provider = new ToolmanOAuthProvider(
      resource,
      store,
      { ...(oauth.clientId ? { clientId: oauth.clientId } : {}), ...(clientSecret ? { clientSecret } : {}), ...(oauth.scopes?.length ? { scopes: oauth.scopes } : {}), ...(clientMetadataUrl ? { clientMetadataUrl } : {}) },
      { server: config.name, loginHint: this.loginHint(config.name) },
      browser,
    );
    this.providers.set(config.name, provider);
    return provider;
  }

  /** The login a private tool list is kept under: toolman's id of the current login to the server ('' for none). */
  loginOf(launch: ServerLaunch): string {
    if (launch.kind !== 'http') return '';
    try {
      return this.tokenStore().find(canonicalResource(launch.url))?.entry.loginId ?? '';
    } catch {
      return ''; // a token file toolman cannot use is reported when the server is reached
    }
  }

  loginHint(server: string): string {
    return this.options.loginHint?.(server) ?? `toolman mcp login ${server}`;
  }

  /** Stops the loopback callback, if a sign-in started one. */
  async close(): Promise<void> {
    await this.callback?.then((callback) => callback.close(), () => undefined);
  }

  private tokenStore(): TokenStore {
    return (this.tokens ??= new TokenStore(this.options.env));
  }
}

/** A server's URL as the resource its tokens are for (RFC 8707: no fragment). */
export function canonicalResource(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}
