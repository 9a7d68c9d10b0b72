import type { JsonSchema } from '../../catalog/types.js';
import { InlineBudget, MAX_REFERENCE_DEPTH, pathArray, pathTo, refSegments, resolveLocalRef, type SchemaPath } from '../../catalog/json-schema.js';
import { isRecord } from '../../shared/is-record.js';
import { describeValue, restate } from '../restate.js';
import { isObjectWithoutProperties, mergeAllOf, tupleAsArray } from '../schema-rewrites.js';
import { GEMINI_FORMATS, GEMINI_INT64_KEYS, GEMINI_SCHEMA_KEYS, geminiPropertyNames } from './gemini-facts.js';

const TYPES: Record<string, string> = { string: 'STRING', number: 'NUMBER', integer: 'INTEGER', boolean: 'BOOLEAN', array: 'ARRAY', object: 'OBJECT', null: 'NULL' };
/** Keys removed without a word in the description: annotations, or what a warning says instead. */
const SILENTLY_REMOVED: ReadonlySet<string> = new Set(['$schema', '$id', '$comment', 'examples', 'additionalProperties', 'readOnly', 'writeOnly', 'deprecated']);

/** An enum whose values lose their type when sent as Gemini's string enum. */
export interface LossyEnum {
  /** Where it is in the source schema. */
  path: string[];
  kinds: string[];
}

export type GeminiConversion =
  /** `openMaps`: objects that allowed any key (additionalProperties), sent as objects with only their declared keys. */
  | { ok: true; schema: JsonSchema; changes: string[]; lossyEnums: LossyEnum[]; openMaps: string[][] }
  | { ok: false; reason: string; path: string[] };

type Node = Record<string, unknown>;

/**
 * JSON Schema -> Gemini's schema subset: local `$ref`s inlined (a recursive schema cannot be, and
 * fails), `const` -> a one-value `enum`, type unions and null branches -> `nullable` (or `anyOf`
 * of the remaining types), non-string enums -> strings, `anyOf` alone on its node, unsupported
 * formats and keys removed (restated in the description where they constrain values), and a
 * `type` on every node. This one function decides what `format` sends Gemini and what `validate`
 * reports (TM0403, TM0404). Paths in the result point into the source schema.
 */
