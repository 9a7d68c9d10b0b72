import { checkProfiles } from './check-profiles.js';
import { checkProviders } from './check-providers.js';
import { checkTools } from './check-tools.js';
import type { Diagnostic } from '../catalog/diagnostic.js';
import { sortDiagnostics } from '../catalog/diagnostic.js';
import { loadCatalog, type LoadedCatalog, type LoadOptions } from '../catalog/load-catalog.js';

export interface ValidationResult {
  loaded: LoadedCatalog;
  diagnostics: Diagnostic[];
}

/**
 * Every check on a loaded catalog: the loader's findings (YAML, includes, schema) plus the
 * semantic checks. Semantic checks run even when the schema found errors, on whatever parts of
 * the catalog could be read, so one run reports as much as it can.
 */
export async function checkLoadedCatalog(loaded: LoadedCatalog): Promise<Diagnostic[]> {
  const fatal = loaded.diagnostics.some((d) => d.code === 'TM0001' && d.severity === 'error');
  if (!fatal || loaded.catalog.tools.length > 0) {
    checkTools(loaded);
    checkProfiles(loaded);
    checkProviders(loaded, loaded.catalog.files[0]);
  }
  return sortDiagnostics(loaded.diagnostics);
}

/** Loads `paths` as one catalog and checks it. Throws only when a root file cannot be read. */
export async function validateCatalog(paths: readonly string[], options: LoadOptions = {}): Promise<ValidationResult> {
  const loaded = loadCatalog(paths, options);
  return { loaded, diagnostics: await checkLoadedCatalog(loaded) };
}
