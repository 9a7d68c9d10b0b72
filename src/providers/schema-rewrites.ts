import { LIST_SUBSCHEMA_KEYWORDS, MAP_SUBSCHEMA_KEYWORDS, SINGLE_SUBSCHEMA_KEYWORDS } from '../catalog/json-schema.js';
import type { JsonSchema } from '../catalog/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';
import { setOwn } from '../shared/own.js';
import { describeValue, restate } from './restate.js';

/**
 * Schema shapes the provider converters share: which objects are open maps, tuples rewritten as
 * arrays, `allOf` merged into one schema, and where in a tool's parameters a node is, in words.
 */

type Node = Record<string, unknown>;

/** An object schema: `type: object` (alone or in a union), or `properties` without a type. */
export function isObjectSchema(node: Node): boolean {
  return node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isRecord(node.properties);
}

/** Whether an object schema names at least one property. */
export function declaresProperties(node: Node): boolean {
  return isRecord(node.properties) && Object.keys(node.properties).length > 0;
}

/** Keywords through which an object's keys may be described elsewhere (branches, references, conditions). */
const COMPOSED = ['anyOf', 'oneOf', 'allOf', '$ref', 'if', 'dependentSchemas'] as const;

/**
 * An object that declares no properties and keeps its keys open: `additionalProperties` true or a
 * schema, or not said at all (JSON Schema then accepts any keys: `{type: object}` and
 * `{type: object, properties: {}}` are open maps). Objects whose keys come from branches or
 * references are not judged here.
 */
export function isOpenMapWithoutProperties(node: Node): boolean {
  if (!isObjectSchema(node) || declaresProperties(node) || COMPOSED.some((k) => k in node)) return false;
  if (node.additionalProperties === false || node.unevaluatedProperties === false) return false;
  return true;
}

/** An object schema with no properties of its own whose keys are not described elsewhere either (branches, references). */
export function isObjectWithoutProperties(node: Node): boolean {
  return isObjectSchema(node) && !declaresProperties(node) && !COMPOSED.some((k) => k in node);
}

/** An open map that says nothing of `additionalProperties` (the explicit ones are judged by their keyword). */
export function isImplicitOpenMap(node: Node): boolean {
  return isOpenMapWithoutProperties(node) && !('additionalProperties' in node);
}

/** Why an implicit open map cannot be strict, for warnings and TM0402. */
export const IMPLICIT_OPEN_MAP_REASON = 'an object declares no properties and does not set additionalProperties, so it accepts any keys (an open map); strict mode needs every key declared';

/**
 * A tuple (`prefixItems`, usually closed with `items: false`) as a plain array: `items` is the
 * union (`anyOf`) of the position schemas and of what may follow them (or the one schema, when
 * they are all the same), `minItems` stays, `maxItems` is the tuple's length when nothing may
 * follow, and the order goes into words ("items in order: a string, then an integer") for the
 * description. Undefined when the node is not a tuple. An `items: false` without positions (only
 * the empty array) becomes `maxItems: 0`.
 */
export function tupleAsArray(node: Node): { node: Node; words?: string } | undefined {
  if (!Array.isArray(node.prefixItems)) {
    if (node.items !== false) return undefined;
    const { items: _items, ...rest } = node;
    return { node: { ...rest, maxItems: 0 } };
  }
  const positions = node.prefixItems;
  const tail = node.items;
  const branches: Node[] = [];
  const seen = new Set<string>();
  for (const schema of [...positions, ...(isRecord(tail) ? [tail] : [])]) {
    const branch = isRecord(schema) ? schema : {};
    const key = canonicalJson(branch);
    if (seen.has(key)) continue;
    seen.add(key);
    branches.push(branch);
  }
  const { prefixItems: _prefix, items: _items, ...rest } = node;
  const out: Node = { ...rest };
  if (branches.length === 1) out.items = branches[0];
  else if (branches.length > 1) out.items = { anyOf: branches };
  if (tail === false) out.maxItems = typeof node.maxItems === 'number' ? Math.min(node.maxItems, positions.length) : positions.length;
  let words = restate('prefixItems', positions);
  if (isRecord(tail)) words += `, then any number of ${describeValue(tail)}`;
  return { node: out, words };
}

/**
 * Rewrites every `items: false` of a schema sent as JSON Schema (non-strict OpenAI and Anthropic,
 * Gemini's `parametersJsonSchema`), which no provider takes as a schema: a closed tuple keeps its
 * `prefixItems` and gets `items` as the union of its positions with `maxItems` its length (the
 * same arrays are valid); `items: false` alone becomes `maxItems: 0`. The schema is returned as it
 * is when it has none.
 */
