import { mcpLogin, mcpLogout, openInBrowser, type ServerTarget } from '../../manager/mcp-client.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { SecretSet } from '../../shared/secrets.js';
import { catalogPaths } from '../catalog-paths.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { jsonDocument } from '../output/json-document.js';
import { plainText } from '../output/terminal-text.js';

export interface McpLoginOptions {
  name?: string;
  url?: string;
  catalog?: string[];
  clientId?: string;
  clientSecretEnv?: string;
  scope?: string[];
  json?: boolean;
  signal?: AbortSignal;
}

export interface McpLogoutOptions {
  name?: string;
  url?: string;
  issuer?: string;
  catalog?: string[];
  json?: boolean;
}

/** The server a login or logout names: exactly one of NAME (an entry of the catalog) and --url. */
function targetOf(options: { name?: string; url?: string; catalog?: string[] }, io: CliIO): ServerTarget {
  if ((options.name === undefined) === (options.url === undefined)) {
    throw new ToolmanError(ErrorCode.USAGE, options.name === undefined ? 'name the server: NAME (an entry of the catalog\'s mcp_servers), or --url URL' : 'give NAME or --url, not both', { hint: 'e.g. toolman mcp login search' });
  }
  return options.url !== undefined ? { url: options.url } : { catalogs: catalogPaths(io.cwd, options.catalog), name: options.name! };
}

/**
 * Opens a sign-in page the way `mcp login` and `--login` do: with `$BROWSER` (split into words,
 * no shell), or printed on stderr for the user to open. Only these commands open a browser.
 */
export function browserFor(io: CliIO): (url: string) => Promise<void> {
  const c = palette(colorEnabled(io, io.stderr));
  return async (url) => {
    const host = new URL(url).host;
    const outcome = await openInBrowser(url, io.env, (href) => io.stderr.write(`${c.bold('toolman:')} open this page to sign in (${plainText(host)}):\n  ${plainText(href)}\n`));
    if (outcome === 'opened') io.stderr.write(`${c.dim(`toolman: the sign-in page of ${plainText(host)} is open in your browser; waiting for it to finish (5 minutes at most)`)}\n`);
  };
}

/** `toolman mcp login NAME|--url URL [--client-id ID --client-secret-env NAME --scope S...]`: a new sign-in, through the browser. */
export async function mcpLoginCommand(options: McpLoginOptions, io: CliIO): Promise<ExitCode> {
  const target = targetOf(options, io);
  const flags = {
    ...(options.clientId ? { clientId: options.clientId } : {}),
    ...(options.clientSecretEnv ? { clientSecretEnv: options.clientSecretEnv } : {}),
    ...(options.scope?.length ? { scopes: options.scope } : {}),
  };
  const secrets = new SecretSet();
  const result = await mcpLogin(target, { cwd: io.cwd, env: io.env, open: browserFor(io), flags, secrets, ...(options.signal ? { signal: options.signal } : {}) });
  if (options.json) {
    io.stdout.write(jsonDocument({ ok: true, server: result.server, url: result.url, issuer: result.issuer ?? null, tools: result.tools, server_info: result.serverInfo ?? null }) + '\n');
    return EXIT.OK;
  }
  const c = palette(colorEnabled(io, io.stdout));
  io.stdout.write(`${c.green('logged in:')} MCP server "${plainText(result.server)}" (${plainText(result.url)})${result.issuer ? ` through ${plainText(result.issuer)}` : ''}; ${result.tools} tool${result.tools === 1 ? '' : 's'}\n`);
  return EXIT.OK;
}

/** `toolman mcp logout NAME|--url URL|--issuer ISSUER`: forgets the tokens toolman holds. */
export async function mcpLogoutCommand(options: McpLogoutOptions, io: CliIO): Promise<ExitCode> {
  const target = options.issuer !== undefined ? (options.name !== undefined || options.url !== undefined ? undefined : { issuer: options.issuer }) : targetOf(options, io);
  if (!target) throw new ToolmanError(ErrorCode.USAGE, 'give one of NAME, --url and --issuer');
  const { issuers } = await mcpLogout(target, { cwd: io.cwd, env: io.env });
  if (options.json) {
    io.stdout.write(jsonDocument({ ok: true, forgotten: issuers.length > 0, issuers }) + '\n');
    return EXIT.OK;
  }
  io.stdout.write(issuers.length ? `logged out: tokens of ${issuers.map(plainText).join(', ')} forgotten\n` : 'toolman held no login for it: nothing to forget\n');
  return EXIT.OK;
}
