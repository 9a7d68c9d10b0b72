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

/**
 * Fields of Gemini's `Schema` object (an OpenAPI 3.0 subset; API reference "Schema" and the
 * @google/genai `Schema` type, read 2026-11-22). Not there: `additionalProperties`, `$ref`,
 * `const`, `oneOf`, `allOf`, `exclusiveMinimum`/`exclusiveMaximum`.
 */
export const GEMINI_SCHEMA_KEYS: ReadonlySet<string> = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'minProperties', 'maxProperties', 'propertyOrdering', 'default', 'example']);

/** int64 fields, written as strings in the API's JSON (proto3 JSON mapping; the SDK types them `string`). */
export const GEMINI_INT64_KEYS: ReadonlySet<string> = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/**
 * Formats the Gemini API accepts, by type (API reference "Schema.format": NUMBER float, double;
 * INTEGER int32, int64; STRING enum, date-time). Others are refused with a 400.
 */
export const GEMINI_FORMATS: Record<string, readonly string[]> = { STRING: ['enum', 'date-time'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };

/** Parameter names: a letter or `_` first, then letters, digits and `_`, at most 64 characters (SDK, FunctionDeclaration). */
export const GEMINI_PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

/**
 * The name each property is sent under: valid names as they are, others with invalid characters
 * as `_` and a `_` in front when needed (`1st_contact` → `_1st_contact`), never colliding with
 * another property's name. Deterministic, so what the model sends back can be mapped back.
 */
export function geminiPropertyNames(names: readonly string[]): Map<string, string> {
  const taken = new Set(names.filter((name) => GEMINI_PARAMETER_NAME.test(name)));
  const out = new Map<string, string>();
  for (const name of names) {
    if (GEMINI_PARAMETER_NAME.test(name)) {
      out.set(name, name);
      continue;
    }
    let base = name.replace(/[^a-zA-Z0-9_]/g, '_');
    if (!/^[a-zA-Z_]/.test(base)) base = `_${base}`;
    base = base.slice(0, 64);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    taken.add(candidate);
    out.set(name, candidate);
  }
  return out;
}
