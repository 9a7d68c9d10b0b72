import { checkProfiles, type ServerToolsStatus } from './check-profiles.js';
import { checkConfusableTools } from './check-confusable-tools.js';
import { checkAgents } from './check-agents.js';
import { checkProviders } from './check-providers.js';
import { checkTools } from './check-tools.js';
import { checkOutputSchemas } from './check-output-schema.js';
import { checkStateful } from './check-stateful.js';
import { checkPoisoning } from './check-poisoning.js';
import { checkDescriptionQuality } from './description-quality.js';
import { checkClients } from './check-clients.js';
import { checkResultHandling } from './check-result-handling.js';
import { releaseStrictCompilers } from './strict-compile.js';
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { DiagnosticCode } from '../catalog/diagnostic-codes.js';
import { applyRuleSettings, lintLevels, type RuleLevel } from './rule-settings.js';
import { loadCatalog, type LoadedCatalog, type LoadOptions } from '../catalog/load-catalog.js';
import { Reporter } from '../catalog/reporter.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { qualityPending, rememberChecks, rememberedChecks, settledFindings, type CheckedCatalog } from './remembered-checks.js';

export interface ValidationResult {
  loaded: LoadedCatalog;
  diagnostics: Diagnostic[];
}

export type { CheckedCatalog } from './remembered-checks.js';

/**
 * Every check on a loaded catalog: the loader's findings (YAML, includes, schema) plus the
 * semantic checks. Semantic checks run even when the schema found errors, on whatever parts of
 * the catalog could be read, so one run reports as much as it can. The loaded catalog is not
 * changed: the checks report into a copy of its findings, which is returned; `withRuleSettings`
 * then applies levels and comments.
 */
export function runChecks(given: LoadedCatalog, options: { schemaChecks?: ParseCache; findings?: ParseCache; mcpServers?: readonly ServerToolsStatus[] } = {}): CheckedCatalog {
  if (!options.findings) return checkNow(given, options);
  // A catalog with findings is not checked again, nor its files parsed again to place them.
  const remembered = rememberedChecks(given, options.findings);
  if (remembered) return remembered;
  const checked = checkNow(given, options);
  rememberChecks(given, options.findings, checked);
  return checked;
}

function checkNow(given: LoadedCatalog, options: { schemaChecks?: ParseCache; mcpServers?: readonly ServerToolsStatus[] }): CheckedCatalog {
  const loaded = reportingInto(given, [...given.diagnostics]);
  const fatal = loaded.diagnostics.some((d) => d.code === 'TM0001' && d.severity === 'error');
  if (!fatal || loaded.catalog.tools.length > 0) {
    checkTools(loaded, options.schemaChecks);
    checkPoisoning(loaded);
    checkProfiles(loaded, options.mcpServers);
    checkConfusableTools(loaded);
    checkAgents(loaded);
    checkClients(loaded, [...new Set(loaded.catalog.lintClients.map((c) => c.name))]);
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
    checkStateful(loaded);
    checkResultHandling(loaded);
  }
  releaseStrictCompilers();
  const levels = lintLevels(loaded);
  return { diagnostics: loaded.diagnostics, levels, quality: !fatal || loaded.catalog.tools.length > 0 ? 'pending' : 'not-applicable' };
}

/** The loaded catalog with its reporters writing into `diagnostics`: checks report there, never into the catalog as loaded. */
function reportingInto(loaded: LoadedCatalog, diagnostics: Diagnostic[]): LoadedCatalog {
  return { ...loaded, diagnostics, reporters: new Map([...loaded.reporters].map(([path, reporter]) => [path, new Reporter(reporter.file, diagnostics)])) };
}

/**
 * The findings with rule settings applied: the catalog's `lint:`, then `rules` (`--rule`), then
 * disable comments; `extra` are findings from outside the checks (plugins') joined to them.
 */
export function withRuleSettings(loaded: LoadedCatalog, checked: CheckedCatalog, rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map(), extra: readonly Diagnostic[] = []): Diagnostic[] {
  if (qualityPending(checked, rules)) {
    // Into the checks' own findings, like every check: the loaded catalog stays as loaded.
    checkDescriptionQuality(reportingInto(loaded, checked.diagnostics));
    checked.quality = 'done';
  }
  return settledFindings(loaded, checked, rules, extra);
}

/**
 * Findings for MCP clients named on the command line (`validate --client`), with the catalog's
 * rule settings and `rules` applied; the catalog's own `lint.clients` are checked by runChecks.
 */
export function clientDiagnostics(loaded: LoadedCatalog, clients: readonly string[], rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map()): Diagnostic[] {
  if (clients.length === 0) return [];
  const found: Diagnostic[] = [];
  checkClients(loaded, clients, found);
  return applyRuleSettings(loaded, found, new Map([...lintLevels(loaded, { report: false }), ...rules]), { commentProblems: false });
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
