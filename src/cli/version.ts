import { readFileSync } from 'node:fs';

let version: string | undefined;

/** toolman's version, from package.json (read once, on demand). */
export function toolmanVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
