import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
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
import { sortDiagnostics } from '../catalog/diagnostic.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from '../catalog/diagnostic-codes.js';
import { applyRuleSettings, lintLevels, type RuleLevel } from './rule-settings.js';
import { loadCatalog, type LoadedCatalog, type LoadOptions } from '../catalog/load-catalog.js';
import { Reporter } from '../catalog/reporter.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { isRecord } from '../shared/is-record.js';

export interface ValidationResult {
  loaded: LoadedCatalog;
  diagnostics: Diagnostic[];
}

/** What the checks found before rule settings apply, and the catalog's own settings (`lint:`). */
export interface CheckedCatalog {
  diagnostics: Diagnostic[];
  levels: Map<DiagnosticCode, RuleLevel>;
  /**
   * Whether the opt-in description-quality checks (TM1101-TM1105) may run on this catalog, and
   * whether they have: they run on first demand in withRuleSettings, since locating a finding
   * parses its file again (over 100 ms on large.yaml) for rules that are off by default.
   */
  quality: 'not-applicable' | 'pending' | 'done';
}

const OPT_IN = (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).filter((code) => (DIAGNOSTIC_CODES[code] as { optIn?: true }).optIn);

/**
 * Every check on a loaded catalog: the loader's findings (YAML, includes, schema) plus the
 * semantic checks. Semantic checks run even when the schema found errors, on whatever parts of
 * the catalog could be read, so one run reports as much as it can. The loaded catalog is not
 * changed: the checks report into a copy of its findings, which is returned; `withRuleSettings`
 * then applies levels and comments.
 */
export function runChecks(given: LoadedCatalog, options: { schemaChecks?: ParseCache; findings?: ParseCache; mcpServers?: readonly ServerToolsStatus[] } = {}): CheckedCatalog {
  if (!options.findings) return checkNow(given, options);
  // What the checks found is a pure function of the files as read (their paths and text), the
  // loader's findings, which module files exist, and the build (the cache's own key): a catalog
  // with findings is not checked again, nor its files parsed again to place them.
  const key = findingsKey(given);
  const remembered = options.findings.get(key);
  if (isRememberedCheck(remembered)) return { diagnostics: remembered.diagnostics, levels: new Map(remembered.levels), quality: remembered.quality };
  const checked = checkNow(given, options);
  options.findings.set(key, { diagnostics: checked.diagnostics, levels: [...checked.levels], quality: checked.quality });
  return checked;
}

function findingsKey(loaded: LoadedCatalog): string {
  const hash = createHash('sha256');
  for (const [path, file] of [...loaded.sources].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    hash.update(`${path}\u0000${file.absolutePath}\u0000`);
    hash.update(`\u0000${file.hashInto(hash)}\u0000`);
  }
  const modules = loaded.catalog.tools.flatMap((t) => (t.handler?.kind === 'module' ? [t.handler.file] : []));
  hash.update(JSON.stringify([loaded.diagnostics, modules.map((file) => [file, existsSync(file)])]));
  return `findings\u0000${hash.digest('hex')}`;
}

/** Whether a value read back from the cache has the shape runChecks stores (anything else is a miss). */
function isRememberedCheck(value: unknown): value is { diagnostics: Diagnostic[]; levels: [DiagnosticCode, RuleLevel][]; quality: 'pending' | 'not-applicable' } {
  if (!isRecord(value) || (value.quality !== 'pending' && value.quality !== 'not-applicable')) return false;
  const levels = value.levels;
  if (!Array.isArray(levels) || !levels.every((l) => Array.isArray(l) && l.length === 2 && Object.hasOwn(DIAGNOSTIC_CODES, l[0]) && LEVELS.has(l[1]))) return false;
  return Array.isArray(value.diagnostics) && value.diagnostics.every(isDiagnostic);
}

const LEVELS = new Set<unknown>(['error', 'warning', 'info', 'off']);
const SEVERITIES = new Set<unknown>(['error', 'warning', 'info']);
const text = (v: unknown) => typeof v === 'string';
const whole = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const optional = (v: unknown, is: (v: unknown) => boolean) => v === undefined || is(v);

function isDiagnostic(d: unknown): boolean {
  if (!isRecord(d) || !Object.hasOwn(DIAGNOSTIC_CODES, d.code as string) || !SEVERITIES.has(d.severity)) return false;
  if (!text(d.message) || !text(d.file) || !text(d.pointer) || !whole(d.line) || !whole(d.column)) return false;
  if (!optional(d.endLine, whole) || !optional(d.endColumn, whole) || !optional(d.tool, text) || !optional(d.hint, text)) return false;
  return optional(d.fix, (fix) => isRecord(fix) && text(fix.description) && Array.isArray(fix.edits) && fix.edits.every((e) => isRecord(e) && whole(e.start) && whole(e.end) && text(e.text)));
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

/** The findings with rule settings applied: the catalog's `lint:`, then `rules` (`--rule`), then disable comments. */
export function withRuleSettings(loaded: LoadedCatalog, checked: CheckedCatalog, rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map()): Diagnostic[] {
  const levels = new Map([...checked.levels, ...rules]);
  if (checked.quality === 'pending' && OPT_IN.some((code) => (levels.get(code) ?? 'off') !== 'off')) {
    // Into the checks' own findings, like every check: the loaded catalog stays as loaded.
    checkDescriptionQuality(reportingInto(loaded, checked.diagnostics));
    checked.quality = 'done';
  }
  return sortDiagnostics(applyRuleSettings(loaded, checked.diagnostics, levels));
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
