import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, ROOT } from './paths.js';

/**
 * The real tool definitions tests run against. `../shared/data` is the source; a copy with its
 * licences is kept in test/fixtures/real-data so a clone on its own still runs every data-driven
 * test (test/real-data.test.ts keeps the copy identical to the source wherever both exist).
 * Nothing here is ever skipped: a missing folder fails the test that needs it, loudly.
 */
export const SHARED_DATA = join(ROOT, '..', 'shared', 'data');
export const VENDORED_DATA = join(FIXTURES, 'real-data');

export function realDataDir(): string {
  const dir = process.env.TOOLMAN_REAL_DATA ?? (existsSync(join(SHARED_DATA, 'mcp')) ? SHARED_DATA : VENDORED_DATA);
  if (!existsSync(join(dir, 'mcp')) || !existsSync(join(dir, 'bfcl'))) {
    throw new Error(`real data is missing: no mcp/ and bfcl/ under ${dir} (set TOOLMAN_REAL_DATA, or restore test/fixtures/real-data)`);
  }
  return dir;
}

export function realData(...path: string[]): string {
  const file = join(realDataDir(), ...path);
  if (!existsSync(file)) throw new Error(`real data file missing: ${file}`);
  return file;
}

/** Every real tool list (the MCP servers' and BFCL's functions), as paths relative to the data folder. */
export function realToolFiles(): string[] {
  const dir = realDataDir();
  const files = [...readdirSync(join(dir, 'mcp')).filter((f) => f.endsWith('.json')).map((f) => join('mcp', f)), join('bfcl', 'functions.json')];
  if (files.length < 6) throw new Error(`expected at least 6 real tool files under ${dir}, found ${files.length}`);
  return files;
}
