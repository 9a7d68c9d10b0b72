import { MAX_REFERENCE_DEPTH, pathArray, pathTo, schemaReferences, type SchemaPath } from '../../catalog/json-schema.js';
import type { JsonSchema } from '../../catalog/types.js';
import { isRecord } from '../../shared/is-record.js';
import { OPENAI_STRICT_FORMATS, OPENAI_STRICT_LIMITS, OPENAI_STRICT_UNSUPPORTED } from './openai-facts.js';
import { strictSchemaWalk, type Node } from '../strict-schema-walk.js';

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
  // Definitions no reference reaches are dropped: they cannot affect what the model sends, and an
  // unused one strict mode cannot express would otherwise refuse the whole tool.
  const references = schemaReferences(schema);
  if (references.tooDeep) return { strict: false, reason: `the schema nests deeper than ${MAX_REFERENCE_DEPTH} levels (its $refs followed)`, path: references.tooDeep.path };
  let properties = 0;
  let enumValues = 0;
  /** Property names, definition names, enum and const values, as the size limit counts them. */
  let stringLength = 0;
  let deepest = 0;
  let deepestPath: SchemaPath = null;
  const walk = strictSchemaWalk(schema, references.used, {
    unmergedAllOf: () => 'allOf whose parts cannot be merged into one schema (a $ref, conflicting keywords, or keywords that depend on their neighbours); strict mode does not support allOf',
    // Nodes have a few keys and the unsupported list is long: look at the node's own keys, then
    // take the ones found in the list's order (so descriptions read the same every time).
    restated: (node) => {
      const found: string[] = [];
      for (const key in node) if (UNSUPPORTED.has(key)) found.push(key);
      if (found.length > 1) found.sort((a, b) => UNSUPPORTED_ORDER.get(a)! - UNSUPPORTED_ORDER.get(b)!);
      return [...found, ...RESTATED_ANNOTATIONS.filter((keyword) => keyword in node)];
    },
    annotations: new Set(RESTATED_ANNOTATIONS),
    formats: OPENAI_STRICT_FORMATS,
    visit: (node, path, { depth }) => {
      let problem: { reason: string; path: SchemaPath } | undefined;
      if (Array.isArray(node.enum)) {
        enumValues += node.enum.length;
        const length = node.enum.reduce((sum: number, v) => sum + String(v).length, 0);
        stringLength += length;
        if (node.enum.length > OPENAI_STRICT_LIMITS.largeEnumValues && node.enum.every((v) => typeof v === 'string') && length > OPENAI_STRICT_LIMITS.largeEnumLength) {
          problem = { reason: `an enum of ${node.enum.length} strings totals ${length} characters; over ${OPENAI_STRICT_LIMITS.largeEnumValues} values, strict mode allows ${OPENAI_STRICT_LIMITS.largeEnumLength}`, path: pathTo(path, 'enum') };
        }
      }
      if ('const' in node) stringLength += String(node.const).length;
      if (!('type' in node) && !('anyOf' in node) && !('$ref' in node) && !('enum' in node) && !('const' in node) && !isRecord(node.properties)) {
        problem ??= { reason: 'a value accepts anything (no type); strict mode needs a type on every schema', path };
      }
      if (depth > deepest) {
        deepest = depth;
        deepestPath = path;
      }
      return problem;
    },
    requireAll: true,
    property: (name, child, required, change) => {
      properties++;
      stringLength += name.length;
      if (required) return child;
      change('optional properties made required and nullable');
      return nullable(child as Node);
    },
    definition: (name) => void (stringLength += name.length),
    lists: ['anyOf'],
    nestedDefinitions: 'walk',
  });
  if (walk.failure) return { strict: false, reason: walk.failure.reason, path: pathArray(walk.failure.path) };
  if (properties > OPENAI_STRICT_LIMITS.properties) return { strict: false, reason: `${properties} properties, over ${OPENAI_STRICT_LIMITS.properties}`, path: [] };
  if (deepest > OPENAI_STRICT_LIMITS.nesting) return { strict: false, reason: `${deepest} levels of nesting, over ${OPENAI_STRICT_LIMITS.nesting}`, path: pathArray(deepestPath) };
  if (enumValues > OPENAI_STRICT_LIMITS.enumValues) return { strict: false, reason: `${enumValues} enum values, over ${OPENAI_STRICT_LIMITS.enumValues}`, path: [] };
  if (stringLength > OPENAI_STRICT_LIMITS.stringLength) return { strict: false, reason: `property names, definition names, enum and const values total ${stringLength} characters, over ${OPENAI_STRICT_LIMITS.stringLength}`, path: [] };
  return { strict: true, schema: walk.schema, changes: walk.changes, restated: walk.restated.map((r) => ({ keyword: r.keyword, path: pathArray(r.path) })) };
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
