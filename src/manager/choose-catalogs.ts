import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { plainText } from '../shared/plain-text.js';

/** The catalog a command reads when none is named. */
export const DEFAULT_CATALOG = 'toolman.yaml';

/** A catalog named by a file the user did not name as a catalog: a recording's header, a suite's `catalog:`. */
export interface NamedCatalog {
  /** Who names it, for messages: "the recording rec.jsonl". */
  by: string;
  /** The files it names, resolved. */
  files: string[];
  /** The flag that loads it anyway. */
  flag: string;
  /** The user gave that flag. */
  use: boolean;
}

export interface CatalogChoice {
  /** The files to open; undefined: ./toolman.yaml (or the "no catalog" error). */
  catalogs: string[] | undefined;
  /** Set when the catalog is the named one: open it with `namedBy` (nothing of it runs but mocks). */
  namedBy?: string;
  /** What the driver must say when it loads a named catalog: the resolved paths. */
  notice?: string;
}

/**
 * Which catalog a command opens when a recording or a suite names one. Only files the user names
 * are trusted (SECURITY.md): `--catalog`, else ./toolman.yaml. A named catalog is loaded only
 * with its opt-in flag, and then with its resolved paths said and opened as named (`namedBy`):
 * none of its programs run (no MCP server starts, only mock handlers answer). Without the flag, a
 * usage error says how to name it.
 */
export function chooseCatalogs(cwd: string, given: readonly string[] | undefined, named: NamedCatalog | undefined): CatalogChoice {
  if (given?.length) return { catalogs: [...given] };
  if (!named || named.files.length === 0) return { catalogs: undefined };
  if (existsSync(resolve(cwd, DEFAULT_CATALOG))) {
    return { catalogs: undefined, ...(named.use ? { notice: `${named.flag} is not used: ./${DEFAULT_CATALOG} is the catalog here (name another with -c)` } : {}) };
  }
  const shown = named.files.map((file) => plainText(relative(cwd, file) || file));
  if (!named.use) {
    throw new ToolmanError(ErrorCode.USAGE, `${plainText(named.by)} names the catalog ${shown.join(', ')}; toolman loads only catalogs you name`, {
      hint: `if you trust it, name it with ${shown.map((file) => `-c ${file}`).join(' ')} (its tools then run as written); or add ${named.flag} to load it with only its mock handlers answering`,
    });
  }
  return {
    catalogs: named.files,
    namedBy: named.by,
    notice: `loading the catalog ${plainText(named.by)} names (${named.flag}: no MCP server starts, only mock handlers answer): ${named.files.map(plainText).join(', ')}`,
  };
}