export function toGeminiSchema(root: JsonSchema): GeminiConversion {
  const changes = new Set<string>();
  const lossyEnums: LossyEnum[] = [];
  const openMaps: string[][] = [];
  // Inlining copies each definition once per reference: bounded, so a schema whose definitions
  // refer to each other many times over is refused instead of expanded 2^N times.
  const budget = new InlineBudget();
  let outermost: SchemaPath = null;
  /** `nested`: false for the root (the parameters object itself). */
  const convert = (input: Node, refs: string[], path: SchemaPath, nested: boolean): Node => {
    if (refs.length > 0 && !budget.add(textLength(input))) {
      throw new Unconvertible(`inlining its $refs (Gemini's schema subset has no references) would make ${budget.over}`, pathArray(refs.length ? outermost : path));
    }
    if (typeof input.$ref === 'string') {
      const ref = input.$ref;
      if (refs.length >= MAX_REFERENCE_DEPTH) throw new Unconvertible(`its $refs nest more than ${MAX_REFERENCE_DEPTH} deep`, pathArray(outermost));
      if (refs.includes(ref)) throw new Unconvertible(`$ref ${JSON.stringify(ref)} is recursive; Gemini's schema subset has no references`, pathArray(pathTo(path, '$ref')));
      const target = resolveLocalRef(root, ref);
      if (!isRecord(target)) throw new Unconvertible(`$ref ${JSON.stringify(ref)} points at nothing`, pathArray(pathTo(path, '$ref')));
      changes.add('local $ref inlined');
      const { $ref: _r, ...siblings } = input;
      const targetPath = ref === '#' ? null : pathTo(null, ...refSegments(ref));
      // The reference in the tool's own schema that an expansion past the bounds comes from.
      if (refs.length === 0) outermost = pathTo(path, '$ref');
      return convert({ ...target, ...siblings }, [...refs, ref], targetPath, nested);
    }
    let node: Node = { ...input };
    if (Array.isArray(node.allOf)) {
      const merged = mergeAllOf(node);
      if (merged) {
        node = merged;
        changes.add('allOf merged into one schema');
      }
    }
    // A tuple becomes an array of the union of its positions, the order in words.
    const tuple = tupleAsArray(node);
    if (tuple) {
      node = tuple.node;
      if (tuple.words) {
        node.description = [node.description, `(${tuple.words})`].filter(Boolean).join(' ');
        changes.add('tuples sent as arrays of their item types (the order restated in the description)');
      }
    }
    if ('const' in node) {
      node.enum = [node.const];
      delete node.const;
      changes.add('const became a one-value enum');
    }
    if (Array.isArray(node.oneOf)) {
      node.anyOf = node.oneOf;
      delete node.oneOf;
      changes.add('oneOf became anyOf');
    }
    // Type unions: null -> nullable; several other types -> anyOf.
    if (Array.isArray(node.type)) {
      const types = (node.type as string[]).filter((t) => t !== 'null');
      if (types.length !== node.type.length) {
        node.nullable = true;
        changes.add('null in a type union became nullable');
      }
      if (types.length === 1) node.type = types[0];
      else {
        const { type: _t, ...rest } = node;
        node = { ...rest, anyOf: types.map((t) => ({ type: t })) };
        changes.add('a type union became anyOf');
      }
    }
    if (Array.isArray(node.anyOf)) {
      const branches = (node.anyOf as unknown[]).filter(isRecord);
      const nonNull = branches.filter((b) => b.type !== 'null');
      if (nonNull.length !== branches.length) {
        node.nullable = true;
        changes.add('a null branch became nullable');
      }
      if (nonNull.length === 1) {
        const { anyOf: _a, ...rest } = node;
        node = { ...nonNull[0], ...rest };
      } else {
        // anyOf stands alone on its node: other keys move into each branch.
        const { anyOf: _a, description, nullable, ...rest } = node;
        if (Object.keys(rest).length) changes.add('keys beside anyOf moved into its branches');
        const converted = nonNull.map((b, i) => convert({ ...rest, ...b, ...(description !== undefined && b.description === undefined ? { description } : {}) }, refs, pathTo(path, 'anyOf', String(i)), true));
        return { anyOf: converted.map((b) => (nullable ? { ...b, nullable: true } : b)) };
      }
    }
    // An object with no properties of its own (an open map, or always {}) is an OBJECT the API
    // refuses ("properties: should be non-empty for OBJECT type"): it goes as JSON text, which
    // decodeArguments parses back. The root is the tool's parameters: left out when empty (gemini-format).
    if (nested && isObjectWithoutProperties(node)) return objectAsJsonText(node, changes);
    const restated: string[] = [];
    const out: Node = {};
    for (const key in node) {
      const value = node[key];
      if (GEMINI_SCHEMA_KEYS.has(key)) out[key] = GEMINI_INT64_KEYS.has(key) && typeof value === 'number' ? String(value) : value;
      else if (key === '$defs' || key === 'definitions') changes.add('$defs removed after inlining');
      else if (key === 'examples' && Array.isArray(value) && value.length > 0) {
        out.example = value[0];
        changes.add('examples became example (the first one)');
      } else {
        if (key === 'additionalProperties' && (value === true || isRecord(value))) openMaps.push(pathArray(pathTo(path, key)));
        if (!SILENTLY_REMOVED.has(key)) restated.push(restate(key, value));
        changes.add(`removed ${key}`);
      }
    }
    // A type on every node: objects and arrays by their keywords, anything else as a string.
    if (typeof out.type !== 'string') {
      out.type = isRecord(out.properties) ? 'object' : out.items !== undefined ? 'array' : 'string';
      if (!isRecord(node.properties) && node.items === undefined && !Array.isArray(node.enum)) {
        changes.add('untyped values sent as strings');
        restated.push('any JSON value, written as JSON text');
      }
    }
    const type = TYPES[out.type as string] ?? 'STRING';
    out.type = type;
    if (Array.isArray(out.enum)) {
      if (out.enum.some((v) => typeof v !== 'string')) {
        changes.add('non-string enum values sent as strings');
        const kinds = [...new Set(out.enum.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)))];
        if (kinds.length > 1 || kinds[0] !== 'number') lossyEnums.push({ path: pathArray(pathTo(path, 'enum')), kinds });
        if ('default' in out && typeof out.default !== 'string') out.default = JSON.stringify(out.default);
      }
      out.enum = [...new Set(out.enum.filter((v) => v !== null).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))))];
      if (type !== 'STRING') {
        restated.push(`${type === 'INTEGER' ? 'an integer' : type === 'NUMBER' ? 'a number' : `a ${String(node.type)}`}, given as text`);
        out.type = 'STRING';
      }
      out.format = 'enum';
    } else if (typeof out.format === 'string' && !(GEMINI_FORMATS[type] ?? []).includes(out.format)) {
      restated.push(restate('format', out.format));
      delete out.format;
      changes.add('unsupported formats removed');
    }
    if (restated.length) out.description = [out.description, `(${restated.join('; ')})`].filter(Boolean).join(' ');
    if (isRecord(out.properties)) {
      // Parameter names Gemini refuses are sent renamed; decodeArguments maps them back.
      const names = geminiPropertyNames(Object.keys(out.properties));
      const renamed = [...names].filter(([from, to]) => from !== to);
      if (renamed.length) changes.add(`properties renamed for Gemini (${renamed.map(([from, to]) => `${from} → ${to}`).join(', ')})`);
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [names.get(k)!, convert(isRecord(v) ? v : {}, refs, pathTo(path, 'properties', k), true)]));
      if (renamed.length && Array.isArray(out.required)) out.required = out.required.map((name) => (typeof name === 'string' ? (names.get(name) ?? name) : name));
      if (renamed.length && Array.isArray(out.propertyOrdering)) out.propertyOrdering = out.propertyOrdering.map((name) => (typeof name === 'string' ? (names.get(name) ?? name) : name));
    }
    if (isRecord(out.items)) out.items = convert(out.items, refs, pathTo(path, 'items'), true);
    else if (out.items !== undefined) delete out.items;
    if (type === 'ARRAY' && out.items === undefined) {
      out.items = { type: 'STRING' };
      changes.add('arrays without items typed as arrays of strings');
    }
    return out;
  };
  try {
    return { ok: true, schema: convert(root, [], null, false), changes: [...changes], lossyEnums, openMaps };
  } catch (error) {
    if (error instanceof Unconvertible) return { ok: false, reason: error.message, path: error.path };
    throw error;
  }
}

