import type { JsonSchema } from './types.js';

/** Keywords whose value is one subschema. */
export const SINGLE_SUBSCHEMA_KEYWORDS = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'additionalItems', 'contentSchema'] as const;
/** Keywords whose value is a list of subschemas. */
export const LIST_SUBSCHEMA_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'] as const;
/** Keywords whose value maps names to subschemas. */
export const MAP_SUBSCHEMA_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;

export interface SchemaVisit {
  node: JsonSchema;
  /** Path from the schema root. */
  path: string[];
  /** Object nesting depth (the root object is 1). */
  depth: number;
}

/**
 * Visits every subschema of `root` (depth first, in document order). Shared structure is
 * visited per occurrence, but the walk is bounded by the document's own size because YAML
 * aliases are already expanded by then; a node limit guards against pathological inputs.
 */
export function walkSchema(root: unknown, visit: (v: SchemaVisit) => void, limit = 100_000): void {
  let budget = limit;
  const step = (node: unknown, path: string[], depth: number): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || budget-- <= 0) return;
    const schema = node as JsonSchema;
    const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || 'properties' in schema;
    const here = isObject ? depth + 1 : depth;
    visit({ node: schema, path, depth: here });
    for (const key of SINGLE_SUBSCHEMA_KEYWORDS) if (key in schema) step(schema[key], [...path, key], here);
    for (const key of LIST_SUBSCHEMA_KEYWORDS) {
      const list = schema[key];
      if (Array.isArray(list)) list.forEach((s, i) => step(s, [...path, key, String(i)], here));
    }
    if (Array.isArray(schema.items)) schema.items.forEach((s, i) => step(s, [...path, 'items', String(i)], here));
    for (const key of MAP_SUBSCHEMA_KEYWORDS) {
      const map = schema[key];
      if (map && typeof map === 'object' && !Array.isArray(map)) {
        for (const [name, s] of Object.entries(map)) step(s, [...path, key, name], key === '$defs' || key === 'definitions' ? 0 : here);
      }
    }
  };
  step(root, [], 0);
}

/** Resolves a local `$ref` ("#", "#/$defs/x") against the root; undefined when it points nowhere. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * A path from a schema's root, extended one key at a time without copying; turned into an array
 * only when a finding is reported. Converters walk every node, and most paths are never reported.
 */
export type SchemaPath = { readonly up: SchemaPath; readonly key: string } | null;

export function pathTo(path: SchemaPath, ...keys: string[]): SchemaPath {
  let out = path;
  for (const key of keys) out = { up: out, key };
  return out;
}

export function pathArray(path: SchemaPath): string[] {
  const out: string[] = [];
  for (let p = path; p; p = p.up) out.push(p.key);
  return out.reverse();
}

/** What a schema's references reach from its root (its `$defs` and `definitions` are not roots). */
export interface SchemaReferences {
  /** Definitions reached, as `$defs/name` or `definitions/name`. */
  used: Set<string>;
  /** The first reference that leads back into itself, and where it is. */
  recursive?: { ref: string; path: string[] };
  /** The first reference outside the document. */
  external?: { ref: string; path: string[] };
}

/** Follows every `$ref` from the root, transitively: which definitions are in use, and recursion. */
export function schemaReferences(schema: JsonSchema): SchemaReferences {
  const out: SchemaReferences = { used: new Set() };
  const visit = (node: Record<string, unknown>, path: SchemaPath, stack: readonly string[]): void => {
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (!ref.startsWith('#')) out.external ??= { ref, path: pathArray(pathTo(path, '$ref')) };
      else if (stack.includes(ref)) out.recursive ??= { ref, path: pathArray(pathTo(path, '$ref')) };
      else {
        const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
        if (match) out.used.add(`${match[1]}/${decodeURIComponent(match[2]!).replace(/~1/g, '/').replace(/~0/g, '~')}`);
        const target = resolveLocalRef(schema, ref);
        // Inside the target, paths are the target's own (where a finding is in the file).
        const targetPath = pathTo(null, ...(ref === '#' ? [] : ref.slice(2).split('/').map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))));
        if (target !== null && typeof target === 'object' && !Array.isArray(target)) visit(target as Record<string, unknown>, targetPath, [...stack, ref]);
      }
    }
    for (const key in node) {
      if (key === '$defs' || key === 'definitions' || !Object.hasOwn(node, key)) continue;
      const value = node[key];
      if (Array.isArray(value)) value.forEach((v, i) => v !== null && typeof v === 'object' && !Array.isArray(v) && visit(v as Record<string, unknown>, pathTo(path, key, String(i)), stack));
      else if (value !== null && typeof value === 'object') visit(value as Record<string, unknown>, pathTo(path, key), stack);
    }
  };
  visit(schema, null, []);
  return out;
}
