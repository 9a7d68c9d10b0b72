import { MAX_REFERENCE_DEPTH, pathArray, pathTo, schemaReferences, type SchemaPath } from '../../catalog/json-schema.js';
import type { JsonSchema } from '../../catalog/types.js';
import { isRecord } from '../../shared/is-record.js';
import { restate } from '../restate.js';
import { OPENAI_STRICT_FORMATS, OPENAI_STRICT_LIMITS, OPENAI_STRICT_UNSUPPORTED } from './openai-facts.js';
import { setOwn } from '../../shared/own.js';
import { IMPLICIT_OPEN_MAP_REASON, isImplicitOpenMap, mergeAllOf, tupleAsArray } from '../schema-rewrites.js';

const UNSUPPORTED: ReadonlySet<string> = new Set(OPENAI_STRICT_UNSUPPORTED);
const UNSUPPORTED_ORDER = new Map<string, number>(OPENAI_STRICT_UNSUPPORTED.map((k, i) => [k, i]));

/** Annotation-like keywords strict mode rejects; their content moves into the description. */
const RESTATED_ANNOTATIONS = ['default', 'examples'] as const;

/** A constraint strict mode cannot express, removed from the schema and restated in its description. */
export interface RestatedKeyword {
  keyword: string;
  /** Where it was, from the schema root. */
  path: string[];
}

export type StrictConversion =
  | { strict: true; schema: JsonSchema; changes: string[]; restated: RestatedKeyword[] }
  | { strict: false; reason: string; path: string[] };

type Node = Record<string, unknown>;

/**
 * Rewrites a tool's parameters for OpenAI strict mode: every object closed
 * (`additionalProperties: false`) with every property required, optional ones made nullable;
 * keywords strict mode does not support are removed and restated in the description; `allOf`
 * parts are merged into one schema and tuples become arrays of their item types. Schemas that
 * cannot be made strict (open maps, including objects with no properties and no
 * `additionalProperties`, a root union, untyped values, an `allOf` that cannot be merged, over the
 * size limits) are refused with the reason and where. This one function decides both what
 * `format --strict` sends and what `validate` reports (TM0401, TM0402).
 */
