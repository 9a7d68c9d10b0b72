import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic } from '../../catalog/diagnostic.js';
import type { Tool } from '../../catalog/types.js';
import { nearest } from '../../shared/did-you-mean.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { adHocCatalogText, checkAdHocServer, type AdHocServer } from '../../manager/imports.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { ProviderName } from '../../providers/types.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { writePrivateFile } from '../../shared/output-file.js';
import { plainText } from '../output/terminal-text.js';
import { jsonDocument } from '../output/json-document.js';
import { createTable } from '../output/table.js';
import { callWith, type CallOptions } from './call.js';
import { cliInteraction } from '../mcp-interaction.js';
import { browserFor } from './mcp-login.js';
import type { McpInteraction } from '../../manager/mcp-client.js';

export interface McpServerOptions {
  /** The server's program and arguments (after `--`). */
  command?: string[];
  url?: string;
  env?: string[];
  header?: string[];
  timeout?: string;
  /** --protocol: auto, legacy or 2026-07-28. */
  protocol?: string;
  /** --login: sign in through the browser when the HTTP server asks for it. */
  login?: boolean;
}

export interface McpToolsOptions extends McpServerOptions {
  json?: boolean;
}

const PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'gemini'];

/** The server as the core takes it, from the command's flags. */
export function serverOf(options: McpServerOptions): AdHocServer {
  const timeout = options.timeout === undefined ? undefined : Number(options.timeout);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) throw new ToolmanError(ErrorCode.USAGE, `--timeout ${JSON.stringify(options.timeout)} is not a number of milliseconds`);
  const server: AdHocServer = {
    ...(options.command?.length ? { command: options.command } : {}),
    ...(options.url !== undefined ? { url: options.url } : {}),
    ...(options.env?.length ? { env: options.env } : {}),
    ...(options.header?.length ? { headers: options.header } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ...(options.protocol !== undefined ? { protocol: options.protocol as AdHocServer['protocol'] } : {}),
  };
  checkAdHocServer(server);
  return server;
}

/**
 * Runs `run` over a catalog holding only the named server (written to a temporary folder, never
 * cached: the user asked this server, now). A server that cannot be started is a failure (exit 1)
 * with its stderr tail.
 */
