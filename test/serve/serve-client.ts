import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { BIN, FIXTURES, ROOT } from '../helpers/paths.js';
import { join } from 'node:path';

export const SERVE_CATALOG = join(FIXTURES, 'catalogs', 'serve', 'serve.yaml');

export interface ClientOptions {
  /** Answers elicitation requests; without it the client declares no elicitation capability. */
  elicit?: (message: string) => ElicitResult;
}

/** An SDK client that counts list_changed notices and, optionally, answers approvals. */
export function mcpClient(options: ClientOptions = {}) {
  const client = new Client({ name: 'toolman-test', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  const seen = { listChanged: 0, elicitations: [] as string[] };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.listChanged++);
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = request.params.message;
      seen.elicitations.push(message);
      return answer(message);
    });
  }
  return { client, seen };
}

/** The built `toolman serve` over stdio, driven by the SDK's client; stderr is collected. */
export async function connectStdio(args: string[] = [], options: ClientOptions & { env?: Record<string, string> } = {}) {
  const { client, seen } = mcpClient(options);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--catalog', SERVE_CATALOG, 'serve', ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  await client.connect(transport);
  return { client, seen, transport, stderr: () => stderr, pid: transport.pid! };
}

/** An SDK client over streamable HTTP, with an optional bearer token. */
export async function connectHttp(url: string, options: ClientOptions & { token?: string } = {}) {
  const { client, seen } = mcpClient(options);
  const transport = new StreamableHTTPClientTransport(new URL(url), options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {});
  await client.connect(transport);
  return { client, seen, transport };
}

/** The text of a call result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}


export async function waitUntil(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The built `toolman serve` as a child process (HTTP mode, or raw stdio), with its output collected. */
export function spawnServe(args: string[], options: { env?: Record<string, string>; stdin?: 'pipe' | 'ignore'; catalog?: string } = {}) {
  const child = spawn(process.execPath, [BIN, '--catalog', options.catalog ?? SERVE_CATALOG, 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, TOOLMAN_CACHE_DIR: 'off', ...options.env } as NodeJS.ProcessEnv,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    done,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves with the match once stderr shows it. */
    async waitFor(pattern: RegExp, ms = 10_000): Promise<RegExpExecArray> {
      await waitUntil(() => pattern.test(stderr), ms).catch(() => {
        throw new Error(`timed out waiting for ${pattern}; stderr: ${stderr}`);
      });
      return pattern.exec(stderr)!;
    },
  };
}

/** `toolman serve --port 0 ...` once it listens, with its URL. */
export async function startHttp(args: string[] = [], env: Record<string, string> = {}, catalog?: string) {
  const served = spawnServe(['--port', '0', ...args], { env, ...(catalog ? { catalog } : {}) });
  const url = (await served.waitFor(/at (http:\/\/\S+\/mcp)/))[1]!;
  return { ...served, url };
}
