import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isRecord } from '../shared/is-record.js';
import { setOwn } from '../shared/own.js';
import { plainValue } from '../shared/plain-text.js';

/**
 * Tool definitions in the wild use several JSON Schema dialects: BFCL's Python, Java and
 * JavaScript type names, Gemini's OpenAPI subset (upper-case types, `nullable`), draft-07 tuples,
 * property-level `optional`/`required` flags. This turns them into draft 2020-12 that ajv's strict
 * mode accepts, and says what it changed.
 */

/** Dialect type names and what they mean in JSON Schema; `null` means "any value" (no type). */
const TYPE_NAMES: Record<string, string | null> = {
  // Python / BFCL
  dict: 'object', float: 'number', tuple: 'array', list: 'array', str: 'string', bool: 'boolean', int: 'integer', any: null, '': null,
  // Java
  String: 'string', char: 'string', Character: 'string', Boolean: 'boolean', boolean: 'boolean',
  Integer: 'integer', long: 'integer', Long: 'integer', short: 'integer', Short: 'integer', byte: 'integer', Byte: 'integer', BigInteger: 'integer',
  double: 'number', Double: 'number', Float: 'number', BigDecimal: 'number',
  HashMap: 'object', Map: 'object', TreeMap: 'object', LinkedHashMap: 'object', Hashtable: 'object',
  ArrayList: 'array', List: 'array', LinkedList: 'array', Set: 'array', HashSet: 'array', Array: 'array',
  Object: null,
  // JavaScript
  Number: 'number', Bigint: 'integer', bigint: 'integer', BigInt: 'integer', Any: null,
};
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Keywords of draft 2020-12 (and annotations) that ajv's strict mode knows. */
const KNOWN_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'prefixItems', 'enum', 'const', 'anyOf', 'oneOf', 'allOf',
  'not', 'if', 'then', 'else', '$ref', '$defs', 'definitions', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$comment',
  'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'format', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems',
  'uniqueItems', 'contains', 'minContains', 'maxContains', 'minProperties', 'maxProperties', 'patternProperties',
  'propertyNames', 'dependentRequired', 'dependentSchemas', 'unevaluatedItems', 'unevaluatedProperties',
  'contentEncoding', 'contentMediaType', 'contentSchema',
]);
/** Keywords holding a count, which Gemini's JSON writes as text. */
const COUNT_KEYWORDS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'minContains', 'maxContains']);
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const LIST_KEYWORDS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
const SINGLE_KEYWORDS = new Set(['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'contentSchema']);

type Schema = Record<string, unknown>;

/** Normalises one tool's parameters; `changes` receives one line per kind of change. */
export function normalizeParameters(input: unknown, changes: Set<string>): Schema {
  if (!isRecord(input)) {
    if (input !== undefined) changes.add('parameters were not an object; replaced with an empty object schema');
    return { type: 'object', properties: {} };
  }
  // Text from the file reaches the model: control and invisible characters (zero-width, directional
  // marks, Unicode tags) in descriptions, names and values would carry what nobody sees.
  const plain = plainValue(input);
  if (plain.changed) changes.add('invisible or control characters (zero-width, directional marks, Unicode tags, escapes) removed from the schema\'s text');
  const schema = normalizeNode(plain.value, changes);
  if (schema.type === undefined && (isRecord(schema.properties) || Object.keys(schema).length === 0)) {
    schema.type = 'object';
    if (!isRecord(schema.properties)) schema.properties = {};
  }
  if (schema.type === 'object' && schema.properties === undefined) schema.properties = {};
  if (schema.type !== 'object') {
    changes.add(`root type ${JSON.stringify(schema.type)} wrapped in an object under "value"`);
    return { type: 'object', properties: { value: schema }, required: ['value'] };
  }
  return schema;
}

/**
 * Normalises a tool's output schema (an MCP `outputSchema`) the same way, keeping its root as it
 * is: what a tool returns need not be an object (MCP 2026-07-28 allows any JSON value). A value
 * that is not a schema mapping is dropped, and the note says so.
 */
export function normalizeOutputSchema(input: unknown, changes: Set<string>): Schema | undefined {
  if (isRecord(input)) return normalizeNode(input, changes);
  changes.add('outputSchema was not a JSON Schema object; dropped');
  return undefined;
}

function normalizeNode(input: Schema, changes: Set<string>): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === '$schema') {
      changes.add(`removed $schema (${String(value)}); schemas are checked as draft 2020-12`);
    } else if (key === 'type') {
      const type = normalizeType(value, changes);
      if (type !== undefined) out.type = type;
    } else if (key === 'optional' || (key === 'required' && typeof value === 'boolean')) {
      // property-level flags; the parent's `required` list is adjusted below
    } else if (key === 'nullable') {
      if (value === true) out.nullable = true;
      changes.add('Gemini/OpenAPI `nullable` became a type union with "null"');
    } else if (key === 'format') {
      if (value === 'enum') changes.add('`format: enum` removed (Gemini\'s marker for an enum; the `enum` says it)');
      else if (typeof value === 'string' && Object.hasOwn(fullFormats, value)) out.format = value;
      else {
        changes.add(`unknown format ${JSON.stringify(value)} moved into the description`);
        out.description = [input.description, `Format: ${String(value)}.`].filter(Boolean).join(' ');
      }
    } else if (COUNT_KEYWORDS.has(key) && typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
      // Gemini's int64 fields are written as text in its JSON (proto3 mapping): `minLength: "2"`.
      out[key] = Number(value);
      changes.add('counts written as text (Gemini\'s int64 fields, `minLength: "2"`) became numbers');
    } else if (key === 'example') {
      // OpenAPI's (and Gemini's) single example is JSON Schema's `examples`.
      if (!Array.isArray(input.examples)) out.examples = [value];
      changes.add('`example` became `examples`');
    } else if (MAP_KEYWORDS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isRecord(sub) ? normalizeNode(sub, changes) : sub]));
    } else if (LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isRecord(sub) ? normalizeNode(sub, changes) : sub));
    } else if (key === 'items' && Array.isArray(value)) {
      Object.assign(out, tuple(value.map((sub) => (isRecord(sub) ? normalizeNode(sub, changes) : sub)), input.additionalItems, changes));
    } else if (key === 'additionalItems') {
      if (!Array.isArray(input.items)) changes.add('removed draft-07 `additionalItems` without a tuple `items`');
    } else if (SINGLE_KEYWORDS.has(key) && isRecord(value)) {
      out[key] = normalizeNode(value, changes);
    } else if (KNOWN_KEYWORDS.has(key) || key === 'description') {
      if (key !== 'description' || out.description === undefined) out[key] = value;
    } else {
      changes.add(`removed unknown keyword "${key}"`);
    }
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
  } else delete out.nullable;

  // required: drop names that are not properties, add property-level `required: true`,
  // remove names whose property says `optional: true`.
  const properties = isRecord(out.properties) ? out.properties : undefined;
  if (properties) {
    const originals = isRecord(input.properties) ? input.properties : {};
    let required = Array.isArray(out.required) ? out.required.filter((n): n is string => typeof n === 'string') : [];
    for (const [name, raw] of Object.entries(originals)) {
      if (!isRecord(raw)) continue;
      if (raw.optional === true && required.includes(name)) {
        required = required.filter((n) => n !== name);
        changes.add('`optional: true` properties removed from `required`');
      } else if (raw.optional !== undefined) changes.add('`optional` flags removed (expressed by `required`)');
      if (raw.required === true && !required.includes(name)) {
        required.push(name);
        changes.add('property-level `required: true` moved into the parent\'s `required`');
      }
    }
    const missing = required.filter((name) => !Object.hasOwn(properties, name));
    if (missing.length) {
      // `required` without a property means "present, any value": the same as an empty schema.
      for (const name of missing) setOwn(properties, name, {});
      changes.add('required names that were not properties became properties of any type');
    }
    if (required.length) out.required = [...new Set(required)];
    else if ('required' in out) {
      delete out.required;
      if (Array.isArray(input.required) && input.required.length) changes.add('emptied `required` lists removed');
    }
  }
  if (Array.isArray(out.required) && !isRecord(out.properties) && out.required.length > 0) {
    out.properties = Object.fromEntries(out.required.filter((n): n is string => typeof n === 'string').map((n) => [n, {}]));
    changes.add('required names that were not properties became properties of any type');
  }
  draft04Exclusive(out, changes);
  dropInapplicableKeywords(out, changes);
  numericEnumText(out, changes);
  if (Array.isArray(out.enum)) {
    const unique = [...new Map(out.enum.map((v) => [JSON.stringify(v), v])).values()];
    if (unique.length === 0) {
      delete out.enum;
      changes.add('removed empty `enum`');
    } else if (unique.length !== out.enum.length) {
      out.enum = unique;
      changes.add('removed repeated `enum` values');
    }
  }
  return out;
}