export async function withServer<T>(io: CliIO, server: AdHocServer, run: (manager: ToolManager) => Promise<T>, options: { mcpInteraction?: McpInteraction | undefined; login?: boolean | undefined; exitGraceMs?: number } = {}): Promise<T> {
  const { mcpInteraction } = options;
  // Only --login opens a browser; otherwise a server that needs a login says how to log in.
  const again = server.url !== undefined ? `run again with --login, or: toolman mcp login --url ${server.url}` : 'run again with --login';
  const mcpAuth = { ...(options.login ? { login: { open: browserFor(io) } } : {}), loginHint: () => again };
  const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-'));
  const file = join(dir, 'server.yaml');
  writePrivateFile(file, adHocCatalogText(server, io.cwd), { label: 'the server\'s catalog', mode: 'new' });
  const serverIO: CliIO = { ...io, env: { ...io.env, TOOLMAN_CACHE_DIR: 'off' } };
  try {
    return await withManager(
      serverIO,
      [file],
      async (manager) => {
        const status = manager.mcpServers()[0];
        if (status?.source === 'unavailable') {
          const finding = manager.loaded.diagnostics.find((d) => d.code === 'TM0831' || d.code === 'TM0802');
          throw new ToolmanError(ErrorCode.MCP_SERVER, manager.secrets.redact(status.error ?? 'the MCP server is unavailable'), finding?.hint ? { hint: finding.hint } : {});
        }
        return run(manager);
      },
      { requireValid: false, mcpAuth, ...(mcpInteraction ? { mcpInteraction } : {}), ...(options.exitGraceMs !== undefined ? { mcpExitGraceMs: options.exitGraceMs } : {}) },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `toolman mcp tools [--url U | -- COMMAND ARGS...]`: a server's tools with their token cost per provider and lint findings. */
/**
 * How long a server that was only listed may take to exit before it is stopped (issue 24: no
 * idle wait beyond 50 ms after the listing). A listing changed nothing the server must save;
 * a call (`mcp call`) keeps the usual grace, since the server may still be writing its effect.
 */
const LISTING_EXIT_GRACE = { exitGraceMs: 50 };

export async function mcpToolsCommand(options: McpToolsOptions, io: CliIO): Promise<ExitCode> {
  const server = serverOf(options);
  return withServer(io, server, async (manager) => {
    const tools = manager.catalog.tools;
    const costs = new Map<string, Record<string, number>>();
    for (const provider of PROVIDERS) {
      const report = await manager.budget({ provider });
      for (const row of report.tools) costs.set(row.name, { ...costs.get(row.name), [provider]: row.tokens });
    }
    const findings = new Map<string, Diagnostic[]>();
    const general: Diagnostic[] = [];
    for (const d of await manager.validate()) {
      if (d.tool === undefined) general.push(d);
      else findings.set(d.tool, [...(findings.get(d.tool) ?? []), d]);
    }
    const rows = tools.map((tool) => ({
      name: tool.name,
      mcp_name: tool.source.kind === 'mcp' ? tool.source.tool : tool.name,
      title: tool.title ?? null,
      effect: tool.effect,
      tags: tool.tags,
      parameters: tool.parameters,
      tokens: costs.get(tool.name) ?? {},
      // Errors first, then tool poisoning (TM12xx), then the rest: the table shows the first.
      findings: [...(findings.get(tool.name) ?? [])].sort((a, b) => rank(a) - rank(b)).map((d) => ({ code: d.code, severity: d.severity, message: stripSubject(d.message) })),
    }));
    const totals = Object.fromEntries(PROVIDERS.map((p) => [p, rows.reduce((sum, r) => sum + (r.tokens[p] ?? 0), 0)]));
    if (options.json) {
      io.stdout.write(jsonDocument({ tools: rows, totals, findings: general.map((d) => ({ code: d.code, severity: d.severity, message: d.message })) }) + '\n');
      return EXIT.OK;
    }
    const c = palette(colorEnabled(io, io.stdout));
    const table = await createTable(['name', 'effect', ...PROVIDERS, 'findings'], io);
    for (const row of rows) {
      const first = row.findings[0];
      const message = plainText(first?.message ?? '');
      const summary = first ? `${first.code} ${message.length > 60 ? `${message.slice(0, 59)}…` : message}${row.findings.length > 1 ? ` (+${row.findings.length - 1})` : ''}` : '';
      table.push([plainText(row.name), row.effect, ...PROVIDERS.map((p) => String(row.tokens[p] ?? '')), summary]);
    }
    io.stdout.write(table.toString() + '\n');
    io.stdout.write(`${rows.length} tool${rows.length === 1 ? '' : 's'}; definitions cost ${PROVIDERS.map((p) => `${p} ${totals[p]}`).join(', ')} tokens\n`);
    for (const d of general) io.stdout.write(`${d.severity === 'error' ? c.red(d.severity) : c.yellow(d.severity)} ${d.code} ${plainText(d.message)}\n`);
    return EXIT.OK;
  }, { login: options.login, ...LISTING_EXIT_GRACE });
}

function rank(d: Diagnostic): number {
  return d.severity === 'error' ? 0 : d.code.startsWith('TM12') ? 1 : d.severity === 'warning' ? 2 : 3;
}

/** `mcp server "server" tool "x": ...` → `...`: the table names the tool already. */
function stripSubject(message: string): string {
  return message.replace(/^mcp server "(?:[^"\\]|\\.)*" tool "(?:[^"\\]|\\.)*"(?: \(MCP name "(?:[^"\\]|\\.)*"\))?: /, '');
}

export interface McpCallOptions extends McpServerOptions, Omit<CallOptions, 'catalog' | 'tool' | 'batch' | 'profile' | 'provider' | 'strict' | 'geminiJsonSchema'> {
  tool: string;
}

/**
 * `toolman mcp call TOOL --args JSON [--url U | -- COMMAND ARGS...]`: one call through the executor
 * (validation against the tool's schema, confirmation for destructive tools, the timeout), as
 * `toolman call` runs it. TOOL is the server's own name for the tool.
 */
export async function mcpCallCommand(options: McpCallOptions, io: CliIO): Promise<ExitCode> {
  const server = serverOf(options);
  if (options.tool.trim() === '') throw new ToolmanError(ErrorCode.USAGE, 'name the tool to call');
  const { command: _c, url: _u, env: _e, header: _h, timeout: _t, protocol: _p, login: _l, tool: _tool, ...call } = options;
  // One start of the server: its tools are listed, the one asked for checked and called on the same connection.
  return withServer(io, server, async (manager) => {
    const findings = await manager.validate();
    const quoted = JSON.stringify(plainText(options.tool));
    const mcpName = (tool: Tool) => (tool.source.kind === 'mcp' ? tool.source.tool : tool.name);
    const tool = manager.catalog.tools.find((t) => mcpName(t) === options.tool);
    if (!tool) {
      // Listed but skipped (a schema nested too deep, say): the note says why.
      const skipped = findings.find((d) => d.code === 'TM0804' && d.message.includes(`tool ${JSON.stringify(options.tool)}: skipped: `));
      if (skipped) throw new ToolmanError(ErrorCode.CATALOG_INVALID, `the server's tool ${quoted} cannot be called: ${plainText(skipped.message.slice(skipped.message.indexOf('skipped: ')))}`);
      const suggestions = nearest(options.tool, manager.catalog.tools.map(mcpName)).map((name) => JSON.stringify(plainText(name)));
      throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `the server has no tool ${quoted}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''}`, { hint: 'toolman mcp tools (with the same server) lists its tools' });
    }
    // As `call` refuses a catalog with errors: a definition toolman cannot use is not called.
    // Only this tool's findings count: another tool of the server is not being called.
    const errors = findings.filter((d) => d.severity === 'error' && d.tool === tool.name);
    if (errors.length > 0) {
      const first = errors[0]!;
      throw new ToolmanError(ErrorCode.CATALOG_INVALID, `the server's tool ${quoted} has a definition toolman cannot use: ${first.code} ${plainText(manager.secrets.redact(stripSubject(first.message)))}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, {
        hint: 'toolman mcp tools (with the same server) shows every finding',
      });
    }
    return callWith(manager, { ...call, tool: tool.name }, io);
  }, { mcpInteraction: cliInteraction(io, options), login: options.login });
}
