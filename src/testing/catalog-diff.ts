import { distance } from 'fastest-levenshtein';
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { Tool } from '../catalog/types.js';
import type { ToolManager } from '../manager/tool-manager.js';
import type { ProviderName } from '../providers/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { parameterChanges, type ParameterChange } from './parameter-changes.js';

export interface ToolBrief {
  name: string;
  summary: string;
  effect: string;
}

export interface ToolChange {
  tool: string;
  /** The old name, when the tool was renamed. */
  was?: string;
  description?: { before: string; after: string };
  parameters: ParameterChange[];
  breaking: boolean;
  flags: { field: string; before: unknown; after: unknown }[];
}

export interface TokenChange {
  provider: ProviderName;
  model: string;
  estimate: boolean;
  before: { eager: number; deferred: number };
  after: { eager: number; deferred: number };
}

export interface SelectionChange {
  profile: string;
  status: 'added' | 'removed' | 'changed' | 'same';
  active_added: string[];
  active_removed: string[];
  deferred_added: string[];
  deferred_removed: string[];
}

export interface CatalogDiff {
  old: { name: string; files: string[]; tools: number };
  new: { name: string; files: string[]; tools: number };
  added: ToolBrief[];
  removed: ToolBrief[];
  renamed: { from: string; to: string; by: 'alias' | 'similarity'; score: number }[];
  changed: ToolChange[];
  tokens: TokenChange[];
  selection: SelectionChange[];
  /** Findings `validate` reports for the new version and not for the old (and how many went away). */
  lint: { added: Diagnostic[]; fixed: number };
  breaking: boolean;
}

/** Flags compared tool by tool: what changes how a tool is offered or run. */
const FLAGS: (keyof Tool)[] = ['effect', 'confirm', 'enabled', 'exclusive', 'takesControl', 'deferLoading', 'alwaysLoad', 'concurrency', 'mode', 'category', 'tags', 'profiles', 'timeoutMs', 'maxResultTokens'];
const FLAG_NAMES: Partial<Record<keyof Tool, string>> = { takesControl: 'takes_control', deferLoading: 'defer_loading', alwaysLoad: 'always_load', timeoutMs: 'timeout_ms', maxResultTokens: 'max_result_tokens' };
/** Which flag changes can break a caller: a tool that now asks first, is disabled, or must run alone. */
const BREAKING_FLAGS = new Set(['enabled', 'exclusive', 'takesControl', 'mode']);

/** A rename found by similarity must score at least this (0..1); see docs/testing.md. */
export const RENAME_THRESHOLD = 0.6;

const words = (text: string) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2));
function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}
const paramNames = (t: Tool) => new Set(Object.keys((t.parameters.properties as Record<string, unknown> | undefined) ?? {}));

/** How alike two tools are: description words, parameter names, and the names themselves. */
export function renameScore(a: Tool, b: Tool): number {
  const name = 1 - distance(a.name, b.name) / Math.max(a.name.length, b.name.length);
  return 0.5 * jaccard(words(`${a.summary ?? ''} ${a.description ?? ''}`), words(`${b.summary ?? ''} ${b.description ?? ''}`)) + 0.3 * jaccard(paramNames(a), paramNames(b)) + 0.2 * name;
}

const brief = (t: Tool): ToolBrief => ({ name: t.name, summary: t.summary ?? (t.description ?? '').split(/(?<=\.)\s/)[0] ?? '', effect: t.effect });

function toolChange(before: Tool, after: Tool): ToolChange | null {
  const parameters = parameterChanges(before.parameters, after.parameters);
  const flags = FLAGS.filter((f) => canonicalJson(before[f]) !== canonicalJson(after[f])).map((f) => ({ field: FLAG_NAMES[f] ?? String(f), before: before[f], after: after[f] }));
  const description = (before.description ?? '') !== (after.description ?? '') ? { before: before.description ?? '', after: after.description ?? '' } : undefined;
  if (!parameters.length && !flags.length && !description && before.name === after.name) return null;
  const effectBreaks = before.effect !== after.effect && after.effect === 'destructive';
  return {
    tool: after.name,
    ...(before.name !== after.name ? { was: before.name } : {}),
    ...(description ? { description } : {}),
    parameters,
    flags,
    breaking: before.name !== after.name || parameters.some((p) => p.breaking) || effectBreaks || flags.some((f) => BREAKING_FLAGS.has(f.field) && !(f.field === 'enabled' && f.after === true)),
  };
}

const lintKey = (d: Diagnostic) => `${d.code}\u0000${d.tool ?? ''}\u0000${d.message.replace(/tools\[\d+\]/g, 'tools[]')}`;

