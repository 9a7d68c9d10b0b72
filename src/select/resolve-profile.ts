import { nearest } from '../shared/did-you-mean.js';
import type { Catalog, Profile } from '../catalog/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { ownValue } from '../shared/own.js';

/** A profile with everything it inherits through `extends`, ready to apply. */
export interface ResolvedProfile {
  name: string;
  description?: string;
  /** Empty means every tool. */
  include: string[];
  exclude: string[];
  defer: string[];
  /** `defer: auto` here or in a profile it extends. */
  deferAuto: boolean;
  forced: string[];
  /** The profile and its ancestors, nearest first. */
  chain: string[];
  builtin: boolean;
}

/**
 * Profiles every catalog has unless it defines its own: `full` offers every enabled tool;
 * `minimal` offers only what must always be loaded and leaves the rest to tool search.
 */
export const BUILTIN_PROFILE_DEFINITIONS: Record<string, Omit<Profile, 'file' | 'pointer' | 'name'>> = {
  full: { description: 'Every enabled tool (built in)', extends: [], include: ['*'], exclude: [], defer: [], deferAuto: false, forced: [] },
  minimal: { description: 'Nothing up front: tools are found through tool_search (built in)', extends: [], include: ['*'], exclude: [], defer: ['*'], deferAuto: false, forced: [] },
};

/** The profile used when none is asked for: the catalog's `default`, else `full`. */
export function defaultProfileName(catalog: Catalog): string {
  return catalog.profiles.has('default') ? 'default' : 'full';
}

export function profileNames(catalog: Catalog): string[] {
  return [...new Set([...catalog.profiles.keys(), ...Object.keys(BUILTIN_PROFILE_DEFINITIONS)])];
}

function definition(catalog: Catalog, name: string): (Omit<Profile, 'file' | 'pointer'> & { builtin: boolean }) | undefined {
  const own = catalog.profiles.get(name);
  if (own) return { ...own, builtin: false };
  const builtin = ownValue(BUILTIN_PROFILE_DEFINITIONS, name);
  return builtin ? { ...builtin, name, builtin: true } : undefined;
}

/** Resolves `extends` (parents first, the profile's own patterns last); cycles are errors. */
export function resolveProfile(catalog: Catalog, name: string): ResolvedProfile {
  const visit = (current: string, path: string[]): ResolvedProfile => {
    if (path.includes(current)) {
      throw new ToolmanError(ErrorCode.SELECTION, `profiles extend each other in a cycle: ${[...path, current].join(' -> ')}`, {
        hint: 'remove one of these extends (toolman validate shows where)',
      });
    }
    const profile = definition(catalog, current);
    if (!profile) {
      const suggestions = nearest(current, profileNames(catalog));
      throw new ToolmanError(ErrorCode.UNKNOWN_PROFILE, `no profile named "${current}"` + (path.length ? ` (extended by "${path[path.length - 1]}")` : '') + (suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''), {
        hint: `profiles: ${profileNames(catalog).join(', ')} (toolman profiles lists them)`,
      });
    }
    const resolved: ResolvedProfile = { name: current, description: profile.description, include: [], exclude: [], defer: [], deferAuto: profile.deferAuto, forced: [], chain: [current], builtin: profile.builtin };
    for (const parent of profile.extends) {
      const inherited = visit(parent, [...path, current]);
      resolved.include.push(...inherited.include);
      resolved.exclude.push(...inherited.exclude);
      resolved.defer.push(...inherited.defer);
      resolved.forced.push(...inherited.forced);
      resolved.chain.push(...inherited.chain);
      resolved.deferAuto ||= inherited.deferAuto;
    }
    resolved.include.push(...profile.include);
    resolved.exclude.push(...profile.exclude);
    resolved.defer.push(...profile.defer);
    resolved.forced.push(...profile.forced);
    return resolved;
  };
  return visit(name, []);
}
