import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';
import type { McpProtocolChoice } from '../catalog/types.js';
import { McpConnection } from './mcp-connection.js';
import { serverLaunch } from './server-launch.js';

/** A server named on the command line (`toolman mcp ... [--url U | -- COMMAND ARGS...]`). */
export interface AdHocServer {
  /** The program and its arguments (after `--`). */
  command?: readonly string[];
  url?: string;
  /** Environment variables passed to a stdio server (by name; their values are secrets). */
  env?: readonly string[];
  /** `Name: value` headers for an HTTP server (their values are secrets). */
  headers?: readonly string[];
  timeoutMs?: number;
  /** `--protocol`: auto (default), legacy or 2026-07-28. */
  protocol?: McpProtocolChoice;
}

/** The name the one server of an ad-hoc catalog gets. */
export const AD_HOC_SERVER = 'server';

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks that exactly one of a command and a URL was given, and that a URL is one. */
export function checkAdHocServer(server: AdHocServer): void {
  const hasCommand = (server.command?.length ?? 0) > 0;
  if (hasCommand === (server.url !== undefined)) {
    throw new ToolmanError(ErrorCode.USAGE, hasCommand ? 'give a server command after -- or --url, not both' : 'name the server: --url URL, or -- COMMAND ARGS...', {
      hint: 'e.g. toolman mcp tools -- npx -y @modelcontextprotocol/server-everything',
    });
  }
  if (server.url !== undefined && !isHttpUrl(server.url)) {
    throw new ToolmanError(ErrorCode.USAGE, `--url ${JSON.stringify(server.url.slice(0, 80))} is not an http(s) URL`, { hint: 'the server\'s streamable HTTP endpoint, e.g. --url http://127.0.0.1:3001/mcp' });
  }
  for (const header of server.headers ?? []) {
    if (!/^[A-Za-z0-9-]+:/.test(header)) throw new ToolmanError(ErrorCode.USAGE, `--header ${JSON.stringify(header.slice(0, 40))} is not "Name: value"`);
  }
  if (server.protocol !== undefined && !PROTOCOLS.includes(server.protocol)) {
    throw new ToolmanError(ErrorCode.USAGE, `--protocol ${JSON.stringify(String(server.protocol).slice(0, 40))} is not one of ${PROTOCOLS.join(', ')}`, { hint: 'auto asks the server; legacy speaks 2025-11-25; 2026-07-28 refuses an older server' });
  }
}

const PROTOCOLS: readonly McpProtocolChoice[] = ['auto', 'legacy', '2026-07-28'];

/**
 * A catalog holding just this server, as YAML (every value written as a JSON string, which YAML
 * reads as the same string, so nothing from the command line becomes YAML structure). `cwd` is
 * where a stdio server runs. `include` keeps only the tools named (by MCP name).
 */
export function adHocCatalogText(server: AdHocServer, cwd: string, include: readonly string[] = []): string {
  checkAdHocServer(server);
  const q = (value: string) => JSON.stringify(value);
  const lines = ['toolman: 1', 'name: mcp', 'mcp_servers:', `  ${AD_HOC_SERVER}:`];
  if (server.url !== undefined) {
    lines.push(`    url: ${q(server.url)}`);
    if (server.headers?.length) {
      lines.push('    headers:');
      for (const header of server.headers) {
        const at = header.indexOf(':');
        lines.push(`      ${q(header.slice(0, at).trim())}: ${q(header.slice(at + 1).trim())}`);
      }
    }
  } else {
    const [command, ...args] = server.command!;
    lines.push(`    command: ${q(command!)}`, `    args: [${args.map(q).join(', ')}]`, `    cwd: ${q(cwd)}`);
    if (server.env?.length) {
      lines.push('    env:');
      for (const name of server.env) lines.push(`      ${q(name)}: ${q(`\${env:${name}}`)}`);
    }
  }
  if (server.timeoutMs !== undefined) lines.push(`    timeout_ms: ${Math.max(1, Math.floor(server.timeoutMs))}`);
  if (server.protocol !== undefined) lines.push(`    protocol: ${q(server.protocol)}`);
  if (include.length) lines.push(`    include: [${include.map(q).join(', ')}]`);
  return lines.join('\n') + '\n';
}

/** Starts (or reaches) the server, lists its tools and stops it: for `toolman import --mcp`. */
export async function listAdHocTools(server: AdHocServer, cwd: string, env: Record<string, string | undefined>, secrets: SecretSet, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
  checkAdHocServer(server);
  const headers: Record<string, string> = {};
  for (const header of server.headers ?? []) {
    const at = header.indexOf(':');
    const value = header.slice(at + 1).trim();
    headers[header.slice(0, at).trim()] = value;
    secrets.add(value);
  }
  const envMap: Record<string, string> = {};
  for (const name of server.env ?? []) envMap[name] = `\${env:${name}}`;
  const [command, ...args] = server.command ?? [];
  const launch = serverLaunch(
    { name: AD_HOC_SERVER, ...(server.url !== undefined ? { url: server.url } : { command: command! }), args, env: envMap, cwd, headers, ...(server.timeoutMs !== undefined ? { timeoutMs: server.timeoutMs } : {}), ...(server.protocol !== undefined ? { protocol: server.protocol } : {}) },
    cwd,
    env,
    secrets,
  );
  const connection = await McpConnection.open(launch, { secrets, ...(signal ? { signal } : {}) });
  try {
    return await connection.listTools(signal);
  } finally {
    await connection.close();
  }
}