/**
 * An object schema without properties of its own as Gemini's STRING holding JSON text, the
 * description saying so (and what the keys and values may be).
 */
function objectAsJsonText(node: Node, changes: Set<string>): Node {
  const ap = node.additionalProperties;
  const closed = ap === false || node.unevaluatedProperties === false;
  const words = [closed ? 'an empty JSON object, {}' : isRecord(ap) && Object.keys(ap).length ? `a JSON object with any keys, each value ${describeValue(ap)}` : 'a JSON object with any keys'];
  for (const key of ['minProperties', 'maxProperties'] as const) if (typeof node[key] === 'number') words.push(restate(key, node[key]));
  const out: Node = { type: 'STRING' };
  if (typeof node.title === 'string') out.title = node.title;
  out.description = [node.description, `(${words.join('; ')}, written as JSON text)`].filter((d) => typeof d === 'string' && d).join(' ');
  if (node.nullable === true) out.nullable = true;
  for (const key of ['default', 'example'] as const) if (node[key] !== undefined) out[key] = typeof node[key] === 'string' ? node[key] : JSON.stringify(node[key]);
  if (Array.isArray(node.examples) && node.examples.length > 0) out.example = JSON.stringify(node.examples[0]);
  changes.add('objects without properties of their own sent as JSON text (parsed back when the call returns)');
  return out;
}

/** The characters of a node's own text (descriptions, titles, enum values): what inlining copies besides structure. */
function textLength(node: Node): number {
  let length = 0;
  for (const key in node) {
    const value = node[key];
    if (typeof value === 'string') length += key.length + value.length;
    else if (Array.isArray(value)) for (const item of value) length += typeof item === 'string' ? item.length : 1;
    else length += key.length;
  }
  return length;
}

class Unconvertible extends Error {
  constructor(
    message: string,
    readonly path: string[],
  ) {
    super(message);
  }
}
