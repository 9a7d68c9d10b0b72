import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

/**
 * A small OAuth authorization server for the resource-server side of `toolman serve`
 * (`--auth-issuer`): it publishes RFC 8414 metadata and a key set, and mints signed access
 * tokens on the test's say-so (no authorization flow: the client side has its own AS in
 * oauth-server.ts). Switches make it misbehave: an issuer that differs from its URL, metadata at
 * the OpenID Connect path only, a key set too large to read.
 */
export interface TestAuthServer {
  issuer: string;
  /** A token signed by the server's key (ES256), with `iss`, `sub`, `aud`, `exp` unless overridden; `null` removes a claim. */
  token(claims?: Record<string, unknown>, options?: { alg?: string; key?: 'server' | 'stranger'; header?: Record<string, unknown> }): Promise<string>;
  /** How many times the key set was fetched. */
  jwksFetches(): number;
  close(): Promise<void>;
}

export interface AuthServerOptions {
  /** The path part of the issuer (`/tenant`). */
  path?: string;
  /** What the metadata says the issuer is (default: the real one). */
  claimIssuer?: (issuer: string) => string;
  /** Serve the metadata at OpenID Connect discovery only. */
  oidcOnly?: boolean;
  /** Pad the key set to this many bytes. */
  jwksBytes?: number;
  /** The audience tokens carry by default. */
  audience?: string;
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const es256 = await generateKeyPair('ES256');
  const stranger = await generateKeyPair('ES256');
  const rs256 = await generateKeyPair('RS256');
  const jwk = (key: Parameters<typeof exportJWK>[0], kid: string, alg: string) => exportJWK(key).then((j): JWK => ({ ...j, kid, alg, use: 'sig' }));
  const keys = [await jwk(es256.publicKey, 'es', 'ES256'), await jwk(rs256.publicKey, 'rs', 'RS256')];
  let fetches = 0;
  const path = options.path ?? '';
  let issuer = '';
  const http: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const metadata = {
      issuer: options.claimIssuer ? options.claimIssuer(issuer) : issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${new URL(issuer).origin}/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    };
    if (url === `/.well-known/oauth-authorization-server${path}` && !options.oidcOnly) return json(200, metadata);
    if (url === `/.well-known/openid-configuration${path}`) return json(200, metadata);
    if (url === '/jwks') {
      fetches++;
      const body: Record<string, unknown> = { keys };
      if (options.jwksBytes) body.padding = 'x'.repeat(options.jwksBytes);
      return json(200, body);
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address() as { port: number };
  issuer = `http://127.0.0.1:${address.port}${path}`;
  return {
    issuer,
    async token(claims = {}, tokenOptions = {}) {
      const alg = tokenOptions.alg ?? 'ES256';
      const payload: JWTPayload = { iss: issuer, sub: 'alice', ...(options.audience ? { aud: options.audience } : {}), scope: 'mcp', ...claims };
      for (const [key, value] of Object.entries(payload)) if (value === null) delete payload[key];
      let jwt = new SignJWT(payload).setProtectedHeader({ alg, kid: alg === 'RS256' ? 'rs' : 'es', ...tokenOptions.header }).setIssuedAt();
      if (!('exp' in claims)) jwt = jwt.setExpirationTime('10m');
      if (alg === 'none') {
        // An unsecured JWT (RFC 7519 §6): no signature at all.
        const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...payload, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 })}.`;
      }
      // HS256 with a key anyone could guess: accepted only by a verifier that lets the token pick its algorithm.
      const key = alg === 'HS256' ? new TextEncoder().encode('x'.repeat(32)) : tokenOptions.key === 'stranger' ? stranger.privateKey : alg === 'RS256' ? rs256.privateKey : es256.privateKey;
      return jwt.sign(key);
    },
    jwksFetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
