import { LIST_SUBSCHEMA_KEYWORDS, MAP_SUBSCHEMA_KEYWORDS, SINGLE_SUBSCHEMA_KEYWORDS } from '../catalog/json-schema.js';
import type { JsonSchema } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';

/** Keywords that never change what ajv's strict mode says about a schema. */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);
const SINGLE = new Set<string>(SINGLE_SUBSCHEMA_KEYWORDS);
const LIST = new Set<string>(LIST_SUBSCHEMA_KEYWORDS);
const MAP = new Set<string>(MAP_SUBSCHEMA_KEYWORDS);

/**
 * A schema's shape: the schema without annotations and with property names replaced by their
 * position (p0, p1...). ajv's strict-mode complaints depend only on the shape (property names
 * matter to strictRequired, which toolman checks itself), so schemas with one shape are compiled
 * once. Real catalogs repeat shapes a lot: BFCL's 1,853 functions have 833 shapes.
 * Schemas with `$ref` keep their names, since a reference may point into `properties`. Callers
 * that already know (pieces of a decomposed schema never have one) pass `hasRef`.
 */
export function schemaShape(schema: JsonSchema, hasRef = JSON.stringify(schema).includes('"$ref"')): { shape: JsonSchema; renamed: boolean } {
  const renameProperties = !hasRef;
  const shape = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map(shape);
    const source = node as Record<string, unknown>;
    const names = renameProperties && isRecord(source.properties) ? Object.keys(source.properties) : undefined;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) {
      if (ANNOTATIONS.has(key)) continue;
      if (key === 'properties' && names && isRecord(value)) {
        out[key] = Object.fromEntries(names.map((name, i) => [`p${i}`, shape(value[name])]));
      } else if (key === 'required' && names && Array.isArray(value)) {
        out[key] = value.map((name) => (typeof name === 'string' && names.includes(name) ? `p${names.indexOf(name)}` : name));
      } else if (MAP.has(key) && isRecord(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, shape(sub)]));
      } else if (SINGLE.has(key) || LIST.has(key)) {
        out[key] = shape(value);
      } else {
        out[key] = value;
      }
    }
    return out;
  };
  return { shape: shape(schema) as JsonSchema, renamed: renameProperties };
}

/** Maps a path in a shape back to the same place in the schema it came from. */
export function pathFromShape(schema: JsonSchema, shapePath: readonly string[], renamed: boolean): string[] {
  if (!renamed) return [...shapePath];
  const out: string[] = [];
  let node: unknown = schema;
  for (let i = 0; i < shapePath.length; i++) {
    let segment = shapePath[i]!;
    const parentKey = shapePath[i - 1];
    if (parentKey === 'properties' && isRecord(node) && /^p\d+$/.test(segment)) {
      const name = Object.keys(node)[Number(segment.slice(1))];
      if (name !== undefined) segment = name;
    }
    out.push(segment);
    node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return out;
}


/** Keywords that make a schema's parts depend on each other (references, identifiers). */
const LINKED = /"\$(ref|id|anchor|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor)"/;

/** One part of a decomposed schema: where it sits and the node with its children cut out. */
export interface SchemaPiece {
  path: string[];
  node: JsonSchema;
}

/**
 * Splits a schema at its `properties` and `items`: each piece is one node whose property and
 * item schemas are replaced by `true`. ajv's strict checks are local to a node (unknown keywords
 * and formats, keywords that do not fit the node's type, tuples), and a property's value is a new
 * data instance whose type context does not come from its parent, so checking each piece alone
 * gives the same complaints; and small pieces repeat across tools far more than whole schemas do.
 * Schemas with references or identifiers are not split (a piece could not resolve them).
 */
export function decomposeSchema(schema: JsonSchema): SchemaPiece[] | undefined {
  if (LINKED.test(JSON.stringify(schema))) return undefined;
  const pieces: SchemaPiece[] = [];
  const visit = (node: JsonSchema, path: string[]) => {
    const cut: JsonSchema = { ...node };
    if (isRecord(node.properties)) {
      cut.properties = Object.fromEntries(Object.keys(node.properties).map((name) => [name, true]));
      for (const [name, child] of Object.entries(node.properties)) if (isRecord(child)) visit(child, [...path, 'properties', name]);
    }
    if (isRecord(node.items)) {
      cut.items = true;
      visit(node.items, [...path, 'items']);
    }
    pieces.push({ path, node: cut });
  };
  visit(schema, []);
  return pieces;
}