/**
 * A draft-07 tuple (`items: [A, B]`) in draft 2020-12 that ajv's strict mode accepts, which takes
 * a closed tuple: `prefixItems` with `minItems` and `items: false`. With `additionalItems` as a
 * schema the positions cannot be kept strictly, so every item may match any of the schemas.
 */
function tuple(items: unknown[], additional: unknown, changes: Set<string>): Schema {
  if (isRecord(additional)) {
    changes.add('draft-07 tuple with additionalItems became an array whose items match any of its schemas (positions are no longer checked)');
    return { items: { anyOf: [...items, additional] } };
  }
  changes.add(`draft-07 tuple \`items: [...]\` became a fixed tuple of ${items.length} (prefixItems, minItems, items: false)${additional === false ? '' : '; it allowed other lengths before'}`);
  return { prefixItems: items, minItems: items.length, items: false };
}

/**
 * Draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` (a flag on `minimum`/`maximum`) in
 * draft 2020-12's form, where the keyword holds the bound itself: `{minimum: 0,
 * exclusiveMinimum: true}` → `{exclusiveMinimum: 0}`. A false flag, or one without its bound, says
 * nothing and is removed.
 */
function draft04Exclusive(node: Schema, changes: Set<string>): void {
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    const flag = node[exclusive];
    if (typeof flag !== 'boolean') continue;
    if (flag && typeof node[bound] === 'number') {
      node[exclusive] = node[bound];
      delete node[bound];
      changes.add(`draft-04 \`${exclusive}: true\` with \`${bound}\` became \`${exclusive}\` holding the bound (draft 2020-12)`);
    } else {
      delete node[exclusive];
      changes.add(flag ? `draft-04 \`${exclusive}: true\` without \`${bound}\` removed (it bounded nothing)` : `draft-04 \`${exclusive}: false\` removed (\`${bound}\` stays inclusive)`);
    }
  }
}

