import { checkProfiles } from './check-profiles.js';
import { checkConfusableTools } from './check-confusable-tools.js';
import { checkAgents } from './check-agents.js';
import { checkProviders } from './check-providers.js';
import { checkTools } from './check-tools.js';
import { checkOutputSchemas } from './check-output-schema.js';
import { checkResultHandling } from './check-result-handling.js';
import type { Diagnostic } from '../catalog/diagnostic.js';
import { sortDiagnostics } from '../catalog/diagnostic.js';
import type { DiagnosticCode } from '../catalog/diagnostic-codes.js';
import { applyRuleSettings, lintLevels, type RuleLevel } from './rule-settings.js';
import { loadCatalog, type LoadedCatalog, type LoadOptions } from '../catalog/load-catalog.js';
import { Reporter } from '../catalog/reporter.js';
import type { ParseCache } from '../catalog/parse-cache.js';

export interface ValidationResult {
  loaded: LoadedCatalog;
  diagnostics: Diagnostic[];
}

/** What the checks found before rule settings apply, and the catalog's own settings (`lint:`). */
export interface CheckedCatalog {
  diagnostics: Diagnostic[];
  levels: Map<DiagnosticCode, RuleLevel>;
}

/**
 * Every check on a loaded catalog: the loader's findings (YAML, includes, schema) plus the
 * semantic checks. Semantic checks run even when the schema found errors, on whatever parts of
 * the catalog could be read, so one run reports as much as it can. The loaded catalog is not
 * changed: the checks report into a copy of its findings, which is returned; `withRuleSettings`
 * then applies levels and comments.
 */
export function runChecks(given: LoadedCatalog, options: { schemaChecks?: ParseCache } = {}): CheckedCatalog {
  const diagnostics = [...given.diagnostics];
  const loaded: LoadedCatalog = { ...given, diagnostics, reporters: new Map([...given.reporters].map(([path, reporter]) => [path, new Reporter(reporter.file, diagnostics)])) };
  const fatal = loaded.diagnostics.some((d) => d.code === 'TM0001' && d.severity === 'error');
  if (!fatal || loaded.catalog.tools.length > 0) {
    checkTools(loaded, options.schemaChecks);
    checkProfiles(loaded);
    checkConfusableTools(loaded);
    checkAgents(loaded);
    const before = loaded.diagnostics.length;
    checkProviders(loaded, loaded.catalog.files[0]);
    // A tool whose parameters are broken gets no provider findings: they restate the same mistake
    // (a dangling $ref is also "Gemini cannot send this"), and the schema error says it first.
    const broken = new Set(loaded.diagnostics.slice(0, before).filter((d) => d.severity === 'error' && /^TM03/.test(d.code) && d.tool !== undefined).map((d) => `${d.file}\u0000${d.tool}`));
    if (broken.size) {
      const kept = loaded.diagnostics.slice(before).filter((d) => !(/^TM040[1-4]$/.test(d.code) && broken.has(`${d.file}\u0000${d.tool}`)));
      loaded.diagnostics.splice(before, loaded.diagnostics.length - before, ...kept);
    }
    // After the provider checks: a broken output schema says nothing about what a provider is sent.
    checkOutputSchemas(loaded);
    checkResultHandling(loaded);
  }
  const levels = lintLevels(loaded);
  return { diagnostics: loaded.diagnostics, levels };
}

/** The findings with rule settings applied: the catalog's `lint:`, then `rules` (`--rule`), then disable comments. */
export function withRuleSettings(loaded: LoadedCatalog, checked: CheckedCatalog, rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map()): Diagnostic[] {
  return sortDiagnostics(applyRuleSettings(loaded, checked.diagnostics, new Map([...checked.levels, ...rules])));
}

/** Every finding `validate` reports for a loaded catalog. */
export async function checkLoadedCatalog(loaded: LoadedCatalog, rules?: ReadonlyMap<DiagnosticCode, RuleLevel>): Promise<Diagnostic[]> {
  return withRuleSettings(loaded, runChecks(loaded), rules);
}

/** Loads `paths` as one catalog and checks it. Throws only when a root file cannot be read. */
export async function validateCatalog(paths: readonly string[], options: LoadOptions = {}): Promise<ValidationResult> {
  const loaded = loadCatalog(paths, options);
  return { loaded, diagnostics: await checkLoadedCatalog(loaded) };
}
