import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, ROOT } from '../helpers/paths.js';

export const SERVERS = join(FIXTURES, 'mcp', 'servers');
export const EVERYTHING = join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');
export const FILESYSTEM = join(ROOT, 'node_modules', '.bin', 'mcp-server-filesystem');
export const NODE = process.execPath;

/** A folder with `toolman.yaml` holding `yaml`, for one test. */
export function catalogDir(yaml: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-'));
  const file = join(dir, 'toolman.yaml');
  writeFileSync(file, yaml);
  return { dir, file };
}


/** A server entry for the scripted fixture server in `mode`. */
export function scripted(mode: string, extra = ''): string {
  return `    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(SERVERS, 'scripted-server.mjs'))}, ${mode}]\n${extra}`;
}

export const MODERN = join(SERVERS, 'modern-server.mjs');

/** The v2 fixture server over streamable HTTP on a free loopback port; `stop` ends it. */
export async function startModernHttp(args: string[] = [], env: Record<string, string> = {}): Promise<{ url: string; stop: () => void }> {
  const { spawn } = await import('node:child_process');
  const { existsSync, readFileSync } = await import('node:fs');
  const portFile = join(mkdtempSync(join(tmpdir(), 'toolman-modern-')), 'port');
  const child = spawn(NODE, [MODERN, 'http', portFile, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const started = Date.now();
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8') === '') {
    if (child.exitCode !== null || Date.now() - started > 10_000) throw new Error(`the fixture server did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: `http://127.0.0.1:${readFileSync(portFile, 'utf8')}/mcp`, stop: () => child.kill() };
}