export function toOpenAiStrict(schema: JsonSchema): StrictConversion {
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return { strict: false, reason: 'the root is a union; strict mode needs one object', path: [] };
  const changes = new Set<string>();
  const restatedKeywords: RestatedKeyword[] = [];
  // Definitions no reference reaches are dropped: they cannot affect what the model sends, and an
  // unused one strict mode cannot express would otherwise refuse the whole tool.
  const references = schemaReferences(schema);
  if (references.tooDeep) return { strict: false, reason: `the schema nests deeper than ${MAX_REFERENCE_DEPTH} levels (its $refs followed)`, path: references.tooDeep.path };
  const used = references.used;
  let properties = 0;
  let enumValues = 0;
  /** Property names, definition names, enum and const values, as the size limit counts them. */
  let stringLength = 0;
  let deepest = 0;
  let deepestPath: SchemaPath = null;
  let failure: { reason: string; path: string[] } | undefined;
  const fail = (reason: string, path: SchemaPath) => void (failure ??= { reason, path: pathArray(path) });

  const convert = (input: Node, depth: number, path: SchemaPath): Node => {
    let node: Node = { ...input };
    const restated: string[] = [];
    // allOf is not supported: parts that merge into one schema are merged (so an object built from
    // parts is closed as one object); others cannot be sent strict.
    if (Array.isArray(node.allOf)) {
      const merged = mergeAllOf(node);
      if (merged) {
        node = merged;
        changes.add('allOf merged into one schema');
      } else fail('allOf whose parts cannot be merged into one schema (a $ref, conflicting keywords, or keywords that depend on their neighbours); strict mode does not support allOf', pathTo(path, 'allOf'));
    }
    // A tuple becomes an array of the union of its positions, the order in words.
    const tuple = tupleAsArray(node);
    if (tuple) {
      node = tuple.node;
      if (tuple.words) {
        restated.push(tuple.words);
        restatedKeywords.push({ keyword: 'prefixItems', path: pathArray(pathTo(path, 'prefixItems')) });
        changes.add('tuples sent as arrays of their item types (the order restated in the description)');
      }
    }
    // Nodes have a few keys and the unsupported list is long: look at the node's own keys, then
    // handle the ones found in the list's order (so descriptions read the same every time).
    let found: string[] | undefined;
    for (const key in node) if (UNSUPPORTED.has(key)) (found ??= []).push(key);
    if (found && found.length > 1) found.sort((a, b) => UNSUPPORTED_ORDER.get(a)! - UNSUPPORTED_ORDER.get(b)!);
    for (const keyword of found ?? []) {
      if (keyword === 'oneOf' && Array.isArray(node.oneOf)) {
        node.anyOf = node.oneOf;
        delete node.oneOf;
        changes.add('oneOf became anyOf');
        continue;
      }
      restated.push(restate(keyword, node[keyword]));
      restatedKeywords.push({ keyword, path: pathArray(pathTo(path, keyword)) });
      delete node[keyword];
      changes.add(`removed ${keyword} (restated in the description)`);
    }
    for (const keyword of RESTATED_ANNOTATIONS) {
      if (!(keyword in node)) continue;
      restated.push(restate(keyword, node[keyword]));
      delete node[keyword];
      changes.add(`removed ${keyword} (restated in the description)`);
    }
    if (typeof node.format === 'string' && !OPENAI_STRICT_FORMATS.has(node.format)) {
      restated.push(restate('format', node.format));
      delete node.format;
      changes.add('removed unsupported formats (restated in the description)');
    }
    if (restated.length) node.description = [node.description, `(${restated.join('; ')})`].filter(Boolean).join(' ');
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      const length = node.enum.reduce((sum: number, v) => sum + String(v).length, 0);
      stringLength += length;
      if (node.enum.length > OPENAI_STRICT_LIMITS.largeEnumValues && node.enum.every((v) => typeof v === 'string') && length > OPENAI_STRICT_LIMITS.largeEnumLength) {
        fail(`an enum of ${node.enum.length} strings totals ${length} characters; over ${OPENAI_STRICT_LIMITS.largeEnumValues} values, strict mode allows ${OPENAI_STRICT_LIMITS.largeEnumLength}`, pathTo(path, 'enum'));
      }
    }
    if ('const' in node) stringLength += String(node.const).length;
    if (!('type' in node) && !('anyOf' in node) && !('$ref' in node) && !('enum' in node) && !('const' in node) && !isRecord(node.properties)) {
      fail('a value accepts anything (no type); strict mode needs a type on every schema', path);
    }

    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isRecord(node.properties);
    const here = isObject ? depth + 1 : depth;
    if (here > deepest) {
      deepest = here;
      deepestPath = path;
    }
    if (isObject) {
      const ap = node.additionalProperties;
      if (ap === true || isRecord(ap)) fail('an object allows arbitrary keys (additionalProperties); strict mode needs every key declared', pathTo(path, 'additionalProperties'));
      // The root without properties is a tool without parameters: closed, it is still what the tool takes.
      if (path !== null && isImplicitOpenMap(node)) fail(IMPLICIT_OPEN_MAP_REASON, path);
      if (ap !== false) changes.add('objects closed with additionalProperties: false');
      node.additionalProperties = false;
      const props = isRecord(node.properties) ? node.properties : {};
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      const converted: Node = {};
      for (const [name, sub] of Object.entries(props)) {
        properties++;
        stringLength += name.length;
        let child = isRecord(sub) ? convert(sub, here, pathTo(path, 'properties', name)) : {};
        if (!required.has(name)) {
          child = nullable(child);
          changes.add('optional properties made required and nullable');
        }
        setOwn<unknown>(converted, name, child);
      }
      node.properties = converted;
      node.required = Object.keys(converted);
    }
    if (isRecord(node.items)) node.items = convert(node.items, here, pathTo(path, 'items'));
    if (Array.isArray(node.anyOf)) node.anyOf = node.anyOf.map((s, i) => (isRecord(s) ? convert(s, here, pathTo(path, 'anyOf', String(i))) : s));
    for (const defs of ['$defs', 'definitions'] as const) {
      if (!isRecord(node[defs])) continue;
      const all = Object.entries(node[defs] as Node);
      // Only the root's definitions are what "#/$defs/name" points at.
      const kept = path === null ? all.filter(([k]) => used.has(`${defs}/${k}`)) : all;
      if (kept.length < all.length) changes.add(`unused ${defs} dropped`);
      if (kept.length === 0) {
        delete node[defs];
        continue;
      }
      node[defs] = Object.fromEntries(kept.map(([k, s]) => {
        stringLength += k.length;
        return [k, isRecord(s) ? convert(s, 0, pathTo(path, defs, k)) : s];
      }));
    }
    return node;
  };

  const result = convert(schema, 0, null);
  if (failure) return { strict: false, ...failure };
  if (properties > OPENAI_STRICT_LIMITS.properties) return { strict: false, reason: `${properties} properties, over ${OPENAI_STRICT_LIMITS.properties}`, path: [] };
  if (deepest > OPENAI_STRICT_LIMITS.nesting) return { strict: false, reason: `${deepest} levels of nesting, over ${OPENAI_STRICT_LIMITS.nesting}`, path: pathArray(deepestPath) };
  if (enumValues > OPENAI_STRICT_LIMITS.enumValues) return { strict: false, reason: `${enumValues} enum values, over ${OPENAI_STRICT_LIMITS.enumValues}`, path: [] };
  if (stringLength > OPENAI_STRICT_LIMITS.stringLength) return { strict: false, reason: `property names, definition names, enum and const values total ${stringLength} characters, over ${OPENAI_STRICT_LIMITS.stringLength}`, path: [] };
  return { strict: true, schema: result, changes: [...changes], restated: restatedKeywords };
}

/** Lets a property also be null: a type union, or a null branch for unions and untyped schemas. */
function nullable(node: Node): Node {
  if (typeof node.type === 'string') {
    const out: Node = { ...node, type: node.type === 'null' ? 'null' : [node.type, 'null'] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.type)) {
    const out: Node = { ...node, type: node.type.includes('null') ? node.type : [...node.type, 'null'] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.anyOf)) return node.anyOf.some((b) => isRecord(b) && b.type === 'null') ? node : { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  const { description, ...rest } = node;
  return { anyOf: [rest, { type: 'null' }], ...(description !== undefined ? { description } : {}) };
}
