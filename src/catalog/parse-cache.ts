/**
 * Parsed catalog files remembered by content, so a command that starts often (`chat --prompt`,
 * `call`) does not parse the same YAML again: parsing is the largest part of loading a catalog
 * of many files (about 40 of 80 ms for catalogs/large.yaml, cold). Only files that parsed with
 * no finding and hold plain JSON data are stored; positions, needed only to report findings, are
 * computed from the text when first asked for. The manager supplies a store on disk; the loader
 * works the same without one.
 */
export interface ParseCache {
  /** The data parsed earlier from exactly this text, if remembered. */
  get(text: string): unknown;
  set(text: string, data: unknown): void;
}

/**
 * Whether `value` comes back from JSON exactly as it is: no NaN, Infinity or -0 (YAML's `.nan`,
 * `.inf`, `-0`), no shared nodes from aliases (JSON would copy them, which the alias-bomb guard
 * measured but the cache would then hold in full).
 */
export function survivesJson(value: unknown, seen = new Set<object>()): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  if (seen.has(value)) return false;
  seen.add(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (!survivesJson(child, seen)) return false;
  return true;
}
