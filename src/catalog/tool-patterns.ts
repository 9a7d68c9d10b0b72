import type { Tool } from './types.js';

/** Prefixes a pattern may carry; anything else before a colon is a mistake. */
export const PATTERN_PREFIXES = ['category', 'tag', 'effect', 'profile', 'source'] as const;
export type PatternPrefix = (typeof PATTERN_PREFIXES)[number];

export type ParsedPattern =
  | { kind: 'name'; value: string }
  | { kind: 'glob'; value: string; regex: RegExp }
  | { kind: PatternPrefix; value: string };

export type PatternParse = { ok: true; pattern: ParsedPattern } | { ok: false; reason: string; prefix?: string };

/**
 * Parses a tool pattern: an exact name, a glob (`admin_*`, `get_?ser`), or `prefix:value` with a
 * prefix from PATTERN_PREFIXES. Tool names cannot contain ':', so a colon always means a prefix.
 */
export function parsePattern(text: string): PatternParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the pattern is empty' };
  const colon = trimmed.indexOf(':');
  if (colon >= 0) {
    const prefix = trimmed.slice(0, colon);
    const value = trimmed.slice(colon + 1);
    if (!(PATTERN_PREFIXES as readonly string[]).includes(prefix)) {
      return { ok: false, reason: `unknown prefix "${prefix}:"`, prefix };
    }
    if (value === '') return { ok: false, reason: `"${prefix}:" needs a value` };
    return { ok: true, pattern: { kind: prefix as PatternPrefix, value } };
  }
  if (/[*?]/.test(trimmed)) {
    const source = trimmed.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    return { ok: true, pattern: { kind: 'glob', value: trimmed, regex: new RegExp(`^${source}$`) } };
  }
  return { ok: true, pattern: { kind: 'name', value: trimmed } };
}

/** Whether `tool` matches a parsed pattern. Names and globs also match a tool's aliases. */
export function matchesPattern(tool: Tool, pattern: ParsedPattern): boolean {
  switch (pattern.kind) {
    case 'name':
      return tool.name === pattern.value || tool.aliases.includes(pattern.value);
    case 'glob':
      return pattern.regex.test(tool.name) || tool.aliases.some((a) => pattern.regex.test(a));
    case 'category':
      return tool.category === pattern.value;
    case 'tag':
      return tool.tags.includes(pattern.value);
    case 'effect':
      return tool.effect === pattern.value;
    case 'profile':
      return tool.profiles.includes(pattern.value);
    case 'source':
      return (tool.source.kind === 'mcp' && tool.source.server === pattern.value) || (tool.source.kind === 'agent' && tool.source.name === pattern.value);
  }
}
