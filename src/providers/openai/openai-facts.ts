/**
 * OpenAI's rules for tool definitions, in one place: the formatter applies them and `validate`
 * reports them, so the two never disagree. Sources and dates in docs/providers.md.
 */

/** Function names (Chat Completions and Responses API references: `function.name`). */
export const OPENAI_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** At most 128 functions per Chat Completions request (API reference, `tools`). */
export const OPENAI_CHAT_MAX_TOOLS = 128;

/**
 * Structured Outputs guide, "Supported schemas": keywords strict mode does not take. `oneOf` is
 * listed because strict mode rejects it, but the converter rewrites it as `anyOf` without loss.
 */
export const OPENAI_STRICT_UNSUPPORTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'patternProperties',
  'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'minProperties', 'maxProperties', 'minLength',
  'maxLength', 'contains', 'minContains', 'maxContains', 'uniqueItems', 'prefixItems',
] as const;

/**
 * Size limits of a strict schema (Structured Outputs guide, "Supported schemas", "Objects have
 * limitations on nesting depth and size", read 2026-11-22): 5,000 object properties, 10 levels of
 * nesting, 1,000 enum values; 120,000 characters of property names, definition names, enum and
 * const values together; and a single string enum of more than 250 values at most 15,000 characters.
 */
export const OPENAI_STRICT_LIMITS = { properties: 5000, nesting: 10, enumValues: 1000, stringLength: 120_000, largeEnumValues: 250, largeEnumLength: 15_000 } as const;

/** String formats strict mode accepts ("Supported schemas", "Supported properties"). */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
