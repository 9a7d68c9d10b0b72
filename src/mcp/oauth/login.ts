import type { McpServerConfig } from '../../catalog/types.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { SecretSet } from '../../shared/secrets.js';
import { canonicalResource } from './server-sign-ins.js';
import { serverLaunch } from '../server-launch.js';
import { LoopbackCallback } from './loopback-callback.js';
import { ToolmanOAuthProvider, type OAuthClientSettings } from './oauth-provider.js';
import { TokenStore } from './token-store.js';

export interface LoginRequest {
  /** The server entry (from the catalog, or made from `--url`). */
  config: Pick<McpServerConfig, 'name' | 'url' | 'headers' | 'args' | 'env' | 'timeoutMs' | 'protocol' | 'oauth'>;
  /** Where relative paths of the entry resolve from. */
  baseDir: string;
  env: Record<string, string | undefined>;
  secrets: SecretSet;
  /** Opens (or prints) the authorization page. */
  open: (url: string) => Promise<void>;
  /** The command line's client settings, over the entry's `oauth:`. */
  flags?: { clientId?: string; clientSecretEnv?: string; scopes?: string[] };
  signal?: AbortSignal;
}

export interface LoginResult {
  server: string;
  url: string;
  issuer: string | undefined;
  tools: number;
  serverInfo?: { name: string; version: string };
}

/**
 * `toolman mcp login NAME`: a new sign-in to one HTTP server (the tokens toolman held for it are
 * forgotten first, so another account can be chosen), through the browser and the loopback
 * callback, then its tools are listed to show the login works. The registration with the
 * authorization server is kept (it is toolman's, not the user's).
 */
export async function loginToServer(request: LoginRequest): Promise<LoginResult> {
  const { config } = request;
  if (config.url === undefined) throw new ToolmanError(ErrorCode.USAGE, `MCP server "${config.name}" is a stdio server: it takes its credentials from its environment (its entry's env), not from a login`);
  const launch = serverLaunch({ ...config, command: undefined, cwd: undefined } as McpServerConfig, request.baseDir, request.env, request.secrets);
  if (launch.kind !== 'http') throw new ToolmanError(ErrorCode.USAGE, `MCP server "${config.name}" has no url`);
  if (Object.keys(launch.headers).some((h) => h.toLowerCase() === 'authorization')) {
    throw new ToolmanError(ErrorCode.USAGE, `MCP server "${config.name}" sends its own Authorization header; toolman does not sign in to it`, { hint: 'remove the header from the entry to sign in with OAuth instead' });
  }
  const store = new TokenStore(request.env);
  const resource = canonicalResource(launch.url);
  store.forgetResource(resource);
  const oauth = { ...config.oauth, ...request.flags };
  const secretEnv = request.flags?.clientSecretEnv ?? config.oauth?.clientSecretEnv;
  const clientSecret = secretEnv ? request.env[secretEnv] : undefined;
  if (secretEnv && clientSecret === undefined) throw new ToolmanError(ErrorCode.USAGE, `environment variable ${secretEnv} (the OAuth client secret) is not set`, { hint: `set ${secretEnv}` });
  if (clientSecret) request.secrets.add(clientSecret);
  const clientMetadataUrl = config.oauth?.clientMetadataUrl ?? request.env.TOOLMAN_OAUTH_CLIENT_METADATA_URL;
  const settings: OAuthClientSettings = { ...(oauth.clientId ? { clientId: oauth.clientId } : {}), ...(clientSecret ? { clientSecret } : {}), ...(oauth.scopes?.length ? { scopes: oauth.scopes } : {}), ...(clientMetadataUrl ? { clientMetadataUrl } : {}) };
  const callback = await LoopbackCallback.start();
  try {
    const provider = new ToolmanOAuthProvider(resource, store, settings, { server: config.name, loginHint: `toolman mcp login ${config.name}` }, { callback, open: request.open, ...(request.signal ? { signal: request.signal } : {}) });
    const { McpConnection } = await import('../mcp-connection.js');
    const connection = await McpConnection.open(launch, { secrets: request.secrets, authProvider: provider, ...(request.signal ? { signal: request.signal } : {}) });
    try {
      const tools = await connection.listTools(request.signal);
      const found = store.find(resource);
      return { server: config.name, url: launch.url, issuer: found?.record.issuer, tools: tools.length, ...(connection.serverInfo ? { serverInfo: connection.serverInfo } : {}) };
    } finally {
      await connection.close();
    }
  } finally {
    await callback.close();
  }
}

/** `toolman mcp logout`: forgets a server's tokens (by URL), or all toolman holds for an issuer. */
export function logout(env: Record<string, string | undefined>, target: { url: string } | { issuer: string }): { issuers: string[] } {
  const store = new TokenStore(env);
  if ('issuer' in target) return { issuers: store.forgetIssuer(target.issuer) ? [target.issuer] : [] };
  return { issuers: store.forgetResource(canonicalResource(target.url)) };
}
