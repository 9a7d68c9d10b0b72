import type { ValidateFunction } from 'ajv';
import { createAjv, DRAFT_2020_12, validateMetaSchema, type AjvInstance } from '../manager/documents.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';
import { linearRegExp } from '../shared/linear-regexp.js';
import { ownValue } from '../shared/own.js';
import type { ValueMatcher } from './suite-types.js';

/** The words that make a mapping a matcher rather than a value to compare with. */
export const MATCHER_KEYWORDS = ['equals', 'contains', 'not_contains', 'regex', 'includes', 'one_of', 'schema', 'exists', 'matches_output_schema'] as const;
const KEYWORDS = new Set<string>(MATCHER_KEYWORDS);

/** A matcher that cannot be built: where (a JSON Pointer below the matcher) and why. */
export class MatcherError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
    /** Point at the key rather than its value. */
    readonly part: 'key' | 'value' = 'value',
  ) {
    super(message);
  }
}

let ajv: AjvInstance | undefined;
const compiled = new Map<string, ValidateFunction>();

/** A JSON Schema compiled once per distinct text (suites repeat the same few). */
function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = compiled.get(key);
  if (!validate) {
    // Not strict: a matcher schema is a check the suite author writes, not a definition sent to a model.
    // The schema is checked against the meta-schema by the precompiled validator, so ajv does
    // not compile the meta-schema first; one naming another dialect is left to ajv, as before.
    ajv ??= createAjv({ strict: false, allErrors: false, validateSchema: false });
    if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12) ajv.validateSchema(schema, true);
    else if (!validateMetaSchema(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(validateMetaSchema.errors)}`);
    compiled.set(key, (validate = ajv.compile(schema)));
  }
  return validate;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Reads a matcher as written. A mapping whose keys are all matcher keywords is a matcher (all of
 * them must hold); any other mapping matches as a subset, key by key; anything else is compared
 * as JSON. Regexes (RE2) and schemas are compiled now, so a bad one is reported where it is written.
 */
export function parseMatcher(raw: unknown, pointer = ''): ValueMatcher {
  if (!isRecord(raw)) return { kind: 'literal', value: raw };
  const keys = Object.keys(raw);
  const keywords = keys.filter((k) => KEYWORDS.has(k));
  if (keywords.length === 0 || keys.length === 0) {
    const properties: Record<string, ValueMatcher> = {};
    for (const key of keys) Object.defineProperty(properties, key, { value: parseMatcher(raw[key], `${pointer}/${escape(key)}`), enumerable: true, writable: true });
    return { kind: 'object', properties };
  }
  if (keywords.length !== keys.length) {
    const other = keys.find((k) => !KEYWORDS.has(k))!;
    throw new MatcherError(`${pointer}/${escape(other)}`, `"${other}" is not a matcher, and a mapping with matchers (${keywords.join(', ')}) holds only matchers`, 'key');
  }
  const matchers = keywords.map((k) => keyword(k, raw[k], `${pointer}/${k}`));
  return matchers.length === 1 ? matchers[0]! : { kind: 'all', matchers };
}

function keyword(name: string, value: unknown, pointer: string): ValueMatcher {
  const text = (what: string) => {
    if (typeof value !== 'string') throw new MatcherError(pointer, `${name} takes ${what}`);
    return value;
  };
  switch (name) {
    case 'equals':
      return { kind: 'equals', value };
    case 'contains':
      return { kind: 'contains', text: text('a string') };
    case 'not_contains':
      return { kind: 'not_contains', text: text('a string') };
    case 'regex': {
      const pattern = text('an RE2 regular expression');
      try {
        linearRegExp(pattern);
      } catch (error) {
        throw new MatcherError(pointer, `the regex does not compile (RE2 syntax: no lookaround, no backreferences): ${error instanceof Error ? error.message : String(error)}`);
      }
      return { kind: 'regex', pattern };
    }
    case 'includes':
      // A bare string finds an item containing it, as `contains` does for text.
      return { kind: 'includes', item: typeof value === 'string' ? { kind: 'contains', text: value } : parseMatcher(value, pointer) };
    case 'one_of':
      if (!Array.isArray(value) || value.length === 0) throw new MatcherError(pointer, 'one_of takes a non-empty list of values');
      return { kind: 'one_of', values: value };
    case 'schema': {
      if (!isRecord(value)) throw new MatcherError(pointer, 'schema takes a JSON Schema (a mapping)');
      try {
        schemaValidator(value);
      } catch (error) {
        throw new MatcherError(pointer, `not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
      }
      return { kind: 'schema', schema: value };
    }
    case 'exists':
      if (typeof value !== 'boolean') throw new MatcherError(pointer, 'exists takes true or false');
      return { kind: 'exists', exists: value };
    case 'matches_output_schema':
      // `false` would pass every result that breaks the contract the executor already refuses: no use.
      if (value !== true) throw new MatcherError(pointer, 'matches_output_schema takes true (the value validates against its tool\'s output_schema)');
      return { kind: 'output_schema' };
    default:
      throw new MatcherError(pointer, `unknown matcher ${name}`);
  }
}