export function withoutFalseItems(schema: JsonSchema): JsonSchema {
  const rewrite = (value: unknown, depth: number): unknown => {
    if (!isRecord(value) || depth > 64) return value;
    let out: Node | undefined;
    const replace = (key: string, next: unknown) => setOwn((out ??= { ...value }), key, next);
    for (const key of SINGLE_SUBSCHEMA_KEYWORDS) {
      if (!isRecord(value[key])) continue;
      const next = rewrite(value[key], depth + 1);
      if (next !== value[key]) replace(key, next);
    }
    for (const key of LIST_SUBSCHEMA_KEYWORDS) {
      const list = value[key];
      if (!Array.isArray(list)) continue;
      const next = list.map((item) => rewrite(item, depth + 1));
      if (next.some((item, i) => item !== list[i])) replace(key, next);
    }
    for (const key of MAP_SUBSCHEMA_KEYWORDS) {
      const map = value[key];
      if (!isRecord(map)) continue;
      let changed: Node | undefined;
      for (const [name, sub] of Object.entries(map)) {
        const next = rewrite(sub, depth + 1);
        if (next !== sub) setOwn((changed ??= { ...map }), name, next);
      }
      if (changed) replace(key, changed);
    }
    const node: Node = out ?? value;
    if (node.items !== false) return node;
    const array = tupleAsArray(node)!.node;
    return Array.isArray(node.prefixItems) ? { ...array, prefixItems: node.prefixItems } : array;
  };
  return rewrite(schema, 0) as JsonSchema;
}

/** Keywords whose meaning depends on their neighbours: a schema holding one is not merged into another. */
const ENTANGLED = new Set([
  '$ref', '$defs', 'definitions', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', 'additionalProperties', 'patternProperties', 'unevaluatedProperties',
  'unevaluatedItems', 'items', 'prefixItems', 'contains', 'minContains', 'maxContains', 'if', 'then', 'else', 'dependentSchemas', 'allOf',
]);
/** Annotations: the parent's are kept, the branches' only fill gaps. */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * An `allOf` merged into its node, when that changes nothing a value may be: every branch a plain
 * schema (no `$ref`, no keyword whose meaning depends on its neighbours, such as
 * `additionalProperties` or `items`), `properties` and `required` joined, the same `type`
 * everywhere it is said, and no keyword given two different values (the same property with two
 * different schemas, two enums). Objects built from parts this way can then be closed as one
 * object by strict modes. Undefined when the node has no `allOf` or it cannot be merged.
 */
export function mergeAllOf(node: Node): Node | undefined {
  if (!Array.isArray(node.allOf) || node.allOf.length === 0) return undefined;
  const { allOf, ...parent } = node;
  // The parent's own object keywords would apply to the merged properties differently.
  if ('additionalProperties' in parent || 'patternProperties' in parent) return undefined;
  const closed = parent.unevaluatedProperties === false;
  if ('unevaluatedProperties' in parent && !closed) return undefined;
  delete parent.unevaluatedProperties;
  const out: Node = { ...parent };
  const properties: Node = isRecord(parent.properties) ? { ...parent.properties } : {};
  const required = new Set<string>(Array.isArray(parent.required) ? parent.required.filter((n): n is string => typeof n === 'string') : []);
  let hasProperties = isRecord(parent.properties);
  const gaps: Node = {};
  for (const raw of allOf) {
    let branch = raw;
    if (isRecord(branch) && Array.isArray(branch.allOf)) branch = mergeAllOf(branch);
    if (!isRecord(branch)) return undefined;
    for (const [key, value] of Object.entries(branch)) {
      if (ENTANGLED.has(key)) return undefined;
      if (key === 'properties') {
        if (!isRecord(value)) return undefined;
        hasProperties = true;
        for (const [name, schema] of Object.entries(value)) {
          if (Object.hasOwn(properties, name) && canonicalJson(properties[name]) !== canonicalJson(schema)) return undefined;
          setOwn(properties, name, schema);
        }
      } else if (key === 'required') {
        if (!Array.isArray(value)) return undefined;
        for (const name of value) if (typeof name === 'string') required.add(name);
      } else if (ANNOTATIONS.has(key)) {
        if (!(key in parent) && !(key in gaps)) gaps[key] = value;
      } else if (key in out) {
        if (canonicalJson(out[key]) !== canonicalJson(value)) return undefined;
      } else out[key] = value;
    }
  }
  // `required` and `properties` only mean something for objects: a branch of another type cannot hold them.
  if ((hasProperties || required.size) && out.type !== undefined && !(out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object')))) return undefined;
  if (hasProperties) out.properties = properties;
  if (required.size) out.required = [...required];
  if (hasProperties && out.type === undefined) out.type = 'object';
  if (closed) out.additionalProperties = false;
  return { ...out, ...gaps };
}

/** Whether an `allOf` has a branch that is (or refers to) an object: closing each branch alone would then refuse every value but `{}`. */
export function allOfHasObjects(node: Node): boolean {
  return Array.isArray(node.allOf) && node.allOf.some((b) => isRecord(b) && (isObjectSchema(b) || typeof b.$ref === 'string' || 'required' in b));
}

/**
 * Where a node is in a tool's parameters, for warnings: `parameters.inputs`,
 * `parameters.rows[].name`, `parameters.$defs.folder`.
 */
export function schemaPlace(path: readonly string[]): string {
  let out = 'parameters';
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const next = path[i + 1];
    if (segment === 'properties' && next !== undefined) {
      out += `.${next}`;
      i++;
    } else if (segment === 'items' && (next === undefined || !/^\d+$/.test(next))) out += '[]';
    else if (next !== undefined && (/^\d+$/.test(next) || ['$defs', 'definitions', 'patternProperties', 'dependentSchemas'].includes(segment))) {
      out += /^\d+$/.test(next) ? `.${segment}[${next}]` : `.${segment}.${next}`;
      i++;
    } else out += `.${segment}`;
  }
  return out;
}
