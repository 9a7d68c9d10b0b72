// Readers of values from a parsed YAML entry: the catalog schema has already reported a value of
// the wrong type, so a reader gives `undefined` for it and the field takes its default.

export type Raw = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** The list's strings: the list itself when it holds nothing else (a copy per tool of every `tags:` adds up at 50,000 tools). */
export const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? (v.every((x) => typeof x === 'string') ? (v as string[]) : v.filter((x): x is string => typeof x === 'string')) : undefined);
export const oneOf = <T extends string>(v: unknown, allowed: readonly T[]): T | undefined => (allowed.includes(v as T) ? (v as T) : undefined);
