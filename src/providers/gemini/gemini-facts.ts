/**
 * Gemini's rules for function declarations, in one place for the formatter and `validate`.
 * Sources and dates in docs/providers.md.
 */

/** At most 512 function declarations per request (function calling docs). */
export const GEMINI_MAX_DECLARATIONS = 512;

/** Function names: a letter or `_` first, then letters, digits, `_ . : -`, at most 64 characters. */
export const GEMINI_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** The name Gemini is sent for a catalog name: invalid characters become `_`, and `_` leads when needed. */
export function geminiName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_.:-]/g, '_');
  return (/^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`).slice(0, 64);
}

/** Fields of Gemini's `Schema` object (an OpenAPI 3.0 subset; API reference, "Schema"). */
export const GEMINI_SCHEMA_KEYS: ReadonlySet<string> = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'minProperties', 'maxProperties', 'propertyOrdering']);

/** Formats Gemini accepts, by type (API reference, "Schema.format"). */
export const GEMINI_FORMATS: Record<string, readonly string[]> = { STRING: ['enum', 'date-time'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };
