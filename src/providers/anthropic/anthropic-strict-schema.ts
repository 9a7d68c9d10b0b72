import { MAX_REFERENCE_DEPTH, pathArray, pathTo, resolveLocalRef, schemaReferences, type SchemaPath } from '../../catalog/json-schema.js';
import type { JsonSchema } from '../../catalog/types.js';
import { isRecord } from '../../shared/is-record.js';
import { restate } from '../restate.js';
import { ANTHROPIC_STRICT_FORMATS, ANTHROPIC_STRICT_RESTATED } from './anthropic-facts.js';
import { setOwn } from '../../shared/own.js';
import { allOfHasObjects, IMPLICIT_OPEN_MAP_REASON, isImplicitOpenMap, mergeAllOf, tupleAsArray } from '../schema-rewrites.js';

export type AnthropicStrictConversion =
  | { strict: true; schema: JsonSchema; changes: string[]; optional: number; unions: number }
  | { strict: false; reason: string; path: string[] };

type Node = Record<string, unknown>;

/**
 * Rewrites a tool's input schema for Anthropic's strict tool use ("Structured outputs", JSON
 * Schema limitations): every object closed with `additionalProperties: false`; constraints strict
 * mode does not support (numeric and length bounds, `minItems` above 1, `maxItems`, formats it
 * does not know, conditionals...) removed and restated in the description, so the tool stays strict
 * with the constraint in words; `oneOf` as `anyOf`; `allOf` parts merged into one schema where
 * that changes nothing; tuples as arrays of their item types; `$defs` no reference reaches
 * dropped. Refused, with the reason and where: open maps (including objects with no properties and
 * no `additionalProperties`), recursive or external references, `allOf` with a reference or of
 * objects that cannot be merged, enums of objects or arrays. Also counts what the per-request limits count: optional
 * parameters and parameters with union types.
 */
export function toAnthropicStrict(schema: JsonSchema): AnthropicStrictConversion {
  const changes = new Set<string>();
  let optional = 0;
  let unions = 0;
  let failure: { reason: string; path: string[] } | undefined;
  const fail = (reason: string, path: SchemaPath) => void (failure ??= { reason, path: pathArray(path) });
  const references = schemaReferences(schema);
  if (references.external) return { strict: false, reason: `external $ref ${JSON.stringify(references.external.ref)} is not supported in strict mode`, path: references.external.path };
  if (references.tooDeep) return { strict: false, reason: `the schema nests deeper than ${MAX_REFERENCE_DEPTH} levels (its $refs followed)`, path: references.tooDeep.path };
  if (references.recursive) return { strict: false, reason: `$ref ${JSON.stringify(references.recursive.ref)} is recursive; strict mode does not support recursive schemas`, path: references.recursive.path };
  const used = references.used;

  const convert = (input: Node, path: SchemaPath, property: boolean): Node => {
    let node: Node = { ...input };
    const restated: string[] = [];
    // allOf parts that merge into one schema are merged: closed one by one, object parts would
    // each refuse the others' keys, and only {} would satisfy the whole.
    if (Array.isArray(node.allOf)) {
      const merged = mergeAllOf(node);
      if (merged) {
        node = merged;
        changes.add('allOf merged into one schema');
      } else if (JSON.stringify(node.allOf).includes('"$ref"')) fail('allOf with $ref is not supported in strict mode', pathTo(path, 'allOf'));
      else if (allOfHasObjects(node)) fail('allOf of object schemas that cannot be merged into one object (the same property with different schemas, or keywords that depend on their neighbours); strict mode would close each part, so only {} would be accepted', pathTo(path, 'allOf'));
    }
    // A tuple becomes an array of the union of its positions, the order in words.
    const tuple = tupleAsArray(node);
    if (tuple) {
      node = tuple.node;
      if (tuple.words) {
        restated.push(tuple.words);
        changes.add('tuples sent as arrays of their item types (the order restated in the description)');
      }
    }
    for (const keyword of ANTHROPIC_STRICT_RESTATED) {
      if (!(keyword in node)) continue;
      if (keyword === 'minItems' && (node.minItems === 0 || node.minItems === 1)) continue;
      restated.push(restate(keyword, node[keyword]));
      delete node[keyword];
      changes.add(`removed ${keyword} (restated in the description)`);
    }
    if (typeof node.format === 'string' && !ANTHROPIC_STRICT_FORMATS.has(node.format)) {
      restated.push(restate('format', node.format));
      delete node.format;
      changes.add('removed unsupported formats (restated in the description)');
    }
    if (restated.length) node.description = [node.description, `(${restated.join('; ')})`].filter(Boolean).join(' ');
    if (Array.isArray(node.oneOf)) {
      node.anyOf = node.oneOf;
      delete node.oneOf;
      changes.add('oneOf became anyOf');
    }
    if (Array.isArray(node.enum) && node.enum.some((v) => v !== null && typeof v === 'object')) fail('an enum lists objects or arrays; strict mode takes enums of strings, numbers, booleans and null only', pathTo(path, 'enum'));
    if (property && (Array.isArray(node.anyOf) || (Array.isArray(node.type) && node.type.length > 1))) unions++;

    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isRecord(node.properties);
    if (isObject) {
      const ap = node.additionalProperties;
      if (ap === true || isRecord(ap)) fail('an object allows arbitrary keys (additionalProperties); strict mode needs every key declared', pathTo(path, 'additionalProperties'));
      // The root without properties is a tool without parameters: closed, it is still what the tool takes.
      if (path !== null && isImplicitOpenMap(node)) fail(IMPLICIT_OPEN_MAP_REASON, path);
      if (ap !== false) changes.add('objects closed with additionalProperties: false');
      node.additionalProperties = false;
      if (isRecord(node.properties)) {
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        const converted: Node = {};
        for (const [name, sub] of Object.entries(node.properties)) {
          if (!required.has(name)) optional++;
          setOwn(converted, name, isRecord(sub) ? convert(sub, pathTo(path, 'properties', name), true) : sub);
        }
        node.properties = converted;
      }
    }
    if (isRecord(node.items)) node.items = convert(node.items, pathTo(path, 'items'), false);
    for (const list of ['anyOf', 'allOf'] as const) {
      if (Array.isArray(node[list])) node[list] = (node[list] as unknown[]).map((s, i) => (isRecord(s) ? convert(s, pathTo(path, list, String(i)), false) : s));
    }
    for (const defs of ['$defs', 'definitions'] as const) {
      if (!isRecord(node[defs]) || path !== null) continue;
      const kept = Object.entries(node[defs] as Node).filter(([name]) => used.has(`${defs}/${name}`));
      if (kept.length < Object.keys(node[defs] as Node).length) changes.add(`unused ${defs} dropped`);
      if (kept.length) node[defs] = Object.fromEntries(kept.map(([name, s]) => [name, isRecord(s) ? convert(s, pathTo(path, defs, name), false) : s]));
      else delete node[defs];
    }
    return node;
  };
  const converted = convert(schema, null, false);
  if (failure) return { strict: false, ...(failure as { reason: string; path: string[] }) };
  return { strict: true, schema: converted, changes: [...changes], optional, unions };
}

/**
 * Whether `value` still fits a schema once its objects are closed: the only way strict conversion
 * can make a valid example invalid is a key the schema does not declare (bounds are only loosened).
 */
export function fitsClosedObjects(value: unknown, schema: unknown, root: unknown = schema, known = new WeakMap<object, Map<unknown, boolean>>()): boolean {
  if (!isRecord(schema)) return true;
  // Each (schema node, value) pair is judged once: unions of references to the same definitions
  // would otherwise be tried again on every path, 2^N times for a chain of N.
  let results = known.get(schema);
  const earlier = results?.get(value);
  if (earlier !== undefined) return earlier;
  if (!results) known.set(schema, (results = new Map()));
  // A pair met again while being judged (a recursive reference) is taken to fit: its other keywords decide.
  results.set(value, true);
  const fits = fitsNode(value, schema, root, known);
  results.set(value, fits);
  return fits;
}

function fitsNode(value: unknown, schema: Record<string, unknown>, root: unknown, known: WeakMap<object, Map<unknown, boolean>>): boolean {
  if (typeof schema.$ref === 'string') return fitsClosedObjects(value, resolveLocalRef(root, schema.$ref), root, known);
  for (const list of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[list]) && !(schema[list] as unknown[]).some((branch) => fitsClosedObjects(value, branch, root, known))) return false;
  }
  if (Array.isArray(schema.allOf) && !(schema.allOf as unknown[]).every((branch) => fitsClosedObjects(value, branch, root, known))) return false;
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isRecord(schema.properties);
  if (isRecord(value) && isObject) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    for (const [key, item] of Object.entries(value)) {
      if (!Object.hasOwn(properties, key)) return false;
      if (!fitsClosedObjects(item, properties[key], root, known)) return false;
    }
  }
  if (Array.isArray(value) && isRecord(schema.items)) return value.every((item) => fitsClosedObjects(item, schema.items, root, known));
  return true;
}
