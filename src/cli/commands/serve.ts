import type { Readable, Writable } from 'node:stream';
import { processSecrets } from '../../shared/secrets.js';
import type { ServeLimits } from '../../serve/call-slots.js';
import type { SearchMode } from '../../session/tool-session.js';
import { isLoopbackHost } from '../../serve/http-guard.js';
import type { BearerAuth } from '../../serve/bearer-auth.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { relayInteraction } from '../../manager/mcp-client.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { toolmanVersion } from '../../shared/package-root.js';

export interface ServeCommandOptions {
  catalog?: string[];
  profile?: string;
  port?: string;
  host?: string;
  tokenEnv?: string;
  /** Bearer tokens from this OAuth authorization server (`--auth-issuer`), with their audience and required scopes. */
  authIssuer?: string;
  authAudience?: string;
  authScope?: string[];
  /** The URL clients use, behind a proxy (`--public-url`). */
  publicUrl?: string;
  yes?: boolean;
  verbose?: boolean;
  searchMode?: SearchMode;
  signal?: AbortSignal;
  /** The protocol's streams for stdio; default: the process's own, with stray writes to stdout moved to stderr. */
  stdio?: { input: Readable; output: Writable };
  /** Standard input is a terminal (a person, not an MCP client, started it). */
  interactive?: boolean;
  maxCalls?: string;
  maxSessionCalls?: string;
  maxSessions?: string;
  bodyTimeout?: string;
  idleTimeout?: string;
}

/** The limits the options set, checked (positive whole numbers; the HTTP ones need --port). */
function limitsFrom(options: ServeCommandOptions): Partial<ServeLimits> {
  const number = (value: string | undefined, flag: string, max = 2_147_483_647): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > max) throw new ToolmanError(ErrorCode.USAGE, `${flag} must be a whole number from 1 to ${max}, not ${JSON.stringify(value)}`);
    return Number(value);
  };
  if (options.port === undefined) {
    for (const [value, flag] of [[options.maxSessions, '--max-sessions'], [options.bodyTimeout, '--body-timeout'], [options.idleTimeout, '--idle-timeout']] as const) {
      if (value !== undefined) throw new ToolmanError(ErrorCode.USAGE, `${flag} needs --port: it limits HTTP clients; stdio has one`);
    }
  }
  const limits: Partial<ServeLimits> = {};
  const set = <K extends keyof ServeLimits>(key: K, value: number | undefined) => {
    if (value !== undefined) limits[key] = value;
  };
  set('maxCalls', number(options.maxCalls, '--max-calls', 10_000));
  set('maxCallsPerSession', number(options.maxSessionCalls, '--max-session-calls', 10_000));
  set('maxSessions', number(options.maxSessions, '--max-sessions', 100_000));
  set('bodyTimeoutMs', number(options.bodyTimeout, '--body-timeout'));
  set('idleTimeoutMs', number(options.idleTimeout, '--idle-timeout'));
  return limits;
}

/** Below this a token can be guessed; it still works, with a warning. */
const SHORT_TOKEN = 16;