/** Parses `{arg: matcher}` (a call's `args`, a stub's `when`). */
export function parseArgMatchers(raw: Record<string, unknown>, pointer: string): Record<string, ValueMatcher> {
  const parsed = parseMatcher(raw, pointer);
  if (parsed.kind !== 'object') throw new MatcherError(pointer, 'give one matcher per argument name, e.g. { title: { contains: standup } }');
  const misplaced = findOutputSchemaMatcher(parsed, pointer);
  if (misplaced) throw new MatcherError(misplaced, 'matches_output_schema checks what a tool returned against its output_schema; an argument has no output schema (use schema: {...} for an argument)', 'key');
  return parsed.properties;
}

/** Where a `matches_output_schema` sits inside a parsed matcher (its pointer), if anywhere. */
function findOutputSchemaMatcher(matcher: ValueMatcher, pointer: string): string | undefined {
  switch (matcher.kind) {
    case 'output_schema':
      return `${pointer}/matches_output_schema`;
    case 'object':
      for (const [key, inner] of Object.entries(matcher.properties)) {
        const found = findOutputSchemaMatcher(inner, `${pointer}/${escape(key)}`);
        if (found) return found;
      }
      return undefined;
    case 'all':
      for (const inner of matcher.matchers) {
        const found = findOutputSchemaMatcher(inner, pointer);
        if (found) return found;
      }
      return undefined;
    case 'includes':
      return findOutputSchemaMatcher(matcher.item, `${pointer}/includes`);
    default:
      return undefined;
  }
}

/** What some matchers need beyond the value: the output schema of the tool whose result it is. */
export interface MatchContext {
  /** The tool's `output_schema`, for `matches_output_schema`; undefined when it declares none. */
  outputSchema?: Record<string, unknown>;
  /** The tool's name, for messages. */
  tool?: string;
}

const show = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/**
 * Checks `actual` against a matcher: null when it holds, else what was expected and what came,
 * naming the path (`attendees[1]`, `filter.status`).
 */
export function mismatch(actual: unknown, matcher: ValueMatcher, path: string, context: MatchContext = {}): string | null {
  const at = path ? `${path}: ` : '';
  switch (matcher.kind) {
    case 'literal':
    case 'equals':
      return canonicalJson(actual) === canonicalJson(matcher.value) ? null : `${at}expected ${show(matcher.value)}, got ${show(actual)}`;
    case 'all':
      for (const m of matcher.matchers) {
        const miss = mismatch(actual, m, path, context);
        if (miss) return miss;
      }
      return null;
    case 'contains':
      return containsText(actual, matcher.text) ? null : `${at}expected to contain ${show(matcher.text)}, got ${show(actual)}`;
    case 'not_contains':
      return actual !== undefined && containsText(actual, matcher.text) ? `${at}expected not to contain ${show(matcher.text)}, got ${show(actual)}` : null;
    case 'regex':
      return typeof actual === 'string' && linearRegExp(matcher.pattern).test(actual) ? null : `${at}expected to match /${matcher.pattern}/, got ${show(actual)}`;
    case 'includes':
      if (!Array.isArray(actual)) return `${at}expected a list including ${describe(matcher.item)}, got ${show(actual)}`;
      return actual.some((item) => mismatch(item, matcher.item, '', context) === null) ? null : `${at}expected a list including ${describe(matcher.item)}, got ${show(actual)}`;
    case 'one_of':
      return matcher.values.some((v) => canonicalJson(v) === canonicalJson(actual)) ? null : `${at}expected one of ${show(matcher.values)}, got ${show(actual)}`;
    case 'schema': {
      const validate = schemaValidator(matcher.schema);
      if (actual !== undefined && validate(actual)) return null;
      const first = validate.errors?.[0];
      return `${at}does not match the schema${first ? ` (${first.instancePath || 'value'} ${first.message ?? ''})` : ''}: got ${show(actual)}`;
    }
    case 'exists':
      return (actual !== undefined) === matcher.exists ? null : matcher.exists ? `${at}expected to be given, but it is missing` : `${at}expected to be absent, got ${show(actual)}`;
    case 'output_schema': {
      const tool = context.tool ? ` of ${context.tool}` : '';
      if (!context.outputSchema) return `${at}expected to match the output schema${tool}, but the tool declares no output_schema`;
      const validate = schemaValidator(context.outputSchema);
      if (actual !== undefined && validate(actual)) return null;
      const first = validate.errors?.[0];
      return `${at}does not match the output schema${tool}${first ? ` (${first.instancePath || 'value'} ${first.message ?? ''})` : ''}: got ${show(actual)}`;
    }
    case 'object': {
      if (!isRecord(actual)) return `${at}expected an object, got ${show(actual)}`;
      for (const [key, m] of Object.entries(matcher.properties)) {
        const miss = mismatch(ownValue(actual, key), m, path ? `${path}.${key}` : key, context);
        if (miss) return miss;
      }
      return null;
    }
  }
}

/** A matcher in words, for "expected a list including ...". */
export function describe(matcher: ValueMatcher): string {
  switch (matcher.kind) {
    case 'literal':
    case 'equals':
      return show(matcher.value);
    case 'contains':
      return `an item containing ${show(matcher.text)}`;
    case 'regex':
      return `an item matching /${matcher.pattern}/`;
    default:
      return 'a matching item';
  }
}

/** Text contains text, ignoring case (models vary it: "Standup", "standup"); in a list, any item. */
function containsText(actual: unknown, text: string): boolean {
  const needle = text.toLowerCase();
  if (typeof actual === 'string') return actual.toLowerCase().includes(needle);
  if (Array.isArray(actual)) return actual.some((item) => typeof item === 'string' && item.toLowerCase().includes(needle));
  return false;
}
