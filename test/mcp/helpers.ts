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
