import { MAX_REFERENCE_DEPTH, pathArray, pathTo, resolveLocalRef, schemaReferences } from '../../catalog/json-schema.js';
import type { JsonSchema } from '../../catalog/types.js';
import { isRecord } from '../../shared/is-record.js';
import { ANTHROPIC_STRICT_FORMATS, ANTHROPIC_STRICT_RESTATED } from './anthropic-facts.js';
import { allOfHasObjects } from '../schema-rewrites.js';
import { strictSchemaWalk } from '../strict-schema-walk.js';

export type AnthropicStrictConversion =
  | { strict: true; schema: JsonSchema; changes: string[]; optional: number; unions: number }
  | { strict: false; reason: string; path: string[] };

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
  let optional = 0;
  let unions = 0;
  const references = schemaReferences(schema);
  if (references.external) return { strict: false, reason: `external $ref ${JSON.stringify(references.external.ref)} is not supported in strict mode`, path: references.external.path };
  if (references.tooDeep) return { strict: false, reason: `the schema nests deeper than ${MAX_REFERENCE_DEPTH} levels (its $refs followed)`, path: references.tooDeep.path };
  if (references.recursive) return { strict: false, reason: `$ref ${JSON.stringify(references.recursive.ref)} is recursive; strict mode does not support recursive schemas`, path: references.recursive.path };
  const walk = strictSchemaWalk(schema, references.used, {
    unmergedAllOf: (node) =>
      JSON.stringify(node.allOf).includes('"$ref"')
        ? 'allOf with $ref is not supported in strict mode'
        : allOfHasObjects(node)
          ? 'allOf of object schemas that cannot be merged into one object (the same property with different schemas, or keywords that depend on their neighbours); strict mode would close each part, so only {} would be accepted'
          : undefined,
    restated: (node) => ANTHROPIC_STRICT_RESTATED.filter((keyword) => keyword in node && !(keyword === 'minItems' && (node.minItems === 0 || node.minItems === 1))),
    formats: ANTHROPIC_STRICT_FORMATS,
    visit: (node, path, { property }) => {
      if (property && (Array.isArray(node.anyOf) || (Array.isArray(node.type) && node.type.length > 1))) unions++;
      if (Array.isArray(node.enum) && node.enum.some((v) => v !== null && typeof v === 'object')) return { reason: 'an enum lists objects or arrays; strict mode takes enums of strings, numbers, booleans and null only', path: pathTo(path, 'enum') };
      return undefined;
    },
    requireAll: false,
    property: (_name, child, required) => {
      if (!required) optional++;
      return child;
    },
    lists: ['anyOf', 'allOf'],
    nestedDefinitions: 'leave',
  });
  if (walk.failure) return { strict: false, reason: walk.failure.reason, path: pathArray(walk.failure.path) };
  return { strict: true, schema: walk.schema, changes: walk.changes, optional, unions };
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
