import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CATALOG } from '../manager/choose-catalogs.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';

/** The catalog files a command works on: --catalog values, else ./toolman.yaml. */
export function catalogPaths(cwd: string, explicit: readonly string[] | undefined): string[] {
  if (explicit && explicit.length > 0) return [...explicit];
  if (existsSync(resolve(cwd, DEFAULT_CATALOG))) return [DEFAULT_CATALOG];
  throw new ToolmanError(ErrorCode.CATALOG_NOT_FOUND, `no catalog: looked for ${DEFAULT_CATALOG} in ${cwd}`, {
    hint: `pass one with --catalog FILE, or create ${DEFAULT_CATALOG} (see catalogs/ for examples)`,
  });
}
