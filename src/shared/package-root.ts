import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder holding toolman's package.json. Found by walking up from this module, because the
 * code runs both from src/ (tests) and from the bundle in dist/ (the CLI).
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'schema'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find toolman\'s package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  root = dir;
  return dir;
}

let version: string | undefined;

/** toolman's version, from its package.json (read once, on demand); '0.0.0' when it cannot be read. */
export function toolmanVersion(): string {
  if (version === undefined) {
    try {
      version = String((JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: unknown }).version);
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}