/**
 * One report of what changed between two versions of a catalog, for a pull request: tools
 * added, removed, renamed (an alias naming the old name, else a similarity above
 * RENAME_THRESHOLD) and changed (description, parameters breaking or not, flags), definition
 * tokens per provider, each profile's selection, and new `validate` findings.
 */
export async function diffCatalogs(before: ToolManager, after: ToolManager, options: { providers?: ProviderName[] } = {}): Promise<CatalogDiff> {
  const oldTools = new Map(before.catalog.tools.map((t) => [t.name, t]));
  const newTools = new Map(after.catalog.tools.map((t) => [t.name, t]));
  const gone = [...oldTools.values()].filter((t) => !newTools.has(t.name));
  const fresh = [...newTools.values()].filter((t) => !oldTools.has(t.name));
  const renamed: CatalogDiff['renamed'] = [];
  const taken = new Set<string>();
  for (const t of fresh) {
    const from = gone.find((g) => t.aliases.includes(g.name) && !taken.has(g.name));
    if (from) {
      renamed.push({ from: from.name, to: t.name, by: 'alias', score: 1 });
      taken.add(from.name);
      taken.add(t.name);
    }
  }
  const candidates = gone.filter((g) => !taken.has(g.name)).flatMap((g) => fresh.filter((f) => !taken.has(f.name)).map((f) => ({ g, f, score: renameScore(g, f) }))).filter((c) => c.score >= RENAME_THRESHOLD).sort((a, b) => b.score - a.score);
  for (const { g, f, score } of candidates) {
    if (taken.has(g.name) || taken.has(f.name)) continue;
    renamed.push({ from: g.name, to: f.name, by: 'similarity', score: Math.round(score * 100) / 100 });
    taken.add(g.name);
    taken.add(f.name);
  }
  const changed: ToolChange[] = [];
  for (const [name, t] of newTools) {
    const old = oldTools.get(name) ?? oldTools.get(renamed.find((r) => r.to === name)?.from ?? '\u0000');
    const change = old ? toolChange(old, t) : null;
    if (change) changed.push(change);
  }

  const providers = options.providers ?? ['openai', 'anthropic', 'gemini'];
  const tokens: TokenChange[] = [];
  for (const provider of providers) {
    const [b, a] = await Promise.all([before.budget({ provider }), after.budget({ provider })]);
    tokens.push({ provider, model: a.model, estimate: a.estimate || b.estimate, before: { eager: b.totals.eager, deferred: b.totals.deferred }, after: { eager: a.totals.eager, deferred: a.totals.deferred } });
  }

  const selection: SelectionChange[] = [];
  const profiles = [...new Set([...before.catalog.profiles.keys(), ...after.catalog.profiles.keys()])].sort();
  for (const profile of profiles) {
    const pick = (m: ToolManager) => {
      if (!m.catalog.profiles.has(profile)) return null;
      try {
        const s = m.select({ profile });
        return { active: new Set(s.active.map((t) => t.name)), deferred: new Set(s.deferred.map((t) => t.name)) };
      } catch {
        return null;
      }
    };
    const b = pick(before);
    const a = pick(after);
    const minus = (x: Set<string> | undefined, y: Set<string> | undefined) => [...(x ?? [])].filter((n) => !y?.has(n)).sort();
    const row: SelectionChange = {
      profile,
      status: !b ? 'added' : !a ? 'removed' : 'same',
      active_added: minus(a?.active, b?.active),
      active_removed: minus(b?.active, a?.active),
      deferred_added: minus(a?.deferred, b?.deferred),
      deferred_removed: minus(b?.deferred, a?.deferred),
    };
    if (row.status === 'same' && (row.active_added.length || row.active_removed.length || row.deferred_added.length || row.deferred_removed.length)) row.status = 'changed';
    selection.push(row);
  }

  const [oldLint, newLint] = await Promise.all([before.validate(), after.validate()]);
  const counts = new Map<string, number>();
  for (const d of oldLint) counts.set(lintKey(d), (counts.get(lintKey(d)) ?? 0) + 1);
  const added: Diagnostic[] = [];
  for (const d of newLint) {
    const n = counts.get(lintKey(d)) ?? 0;
    if (n > 0) counts.set(lintKey(d), n - 1);
    else added.push(d);
  }
  const fixed = [...counts.values()].reduce((s, n) => s + n, 0);

  const removed = gone.filter((g) => !taken.has(g.name)).map(brief);
  return {
    old: { name: before.catalog.name, files: before.catalog.files, tools: before.catalog.tools.length },
    new: { name: after.catalog.name, files: after.catalog.files, tools: after.catalog.tools.length },
    added: fresh.filter((f) => !taken.has(f.name)).map(brief),
    removed,
    renamed,
    changed,
    tokens,
    selection,
    lint: { added, fixed },
    breaking: removed.length > 0 || changed.some((c) => c.breaking),
  };
}
