import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Diagnostic } from '../catalog/diagnostic.js';
import { sortDiagnostics } from '../catalog/diagnostic.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from '../catalog/diagnostic-codes.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { isRecord } from '../shared/is-record.js';
import { CRITERIA, type Criterion, type ToolQuality } from './quality-criteria.js';
import { applyRuleSettings, type RuleLevel } from './rule-settings.js';

/**
 * What the checks found on a catalog and its description-quality grades, remembered in the
 * findings cache, and the rule settings applied to findings: all that `validate` needs on an
 * unchanged catalog, so that it loads none of the checks (ajv, WordNet, the schema walkers) then.
 * Whatever is read back is untrusted (the store authenticates entries; this checks their shape).
 */

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

/** Whether the settings turn on an opt-in quality rule that has not run on this catalog yet (it then must: `withRuleSettings`). */
export function qualityPending(checked: CheckedCatalog, rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map()): boolean {
  const levels = new Map([...checked.levels, ...rules]);
  return checked.quality === 'pending' && OPT_IN.some((code) => (levels.get(code) ?? 'off') !== 'off');
}

/**
 * The findings with rule settings applied (the catalog's `lint:`, then `rules`, then disable
 * comments), joined by `extra` (findings from outside the checks: plugins'), sorted.
 */
export function settledFindings(loaded: LoadedCatalog, checked: CheckedCatalog, rules: ReadonlyMap<DiagnosticCode, RuleLevel> = new Map(), extra: readonly Diagnostic[] = []): Diagnostic[] {
  const levels = new Map([...checked.levels, ...rules]);
  return sortDiagnostics(applyRuleSettings(loaded, extra.length ? [...checked.diagnostics, ...extra] : checked.diagnostics, levels));
}

/** What the checks found on `loaded` when the cache holds it (anything of another shape is a miss). */
export function rememberedChecks(loaded: LoadedCatalog, cache: ParseCache): CheckedCatalog | undefined {
  const remembered = cache.get(findingsKey(loaded));
  return isRememberedCheck(remembered) ? { diagnostics: remembered.diagnostics, levels: new Map(remembered.levels), quality: remembered.quality } : undefined;
}

export function rememberChecks(loaded: LoadedCatalog, cache: ParseCache, checked: CheckedCatalog): void {
  cache.set(findingsKey(loaded), { diagnostics: checked.diagnostics, levels: [...checked.levels], quality: checked.quality });
}

/** The description-quality grades of `loaded`'s tools when the cache holds them, rebuilt field by field (anything of another shape is a miss). */
export function rememberedGrades(loaded: LoadedCatalog, cache: ParseCache): ToolQuality[] | undefined {
  const remembered = cache.get(`grades\u0000${findingsKey(loaded)}`);
  if (!Array.isArray(remembered) || !remembered.every(isGrade)) return undefined;
  return remembered.map((g: ToolQuality) => ({ tool: g.tool, score: g.score, checks: Object.fromEntries(CRITERIA_NAMES.map((c) => [c, g.checks[c]])) as Record<Criterion, boolean | null>, graded_by: 'rules' }));
}

export function rememberGrades(loaded: LoadedCatalog, cache: ParseCache, grades: readonly ToolQuality[]): void {
  cache.set(`grades\u0000${findingsKey(loaded)}`, grades);
}

/**
 * Findings from outside the checks, located, when the cache holds them for this catalog and
 * `inputs` (what they were made from, besides the files: the plugins' answers); anything of
 * another shape is a miss. Placing a finding parses its file again for the positions, which on an
 * unchanged catalog is the same work every run (a second per 200 findings at 10,000 tools).
 */
export function rememberedFindings(loaded: LoadedCatalog, cache: ParseCache, inputs: string): Diagnostic[] | undefined {
  const remembered = cache.get(`located\u0000${findingsKey(loaded)}\u0000${inputs}`);
  return Array.isArray(remembered) && remembered.every(isDiagnostic) ? (remembered as Diagnostic[]) : undefined;
}

export function rememberFindings(loaded: LoadedCatalog, cache: ParseCache, inputs: string, found: readonly Diagnostic[]): void {
  cache.set(`located\u0000${findingsKey(loaded)}\u0000${inputs}`, found);
}

const CRITERIA_NAMES = Object.keys(CRITERIA) as Criterion[];

function isGrade(value: unknown): value is ToolQuality {
  if (!isRecord(value) || typeof value.tool !== 'string' || !Number.isInteger(value.score) || (value.score as number) < 0 || (value.score as number) > 100 || value.graded_by !== 'rules') return false;
  const checks = value.checks;
  return isRecord(checks) && Object.keys(checks).length === CRITERIA_NAMES.length && CRITERIA_NAMES.every((c) => checks[c] === true || checks[c] === false || checks[c] === null);
}

/** Keys by catalog as loaded: hashing every file's bytes once, however often it is asked. */
const keys = new WeakMap<LoadedCatalog, string>();

/**
 * What the checks find is a pure function of the files as read (their paths and text), the
 * loader's findings, which module files exist, and the build (the cache's own key).
 */
function findingsKey(loaded: LoadedCatalog): string {
  let key = keys.get(loaded);
  if (key !== undefined) return key;
  const hash = createHash('sha256');
  for (const [path, file] of [...loaded.sources].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    hash.update(`${path}\u0000${file.absolutePath}\u0000`);
    hash.update(`\u0000${file.hashInto(hash)}\u0000`);
  }
  const modules = loaded.catalog.tools.flatMap((t) => (t.handler?.kind === 'module' ? [t.handler.file] : []));
  hash.update(JSON.stringify([loaded.diagnostics, modules.map((file) => [file, existsSync(file)])]));
  key = `findings\u0000${hash.digest('hex')}`;
  keys.set(loaded, key);
  return key;
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
