import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import { closest } from '../shared/did-you-mean.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Reporter } from '../catalog/reporter.js';
import { PATTERN_PREFIXES, matchesPattern, parsePattern } from '../catalog/tool-patterns.js';
import type { McpServerConfig } from '../catalog/types.js';

import { BUILTIN_PROFILE_DEFINITIONS } from '../select/resolve-profile.js';

/** Profiles every catalog has, even when it does not define them. */
const BUILTIN_PROFILES = Object.keys(BUILTIN_PROFILE_DEFINITIONS);

/** What validate knows of an MCP server's tools: listed now, from the cache (and how old), or not at all. */
export interface ServerToolsStatus {
  name: string;
  source: 'cache' | 'live' | 'unavailable';
  ageMs?: number;
}

/**
 * Which servers' tools are known (listed now or read from the cache: they are in the catalog, so
 * patterns are checked against them), and the patterns skipped because a server's tools are not.
 */
interface ServerKnowledge {
  known: Map<string, ServerToolsStatus>;
  unchecked: Map<string, string[]>;
}

export function checkProfiles(loaded: LoadedCatalog, servers: readonly ServerToolsStatus[] = []): void {
  const { catalog } = loaded;
  const knowledge: ServerKnowledge = { known: new Map(servers.filter((s) => s.source !== 'unavailable').map((s) => [s.name, s])), unchecked: new Map() };
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
      profile[field].forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, field, i]), pattern, knowledge));
    }
  }
  reportCycles(loaded);
  for (const override of catalog.overrides) {
    const reporter = loaded.reporters.get(override.file);
    if (!reporter) continue;
    const base = segmentsOf(override.pointer);
    const parsed = override.tools.map(parsePattern);
    const patterns = parsed.flatMap((p) => (p.ok ? [p.pattern] : []));
    const matchesAny = catalog.tools.some((tool) => patterns.some((pattern) => matchesPattern(tool, pattern))) || patterns.some((pattern) => unknownServersFor(loaded, pattern, knowledge, override.tools.join(', ')).length > 0);
    // An override that matches nothing is one finding (TM0605), not one more per pattern.
    override.tools.forEach((pattern, i) => (!parsed[i]!.ok || matchesAny) && checkPattern(loaded, reporter, pointerOf([...base, 'tools', i]), pattern, knowledge));
    if (patterns.length && !matchesAny) {
      const cached = cacheNote(loaded, patterns, knowledge);
      reporter.report('TM0605', override.pointer, `this override matches no tool (${override.tools.join(', ')}), so it sets nothing${cached}`, {
        subject: `overrides[${base[1]}]`,
        hint: 'check the names against `toolman list`; an override of an imported file\'s tools must match their names after import',
      });
    }
  }
  for (const policy of catalog.policies) {
    const reporter = loaded.reporters.get(policy.file);
    if (!reporter) continue;
    const base = segmentsOf(policy.pointer);
    policy.deny.forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, 'deny', i]), pattern, knowledge));
    policy.allow?.forEach((pattern, i) => checkPattern(loaded, reporter, pointerOf([...base, 'allow', i]), pattern, knowledge));
  }
  checkServerIncludes(loaded, knowledge);
  sayUnchecked(loaded, knowledge);
}

/**
 * A server's `include` patterns name its tools; with its tools known, a pattern that no tool of the
 * server matches (by its catalog name or its own) selected nothing: a typo that silently drops tools.
 */
function checkServerIncludes(loaded: LoadedCatalog, knowledge: ServerKnowledge): void {
  for (const server of loaded.catalog.mcpServers.values()) {
    if (!knowledge.known.has(server.name) || server.include.length === 0) continue;
    const reporter = loaded.reporters.get(server.file);
    if (!reporter) continue;
    const tools = loaded.catalog.tools.filter((t) => t.source.kind === 'mcp' && t.source.server === server.name);
    const names = tools.flatMap((t) => (t.source.kind === 'mcp' ? [t.name, t.source.tool] : [t.name]));
    server.include.forEach((text, i) => {
      const parsed = parsePattern(text);
      if (!parsed.ok) return; // the catalog schema and TM0604 speak of malformed patterns
      if (tools.some((t) => matchesPattern(t, parsed.pattern) || (t.source.kind === 'mcp' && matchesPattern({ ...t, name: t.source.tool }, parsed.pattern)))) return;
      const suggestion = parsed.pattern.kind === 'name' || parsed.pattern.kind === 'glob' ? closest(parsed.pattern.value, names) : undefined;
      reporter.report('TM0603', pointerOf([...segmentsOf(server.pointer), 'include', i]), `include pattern "${text}" matches none of the server's tools${listedWhen(knowledge.known.get(server.name)!)}` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
        hint: 'a typo here leaves the tool out without a word; `toolman mcp tools` (with the server\'s command) lists its tools',
      });
    });
  }
}

