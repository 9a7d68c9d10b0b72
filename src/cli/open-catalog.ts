import { loadCatalog, type LoadedCatalog } from '../catalog/load-catalog.js';
import { ErrorCode, ToolmanError } from '../errors.js';
import { catalogPaths } from './catalog-paths.js';
import type { CliIO } from './io.js';

/**
 * Loads the catalog a command works on. Commands other than `validate` refuse a catalog whose
 * YAML or schema is broken, naming the first problem, rather than work on half of it.
 */
export function openCatalog(io: CliIO, explicit: readonly string[] | undefined): LoadedCatalog {
  const loaded = loadCatalog(catalogPaths(io.cwd, explicit), { cwd: io.cwd });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new ToolmanError(
      ErrorCode.CATALOG_INVALID,
      `the catalog has ${errors.length} error${errors.length === 1 ? '' : 's'}; first: ${first.file}:${first.line}:${first.column} ${first.code} ${first.message}`,
      { hint: `run \`toolman validate ${loaded.catalog.files[0] ?? ''}\` to see them all`.replace(/ `$/, '`') },
    );
  }
  return loaded;
}
