import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import { closest } from '../shared/did-you-mean.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Reporter } from '../catalog/reporter.js';
import { PATTERN_PREFIXES, matchesPattern, parsePattern } from '../catalog/tool-patterns.js';

import { BUILTIN_PROFILE_DEFINITIONS } from '../select/resolve-profile.js';

/** Profiles every catalog has, even when it does not define them. */
const BUILTIN_PROFILES = Object.keys(BUILTIN_PROFILE_DEFINITIONS);

export function checkProfiles(loaded: LoadedCatalog): void {
  const { catalog } = loaded;
  const names = [...new Set([...catalog.profiles.keys(), ...BUILTIN_PROFILES])];
  for (const profile of catalog.profiles.values()) {
    const reporter = loaded.reporters.get(profile.file);
    if (!reporter) continue;
    const base = segmentsOf(profile.pointer);
    const single = typeof profileRaw(loaded, profile.file, profile.name)?.extends === 'string';
    profile.extends.forEach((parent, i) => {
      if (names.includes(parent)) return;
      const suggestion = closest(parent, names);
      reporter.report('TM0601', pointerOf(single ? [...base, 'extends'] : [...base, 'extends', i]), `extends "${parent}", which is not a profile` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
        hint: `profiles: ${names.join(', ')}`,
      });
    });
    for (const field of ['include', 'exclude', 'defer', 'forced'] as const) {
      profile[field].forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, field, i]), pattern));
    }
  }
  reportCycles(loaded);
  for (const override of catalog.overrides) {
    const reporter = loaded.reporters.get(override.file);
    if (!reporter) continue;
    const base = segmentsOf(override.pointer);
    const parsed = override.tools.map(parsePattern);
    const patterns = parsed.flatMap((p) => (p.ok ? [p.pattern] : []));
    const matchesAny = catalog.tools.some((tool) => patterns.some((pattern) => matchesPattern(tool, pattern))) || patterns.some((pattern) => mayMatchMcpTools(loaded, pattern));
    // An override that matches nothing is one finding (TM0605), not one more per pattern.
    override.tools.forEach((pattern, i) => (!parsed[i]!.ok || matchesAny) && checkPattern(loaded, reporter, pointerOf([...base, 'tools', i]), pattern));
    if (patterns.length && !matchesAny) {
      reporter.report('TM0605', override.pointer, `this override matches no tool (${override.tools.join(', ')}), so it sets nothing`, {
        subject: `overrides[${base[1]}]`,
        hint: 'check the names against `toolman list`; an override of an imported file\'s tools must match their names after import',
      });
    }
  }
  for (const policy of catalog.policies) {
    const reporter = loaded.reporters.get(policy.file);
    if (!reporter) continue;
    const base = segmentsOf(policy.pointer);
    policy.deny.forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, 'deny', i]), pattern));
    policy.allow?.forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, 'allow', i]), pattern));
  }
}

function profileRaw(loaded: LoadedCatalog, file: string, name: string): Record<string, unknown> | undefined {
  const data = loaded.sources.get(file)?.data as { profiles?: Record<string, Record<string, unknown>> } | undefined;
  return data?.profiles && Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined;
}

function checkPattern(loaded: LoadedCatalog, reporter: Reporter, pointer: string, text: string): void {
  const parsed = parsePattern(text);
  if (!parsed.ok) {
    const suggestion = parsed.prefix ? closest(parsed.prefix, PATTERN_PREFIXES) : undefined;
    reporter.report('TM0604', pointer, `pattern "${text}": ${parsed.reason}` + (suggestion ? `; did you mean "${suggestion}:"?` : ''), {
      hint: 'a pattern is a tool name, a glob (admin_*), or category:, tag:, effect:, profile:, source: followed by a value',
    });
    return;
  }
  const pattern = parsed.pattern;
  if (loaded.catalog.tools.some((tool) => matchesPattern(tool, pattern))) return;
  if (mayMatchMcpTools(loaded, pattern)) return;
  const known = pattern.kind === 'name' || pattern.kind === 'glob' ? loaded.catalog.tools.map((t) => t.name) : valuesOf(loaded, pattern.kind);
  const suggestion = closest(pattern.value, known);
  reporter.report('TM0603', pointer, `pattern "${text}" matches no tool` + (suggestion ? `; did you mean "${pattern.kind === 'name' || pattern.kind === 'glob' ? '' : pattern.kind + ':'}${suggestion}"?` : ''));
}

function valuesOf(loaded: LoadedCatalog, kind: string): string[] {
  const values = new Set<string>();
  for (const tool of loaded.catalog.tools) {
    if (kind === 'category' && tool.category) values.add(tool.category);
    if (kind === 'tag') tool.tags.forEach((t) => values.add(t));
    if (kind === 'effect') values.add(tool.effect);
    if (kind === 'profile') tool.profiles.forEach((p) => values.add(p));
  }
  if (kind === 'source') for (const name of [...loaded.catalog.mcpServers.keys(), ...loaded.catalog.agents.keys()]) values.add(name);
  return [...values];
}

/** MCP servers' tools are only known at run time; do not warn about patterns that may match them. */
function mayMatchMcpTools(loaded: LoadedCatalog, pattern: ReturnType<typeof parsePattern> extends infer P ? (P extends { ok: true; pattern: infer Q } ? Q : never) : never): boolean {
  for (const server of loaded.catalog.mcpServers.values()) {
    switch (pattern.kind) {
      case 'source':
        if (pattern.value === server.name) return true;
        break;
      case 'name':
      case 'glob':
        if (server.prefix === '' || pattern.value.startsWith(server.prefix) || server.prefix.startsWith(pattern.value.replace(/[*?].*$/, ''))) return true;
        break;
      case 'category':
        if (server.defaults.category === undefined || server.defaults.category === pattern.value) return true;
        break;
      case 'tag':
        if (server.defaults.tags === undefined || server.defaults.tags.includes(pattern.value)) return true;
        break;
      default:
        return true;
    }
  }
  return false;
}

function reportCycles(loaded: LoadedCatalog): void {
  const { profiles } = loaded.catalog;
  const reported = new Set<string>();
  for (const start of profiles.keys()) {
    const path: string[] = [];
    const walk = (name: string): string[] | undefined => {
      const index = path.indexOf(name);
      if (index >= 0) return [...path.slice(index), name];
      const profile = profiles.get(name);
      if (!profile) return undefined;
      path.push(name);
      for (const parent of profile.extends) {
        const cycle = walk(parent);
        if (cycle) return cycle;
      }
      path.pop();
      return undefined;
    };
    const cycle = walk(start);
    if (!cycle || cycle[0] !== start) continue;
    const key = [...cycle.slice(0, -1)].sort().join('|');
    if (reported.has(key)) continue;
    reported.add(key);
    const profile = profiles.get(start)!;
    const reporter = loaded.reporters.get(profile.file);
    reporter?.report('TM0602', pointerOf([...segmentsOf(profile.pointer), 'extends']), `profiles extend each other in a cycle: ${cycle.join(' -> ')}`, {
      hint: 'remove one of these extends',
    });
  }
}
