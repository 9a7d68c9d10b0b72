import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

let version: string | undefined;

/** toolman's version, from package.json (read once, on demand). */
export function toolmanVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