/** "Patterns were not checked" for servers whose tools are unknown, said on the server's unavailability finding. */
function sayUnchecked(loaded: LoadedCatalog, knowledge: ServerKnowledge): void {
  for (const [server, patterns] of knowledge.unchecked) {
    const config = loaded.catalog.mcpServers.get(server);
    const finding = config && loaded.diagnostics.find((d) => d.code === 'TM0802' && d.file === config.file && d.pointer === config.pointer);
    if (!finding) continue;
    const list = [...new Set(patterns)];
    finding.message += `; its tools are not known, so ${list.length === 1 ? 'the pattern' : `${list.length} patterns`} that may name them (${list.slice(0, 3).map((p) => JSON.stringify(p)).join(', ')}${list.length > 3 ? ', …' : ''}) ${list.length === 1 ? 'was' : 'were'} not checked`;
  }
}

/** " (as listed by the server now)", or " (its tools as cached 3 days ago)". */
function listedWhen(status: ServerToolsStatus): string {
  const age = describeAge(status.ageMs ?? 0);
  return status.source === 'cache' ? ` (the server's tools as cached ${age === 'under a minute' ? 'under a minute' : age} ago)` : '';
}

function describeAge(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? '' : 's'}`;
}

/** For a finding about patterns a cached server's tools could have matched: which list they were checked against. */
function cacheNote(loaded: LoadedCatalog, patterns: readonly ParsedPattern[], knowledge: ServerKnowledge): string {
  for (const server of loaded.catalog.mcpServers.values()) {
    const status = knowledge.known.get(server.name);
    if (status?.source === 'cache' && patterns.some((pattern) => couldNameServerTools(server, pattern))) return ` (checked against mcp server "${server.name}"'s tools as cached ${describeAge(status.ageMs ?? 0)} ago; --refresh asks it again)`;
  }
  return '';
}

function profileRaw(loaded: LoadedCatalog, file: string, name: string): Record<string, unknown> | undefined {
  const data = loaded.sources.get(file)?.data as { profiles?: Record<string, Record<string, unknown>> } | undefined;
  return data?.profiles && Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined;
}

function checkPattern(loaded: LoadedCatalog, reporter: Reporter, pointer: string, text: string, knowledge: ServerKnowledge): void {
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
  if (unknownServersFor(loaded, pattern, knowledge, text).length > 0) return;
  const known = pattern.kind === 'name' || pattern.kind === 'glob' ? loaded.catalog.tools.map((t) => t.name) : valuesOf(loaded, pattern.kind);
  const suggestion = closest(pattern.value, known);
  reporter.report('TM0603', pointer, `pattern "${text}" matches no tool${cacheNote(loaded, [pattern], knowledge)}` + (suggestion ? `; did you mean "${pattern.kind === 'name' || pattern.kind === 'glob' ? '' : pattern.kind + ':'}${suggestion}"?` : ''));
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

type ParsedPattern = ReturnType<typeof parsePattern> extends infer P ? (P extends { ok: true; pattern: infer Q } ? Q : never) : never;

/**
 * The servers whose tools are not known (not started, not cached) and that `pattern` may name: a
 * pattern is not reported for them, and the skip is recorded to be said. A server whose tools
 * are known (listed now, or from the cache) has them in the catalog, so they were checked.
 */
function unknownServersFor(loaded: LoadedCatalog, pattern: ParsedPattern, knowledge: ServerKnowledge, text: string): string[] {
  const unknown: string[] = [];
  for (const server of loaded.catalog.mcpServers.values()) {
    if (knowledge.known.has(server.name) || !couldNameServerTools(server, pattern)) continue;
    unknown.push(server.name);
    knowledge.unchecked.set(server.name, [...(knowledge.unchecked.get(server.name) ?? []), text]);
  }
  return unknown;
}

/** Whether `pattern` could name one of `server`'s tools, whatever they are. */
function couldNameServerTools(server: McpServerConfig, pattern: ParsedPattern): boolean {
  switch (pattern.kind) {
    case 'source':
      return pattern.value === server.name;
    case 'name':
    case 'glob':
      return server.prefix === '' || pattern.value.startsWith(server.prefix) || server.prefix.startsWith(pattern.value.replace(/[*?].*$/, ''));
    case 'category':
      return server.defaults.category === undefined || server.defaults.category === pattern.value;
    case 'tag':
      return server.defaults.tags === undefined || server.defaults.tags.includes(pattern.value);
    default:
      return true;
  }
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
