/**
 * Anthropic's rules for tool definitions, in one place for the formatter and `validate`. Sources
 * and dates in docs/providers.md.
 */

/** Tool names (Messages API reference, `tools[].name`). */
export const ANTHROPIC_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Strict tool use (structured outputs for tools): at most 20 strict tools, 24 optional
 * parameters and 16 parameters with union types per request ("Structured outputs").
 */
export const ANTHROPIC_STRICT_LIMITS = { tools: 20, optionalParameters: 24, unions: 16 } as const;

/**
 * Constraints strict tool use does not support ("Structured outputs", JSON Schema limitations:
 * "Numerical constraints", "String constraints", "Array constraints beyond minItems of 0 or 1",
 * and keywords outside its supported list). Strict conversion removes them and restates them in
 * the description; `minItems` stays when it is 0 or 1.
 */
export const ANTHROPIC_STRICT_RESTATED = [
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems',
  'uniqueItems', 'contains', 'minContains', 'maxContains', 'prefixItems', 'minProperties', 'maxProperties', 'patternProperties',
  'propertyNames', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else',
] as const;

/** String formats strict tool use supports ("Structured outputs", JSON Schema limitations). */
export const ANTHROPIC_STRICT_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** The tool search server tools ("Tool search tool"). */
export const ANTHROPIC_TOOL_SEARCH = {
  bm25: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  regex: { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
} as const;