/** What the options ask for, checked before the catalog is opened: bad options exit 2 at once. */
function transportFrom(options: ServeCommandOptions, io: CliIO, warn: (line: string) => void): { host: string; port: number; token?: string } | undefined {
  if (options.port === undefined) {
    if (options.host !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--host needs --port: without it toolman serve speaks stdio', { hint: 'toolman serve --port 8808 --host 127.0.0.1' });
    if (options.tokenEnv !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--token-env needs --port: a token protects the HTTP endpoint; stdio has none', { hint: 'toolman serve --port 8808 --token-env TOOLMAN_TOKEN' });
    if (options.authIssuer !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--auth-issuer needs --port: bearer tokens protect the HTTP endpoint; a stdio server reads its credentials from the environment', { hint: 'toolman serve --port 8808 --auth-issuer https://auth.example.com' });
  }
  if (options.authIssuer === undefined) {
    for (const [value, flag] of [[options.authAudience, '--auth-audience'], [options.authScope, '--auth-scope'], [options.publicUrl, '--public-url']] as const) {
      if (value !== undefined) throw new ToolmanError(ErrorCode.USAGE, `${flag} needs --auth-issuer: it says which bearer tokens the server accepts`);
    }
  }
  if (options.authIssuer !== undefined && options.tokenEnv !== undefined) {
    throw new ToolmanError(ErrorCode.USAGE, '--token-env and --auth-issuer: choose one. With an authorization server, the server accepts only the tokens it issued (MCP 2026-07-28 basic/authorization, Token Handling: "MUST NOT accept or transit any other tokens")');
  }
  if (options.authScope?.includes('offline_access')) {
    throw new ToolmanError(ErrorCode.USAGE, '--auth-scope offline_access: that scope asks the authorization server for a refresh token; a resource server neither requires nor advertises it (MCP 2026-07-28 basic/authorization, Refresh Tokens)');
  }
  if (options.publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.publicUrl)) throw new ToolmanError(ErrorCode.USAGE, `--public-url must be an http(s) URL, not ${JSON.stringify(options.publicUrl)}`);
  if (options.port === undefined) return undefined;
  if (!/^\d{1,5}$/.test(options.port) || Number(options.port) > 65535) {
    throw new ToolmanError(ErrorCode.USAGE, `--port must be a port number from 0 to 65535, not ${JSON.stringify(options.port)}`, { hint: '0 picks a free port; the address is printed on standard error' });
  }
  const host = options.host ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:_\-[\]%]+$/.test(host)) throw new ToolmanError(ErrorCode.USAGE, `--host must be a host name or an IP address, not ${JSON.stringify(host)}`);
  let token: string | undefined;
  if (options.tokenEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.tokenEnv)) throw new ToolmanError(ErrorCode.USAGE, `--token-env takes the name of an environment variable, not ${JSON.stringify(options.tokenEnv)}`, { hint: 'the token itself never goes on the command line, where other users can see it' });
    token = io.env[options.tokenEnv];
    if (!token) throw new ToolmanError(ErrorCode.USAGE, `--token-env ${options.tokenEnv}: the variable is not set or empty`, { hint: `export ${options.tokenEnv}="$(openssl rand -hex 32)"` });
    if (/\s/.test(token)) throw new ToolmanError(ErrorCode.USAGE, `--token-env ${options.tokenEnv}: the token contains white space, which an Authorization header cannot carry`);
    if (token.length < SHORT_TOKEN) warn(`the token in ${options.tokenEnv} has ${token.length} characters; use at least ${SHORT_TOKEN} (openssl rand -hex 32)`);
  }
  if (!isLoopbackHost(host) && token === undefined && options.authIssuer === undefined) {
    throw new ToolmanError(ErrorCode.USAGE, `--host ${host} would let other machines call the catalog's tools, and no token protects it`, {
      hint: `give a bearer token from the environment (${options.tokenEnv ? '' : 'export TOOLMAN_TOKEN=...; '}toolman serve --port ${options.port} --host ${host} --token-env TOOLMAN_TOKEN), or accept an authorization server's tokens (--auth-issuer URL)`,
    });
  }
  return { host, port: Number(options.port), ...(token !== undefined ? { token } : {}) };
}

/** The resource-server side (`--auth-issuer`): the authorization server's metadata read, its keys ready to check tokens. */
async function bearerAuth(options: ServeCommandOptions, log: (line: string) => void): Promise<BearerAuth> {
  const { BearerAuth } = await import('../../serve/bearer-auth.js');
  return BearerAuth.discover({
    issuer: options.authIssuer!,
    scopes: options.authScope ?? [],
    ...(options.authAudience !== undefined ? { audience: options.authAudience } : {}),
    ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    resourceName: 'toolman serve',
    log,
  });
}

/**
 * The process's own stdio for the protocol. Standard output carries only MCP messages: anything
 * else that writes there (a module handler's console.log from its worker thread, a dependency)
 * is moved to standard error, where it cannot corrupt the stream. `restore` undoes it.
 */
