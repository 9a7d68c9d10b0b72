import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpOAuthConfig, McpProtocolChoice, McpServerConfig } from '../catalog/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';

/** Passed to every stdio server so programs can be found and behave; everything else only through `env`. */
const BASE_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'APPDATA'];

/** How to reach one server, resolved: what the connection needs and what the tool-list cache is keyed by. */
export type ServerLaunch = (
  | { kind: 'stdio'; name: string; command: string; args: string[]; cwd: string; env: Record<string, string>; timeoutMs: number }
  | { kind: 'http'; name: string; url: string; headers: Record<string, string>; timeoutMs: number; oauth?: McpOAuthConfig }
) & {
  /** The MCP revision to speak (the entry's `protocol`, default auto). */
  protocol: McpProtocolChoice;
  /** The roots offered when the server asks: `file://` URIs of the entry's `roots`, resolved. Absent: none declared. */
  roots?: { uri: string; name: string }[];
};

/** How long a server gets to start and answer `initialize` and the first `tools/list`. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/**
 * A server entry made concrete: `cwd` resolved from the catalog file's folder, the environment
 * built from an allow-list (the base names plus the entry's `env`), and `${env:NAME}` filled in
 * `env` values, `headers` and `url`; every filled value is registered as a secret, so it is
 * redacted from whatever toolman prints or returns.
 */
export function serverLaunch(
  config: Pick<McpServerConfig, 'name' | 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers' | 'timeoutMs' | 'protocol' | 'roots' | 'oauth'>,
  baseDir: string,
  env: Record<string, string | undefined>,
  secrets: SecretSet,
): ServerLaunch {
  const timeoutMs = config.timeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const shared = {
    protocol: config.protocol ?? 'auto',
    ...(config.roots ? { roots: config.roots.map((root) => ({ uri: pathToFileURL(isAbsolute(root) ? root : resolve(baseDir, root)).href, name: root })) } : {}),
  } as const;
  const fill = (text: string, where: string) =>
    text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const value = env[name];
      if (value === undefined) {
        throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${config.name}": environment variable ${name} (in ${where}) is not set`, { hint: `set ${name}, or remove it from the server's entry` });
      }
      secrets.add(value);
      return value;
    });
  if (config.url !== undefined) {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(config.headers)) headers[key] = fill(value, `headers.${key}`);
    const url = fill(config.url, 'url');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${config.name}": url is not an http(s) URL`, { hint: 'write the server\'s streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp' });
    }
    return { kind: 'http', name: config.name, url, headers, timeoutMs, ...shared, ...(config.oauth ? { oauth: config.oauth } : {}) };
  }
  if (config.command === undefined || config.command === '') {
    throw new ToolmanError(ErrorCode.MCP_SERVER, `MCP server "${config.name}" has neither command nor url`, { hint: 'give `command` (stdio) or `url` (streamable HTTP)' });
  }
  const childEnv: Record<string, string> = {};
  for (const name of BASE_ENV) if (env[name] !== undefined) childEnv[name] = env[name]!;
  for (const [name, value] of Object.entries(config.env)) childEnv[name] = fill(String(value), `env.${name}`);
  const cwd = config.cwd === undefined ? baseDir : isAbsolute(config.cwd) ? config.cwd : resolve(baseDir, config.cwd);
  return { kind: 'stdio', name: config.name, command: config.command, args: [...config.args], cwd, env: childEnv, timeoutMs, ...shared };
}

/**
 * What identifies a server's tool list for the cache: command, arguments, folder and the entry's
 * own environment, or URL and headers (a token can change which tools a server offers). The cache
 * only ever stores a hash of it, so the secrets among these values are never written.
 */
export function launchKey(launch: Pick<Extract<ServerLaunch, { kind: 'http' }>, 'kind' | 'name' | 'url' | 'headers' | 'timeoutMs'> | Pick<Extract<ServerLaunch, { kind: 'stdio' }>, 'kind' | 'name' | 'command' | 'args' | 'cwd' | 'env' | 'timeoutMs'>): Record<string, unknown> {
  if (launch.kind === 'http') return { url: launch.url, headers: sorted(launch.headers) };
  const own = Object.fromEntries(Object.entries(launch.env).filter(([name]) => !(BASE_ENV as readonly string[]).includes(name)));
  return { command: launch.command, args: launch.args, cwd: launch.cwd, env: sorted(own) };
}

function sorted(values: Record<string, string>): [string, string][] {
  return Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `npx -y server .` or the URL: how a server is named in messages (never its environment or headers). */
export function describeLaunch(launch: ServerLaunch): string {
  return launch.kind === 'http' ? launch.url : [launch.command, ...launch.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}