/**
 * Enum values written as text on an integer or number node (Gemini's enums are strings: toolman's
 * own Gemini output says `type: INTEGER, format: enum, enum: ["1", "2"]`) become the numbers they
 * spell, and so does such a `default`; left as text, no number could ever match the enum.
 */
function numericEnumText(node: Schema, changes: Set<string>): void {
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : [];
  const numeric = types.filter((t) => t === 'integer' || t === 'number');
  if (!Array.isArray(node.enum) || numeric.length === 0 || !types.every((t) => t === 'integer' || t === 'number' || t === 'null')) return;
  const spells = (v: unknown): v is string => typeof v === 'string' && (numeric.includes('number') ? /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/ : /^\s*-?\d+(\.0+)?\s*$/).test(v);
  if (!node.enum.some((v) => typeof v === 'string') || !node.enum.every((v) => typeof v !== 'string' || spells(v))) return;
  node.enum = node.enum.map((v) => (spells(v) ? Number(v) : v));
  if (spells(node.default)) node.default = Number(node.default);
  changes.add(`enum values written as text on ${numeric.includes('integer') ? 'an integer' : 'a number'} became numbers ("1" → 1)`);
}

/** Keywords that only apply to values of one type (ajv's strictTypes rejects them elsewhere). */
const KEYWORD_TYPES: Record<string, string[]> = {
  minLength: ['string'], maxLength: ['string'], pattern: ['string'],
  minimum: ['number', 'integer'], maximum: ['number', 'integer'], exclusiveMinimum: ['number', 'integer'], exclusiveMaximum: ['number', 'integer'], multipleOf: ['number', 'integer'],
  items: ['array'], prefixItems: ['array'], minItems: ['array'], maxItems: ['array'], uniqueItems: ['array'], contains: ['array'],
  properties: ['object'], required: ['object'], additionalProperties: ['object'], minProperties: ['object'], maxProperties: ['object'], patternProperties: ['object'], propertyNames: ['object'],
};

/** Removes keywords for another type than the node declares (e.g. `minItems` on an integer). */
function dropInapplicableKeywords(node: Schema, changes: Set<string>): void {
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : undefined;
  if (!types) return;
  const dropped = Object.keys(node).filter((key) => KEYWORD_TYPES[key] && !KEYWORD_TYPES[key]!.some((t) => types.includes(t) || (t === 'number' && types.includes('integer'))));
  if (dropped.length === 0) return;
  for (const key of dropped) delete node[key];
  changes.add(`removed keywords that do not apply to type ${types.join('|')}: ${dropped.join(', ')}`);
}

function normalizeType(value: unknown, changes: Set<string>): unknown {
  if (Array.isArray(value)) {
    const types = value.map((t) => normalizeType(t, changes)).filter((t): t is string => typeof t === 'string');
    const unique = [...new Set(types)];
    return unique.length === 0 ? undefined : unique.length === 1 ? unique[0] : unique;
  }
  if (typeof value !== 'string') {
    changes.add(`removed a non-string type ${JSON.stringify(value)}`);
    return undefined;
  }
  if (JSON_TYPES.has(value)) return value;
  if (Object.hasOwn(TYPE_NAMES, value)) {
    const mapped = TYPE_NAMES[value]!;
    changes.add(mapped === null ? `type "${value}" means any value: type removed` : `type "${value}" became "${mapped}"`);
    return mapped ?? undefined;
  }
  const lower = value.toLowerCase();
  if (JSON_TYPES.has(lower)) {
    changes.add(`type "${value}" became "${lower}"`);
    return lower;
  }
  changes.add(`unknown type "${value}" removed (any value)`);
  return undefined;
}