function processStdio(): { input: Readable; output: Writable; restore(): void } {
  const stdout = process.stdout;
  const original = stdout.write;
  const write = original.bind(stdout) as (chunk: string) => boolean;
  stdout.write = ((...args: Parameters<typeof process.stderr.write>) => process.stderr.write(...args)) as typeof stdout.write;
  // The transport only writes and waits for drain.
  const output = { write: (chunk: string) => write(chunk), once: (event: string, listener: () => void) => (stdout.once(event, listener), output) } as unknown as Writable;
  return { input: process.stdin, output, restore: () => void (stdout.write = original) };
}

/**
 * `toolman serve`: the catalog's selected tools (profile and policies applied) as an MCP server,
 * over stdio (default) or streamable HTTP (`--port`). Calls run through the executor as in
 * `call`; a call that needs approval runs with `--yes`, or when the client's user approves it
 * through elicitation, and is declined otherwise. Runs until the client closes standard input
 * (exit 0) or toolman is stopped (Ctrl-C, SIGTERM: exit 130). Logs go to standard error.
 */
export async function serveCommand(options: ServeCommandOptions, io: CliIO): Promise<ExitCode> {
  const c = palette(colorEnabled(io, io.stderr));
  const log = (line: string) => void io.stderr.write(`${c.dim('toolman serve:')} ${line}\n`);
  const http = transportFrom(options, io, (line) => log(`${c.yellow('warning:')} ${line}`));
  const limits = limitsFrom(options);
  // The authorization server is asked for its metadata before anything opens: a wrong issuer exits 2 at once.
  const authorizer = http && options.authIssuer !== undefined ? await bearerAuth(options, log) : undefined;
  return withManager(
    io,
    options.catalog,
    async (manager) => {
      // The token guards the endpoint: a tool or a client that echoes it never gets it into a log or a result.
      if (http?.token) {
        manager.secrets.add(http.token);
        processSecrets.add(http.token);
      }
      const signal = options.signal ?? new AbortController().signal;
      const own = http || options.stdio ? undefined : processStdio();
      const streams = http ? undefined : (options.stdio ?? own);
      // The catalog's MCP servers' prompts and resources, passed through (names prefixed as their tools').
      const gateway = manager.catalog.mcpServers.size > 0 ? await (await import('../../serve/gateway.js')).CatalogGateway.open(manager, log) : undefined;
      try {
        const { serveMcp } = await import('../../serve/serve-mcp.js');
        const running = await serveMcp(manager, {
          ...(gateway ? { promptsAndResources: gateway } : {}),
          ...(options.profile ? { profile: options.profile } : {}),
          ...(options.searchMode ? { searchMode: options.searchMode } : {}),
          yes: options.yes ?? false,
          verbose: options.verbose ?? false,
          version: toolmanVersion(),
          log,
          signal,
          limits,
          ...(http ? { http: { ...http, ...(authorizer ? { authorizer } : {}) } } : { stdio: streams! }),
        });
        const { active, deferred } = running.tools;
        const what = `${active} tool${active === 1 ? '' : 's'}${deferred ? ` (+${deferred} through ${(options.searchMode ?? manager.catalog.searchMode) === 'discover' ? 'discover_tools' : 'tool_search'})` : ''} of ${manager.catalog.name}${options.profile ? `, profile ${options.profile}` : ''}${options.yes ? ', approvals by --yes' : ''}`;
        const guarded = http?.token ? 'the token from --token-env' : authorizer ? `tokens of ${options.authIssuer}` : undefined;
        log(running.url ? `serving ${what} at ${running.url}${guarded ? ` (bearer token required: ${guarded})` : ''}` : `serving ${what} over stdio`);
        if (authorizer) log(`protected-resource metadata at ${authorizer.metadataUrl}; tokens must name the audience ${authorizer.audience}`);
        if (!running.url && options.interactive) log('standard input is a terminal: start toolman serve from an MCP client (docs/serve.md); Ctrl-C stops it');
        const reason = await running.done;
        await running.close();
        log(reason === 'input_closed' ? 'the client closed the connection; stopped' : 'stopped');
        return reason === 'input_closed' ? EXIT.OK : EXIT.INTERRUPTED;
      } finally {
        gateway?.close();
        own?.restore();
      }
    },
    // The catalog's MCP servers may ask during a call: each question goes to the client whose call it is (src/serve/relayed-questions.ts).
    { requireValid: 'all', mcpInteraction: relayInteraction(log) },
  );
}
