import type { Diagnostic } from '../catalog/diagnostic.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode, type Severity } from '../catalog/diagnostic-codes.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { closest } from '../shared/did-you-mean.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';

export type RuleLevel = Severity | 'off';
const LEVELS: readonly RuleLevel[] = ['off', 'info', 'warning', 'error'];

const CODES = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];
const BY_NAME = new Map<string, DiagnosticCode>(CODES.map((code) => [DIAGNOSTIC_CODES[code].name, code]));

/** A rule by code (TM0304) or name (property-without-description). */
export function ruleCode(rule: string): DiagnosticCode | undefined {
  if ((CODES as string[]).includes(rule.toUpperCase())) return rule.toUpperCase() as DiagnosticCode;
  return BY_NAME.get(rule);
}

/**
 * Errors: the catalog is not read as written, a provider would reject it, or it would run
 * differently from what it says. Settings tune advice (warnings and infos, which can also be
 * raised to errors); they never hide a broken catalog, which every command that sends or runs
 * tools refuses.
 */
function fixed(code: DiagnosticCode): boolean {
  return DIAGNOSTIC_CODES[code].severity === 'error';
}

/** `--rule CODE=level` from the command line; a bad one is a usage error. */
export function parseRuleOptions(options: readonly string[]): Map<DiagnosticCode, RuleLevel> {
  const rules = new Map<DiagnosticCode, RuleLevel>();
  for (const option of options) {
    const match = /^([^=]+)=(.+)$/.exec(option.trim());
    const code = match ? ruleCode(match[1]!.trim()) : undefined;
    const level = match?.[2]!.trim() as RuleLevel | undefined;
    if (!match || !code) {
      const suggestion = match ? closest(match[1]!.trim(), [...CODES, ...BY_NAME.keys()]) : undefined;
      throw new ToolmanError(ErrorCode.USAGE, `--rule ${JSON.stringify(option)}: ${match ? `no rule "${match[1]}"` : 'write it as CODE=level'}` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
        hint: 'e.g. --rule TM0304=off or --rule property-without-description=info (docs/diagnostics.md lists the rules)',
      });
    }
    if (!LEVELS.includes(level!)) throw new ToolmanError(ErrorCode.USAGE, `--rule ${option}: the level must be one of ${LEVELS.join(', ')}`);
    if (fixed(code) && level !== 'error') throw new ToolmanError(ErrorCode.USAGE, `--rule ${option}: ${code} is an error and cannot be turned down`, { hint: 'rule settings tune warnings and infos; an error means the catalog is broken' });
    rules.set(code, level!);
  }
  return rules;
}

/**
 * The catalog's `lint:` section as levels per rule; the root file's settings win over included
 * files'. Settings that name no rule, or turn down a finding that cannot be, are reported (at the
 * setting) and ignored.
 */
export function lintLevels(loaded: LoadedCatalog, options: { report?: boolean } = {}): Map<DiagnosticCode, RuleLevel> {
  const levels = new Map<DiagnosticCode, RuleLevel>();
  for (const setting of [...loaded.catalog.lint].sort((a, b) => b.depth - a.depth)) {
    // The settings' own mistakes are reported once, by the checks; later readers only want the levels.
    const reporter = options.report === false ? undefined : loaded.reporters.get(setting.file);
    const code = ruleCode(setting.rule);
    if (!code) {
      const suggestion = closest(setting.rule, [...CODES, ...BY_NAME.keys()]);
      reporter?.report('TM0101', setting.pointer, `unknown rule "${setting.rule}" in lint` + (suggestion ? `; did you mean "${suggestion}"?` : ''), { part: 'key', hint: 'rules are codes like TM0304 or names like property-without-description (docs/diagnostics.md)' });
    } else if (fixed(code) && setting.level !== 'error') {
      reporter?.report('TM0103', setting.pointer, `${code} is an error and cannot be turned down`, { hint: 'rule settings tune warnings and infos; an error means the catalog is broken' });
    } else levels.set(code, setting.level);
  }
  return levels;
}

/**
 * Applies rule settings to findings, as ESLint and Spectral users expect: levels per rule (the
 * catalog's `lint:`, then `--rule` from the command line), and `# toolman-disable-next-line
 * [CODE...]` comments, which remove findings on the line below them (all of them with no code),
 * except those no setting can turn down.
 */
export function applyRuleSettings(loaded: LoadedCatalog, diagnostics: readonly Diagnostic[], levels: ReadonlyMap<DiagnosticCode, RuleLevel>, options: { commentProblems?: boolean } = {}): Diagnostic[] {
  const { disabled, comments } = disabledLines(loaded);
  const out: Diagnostic[] = [];
  // A comment that cannot do what it says is worth a word, or the author believes it works
  // (said once: a second pass over more findings leaves them out).
  for (const comment of options.commentProblems === false ? [] : comments) {
    for (const rule of comment.rules) {
      const code = ruleCode(rule);
      const problem = !code ? `names no rule "${rule}"${closest(rule, [...CODES, ...BY_NAME.keys()]) ? `; did you mean "${closest(rule, [...CODES, ...BY_NAME.keys()])}"?` : ''}` : fixed(code) ? `cannot disable ${code}: errors cannot be disabled` : undefined;
      if (problem) out.push({ code: 'TM0103', severity: 'warning', message: `toolman-disable-next-line ${problem}`, file: comment.file, line: comment.line, column: comment.column, pointer: '' });
    }
  }
  for (const d of diagnostics) {
    const codes = disabled.get(`${d.file}\u0000${d.line}`);
    if (codes && (codes.size === 0 || codes.has(d.code)) && !fixed(d.code)) continue;
    const info = DIAGNOSTIC_CODES[d.code] as { optIn?: true };
    const level = levels.get(d.code) ?? (info.optIn ? 'off' : undefined);
    if (level === 'off') continue;
    out.push(level && level !== d.severity ? { ...d, severity: level } : d);
  }
  return out;
}

const DISABLE = /#\s*toolman-disable-next-line\b([^\n]*)$/;

/**
 * Lines (file and line number) whose findings a comment on the line above disables (an empty set
 * means all), and the comments themselves, so that ones naming no rule or an error can be reported.
 */
function disabledLines(loaded: LoadedCatalog): { disabled: Map<string, Set<string>>; comments: { file: string; line: number; column: number; rules: string[] }[] } {
  const disabled = new Map<string, Set<string>>();
  const comments: { file: string; line: number; column: number; rules: string[] }[] = [];
  for (const [path, file] of loaded.sources) {
    if (!file.quotable || !file.includes('toolman-disable-next-line')) continue;
    file.text.split('\n').forEach((line, i) => {
      const match = DISABLE.exec(line);
      if (!match) return;
      const rules = match[1]!.split(/[\s,]+/).filter(Boolean);
      disabled.set(`${path}\u0000${i + 2}`, new Set(rules.map((rule) => ruleCode(rule) ?? rule)));
      comments.push({ file: path, line: i + 1, column: match.index + 1, rules });
    });
  }
  return { disabled, comments };
}
