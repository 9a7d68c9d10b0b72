import { isRecord } from '../shared/is-record.js';
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
  for (const segment of refSegments(ref)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The keys a local `#/...` reference names, in order. */
export function refSegments(ref: string): string[] {
  return ref.slice(2).split('/').map(pointerSegment);
}

/**
 * One segment of a JSON Pointer in a URI fragment: percent-decoded (a malformed escape, which
 * `decodeURIComponent` would throw on, is kept as written), then `~1` and `~0` unescaped.
 */
function pointerSegment(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // a reference from an untrusted schema with a broken %-escape: it then points at nothing
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
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

/**
 * Bounds on a schema once its local `$ref`s are inlined (what Gemini's schema subset needs, since
 * it has no references). A few kilobytes where each definition refers to the next twice expand
 * 2^N times; past these bounds the tool is reported as unconvertible instead. The largest real
 * schema toolman is measured on (2,031 MCP and BFCL tools, test/real-data) inlines to 209 nodes
 * and 7.4 KB; the bounds are ~50 and ~70 times that, and 512 KiB is already far more text than a
 * model's tool definitions can usefully hold.
 */
export const MAX_INLINED_NODES = 10_000;
export const MAX_INLINED_BYTES = 512 * 1024;
/** How deep the walk over a schema and through its references goes before it stops (and says so). */
export const MAX_REFERENCE_DEPTH = 500;

/**
 * Counts what inlining produces, for a converter that inlines references: `add` for each node it
 * builds (with that node's own text); `over` says which bound was passed, once one is. Every
 * inliner charges the same budget, so none can be made to expand without end.
 */
export class InlineBudget {
  private nodes = 0;
  private bytes = 0;

  constructor(
    private readonly maxNodes = MAX_INLINED_NODES,
    private readonly maxBytes = MAX_INLINED_BYTES,
  ) {}

  /** Charges one node and `text` characters; false once a bound is passed. */
  add(text = 0): boolean {
    this.nodes++;
    this.bytes += text;
    return this.nodes <= this.maxNodes && this.bytes <= this.maxBytes;
  }

  /** Why the last `add` failed, in words for a finding. */
  get over(): string {
    return this.nodes > this.maxNodes ? `more than ${this.maxNodes} schema nodes` : `more than ${Math.round(this.maxBytes / 1024)} KiB of schema text`;
  }
}

/** What a schema's references reach from its root (its `$defs` and `definitions` are not roots). */
export interface SchemaReferences {
  /** Definitions reached, as `$defs/name` or `definitions/name`. */
  used: Set<string>;
  /** The first reference that leads back into itself, and where it is. */
  recursive?: { ref: string; path: string[] };
  /** The first reference outside the document. */
  external?: { ref: string; path: string[] };
  /** Where the walk stopped because the schema (with its references followed) nests deeper than MAX_REFERENCE_DEPTH. */
  tooDeep?: { path: string[] };
}

/**
 * Follows every `$ref` from the root, transitively: which definitions are in use, and recursion.
 * Each reference's target is walked once (a reference seen again, by another path, is known
 * already), so the time is linear in the schema's size even when definitions refer to each other
 * many times over; a reference met again while its own target is being walked is recursion.
 */
export function schemaReferences(schema: JsonSchema): SchemaReferences {
  const out: SchemaReferences = { used: new Set() };
  /** References whose targets are being walked (recursion when met again) or were walked. */
  const active = new Set<string>();
  const done = new Set<string>();
  const visit = (node: Record<string, unknown>, path: SchemaPath, depth: number): void => {
    if (depth > MAX_REFERENCE_DEPTH) {
      out.tooDeep ??= { path: pathArray(path) };
      return;
    }
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (!ref.startsWith('#')) out.external ??= { ref, path: pathArray(pathTo(path, '$ref')) };
      else if (active.has(ref)) out.recursive ??= { ref, path: pathArray(pathTo(path, '$ref')) };
      else if (!done.has(ref)) {
        const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
        if (match) out.used.add(`${match[1]}/${pointerSegment(match[2]!)}`);
        const target = resolveLocalRef(schema, ref);
        // Inside the target, paths are the target's own (where a finding is in the file).
        const targetPath = pathTo(null, ...(ref === '#' ? [] : refSegments(ref)));
        active.add(ref);
        if (target !== null && typeof target === 'object' && !Array.isArray(target)) visit(target as Record<string, unknown>, targetPath, depth + 1);
        active.delete(ref);
        done.add(ref);
      }
    }
    for (const key in node) {
      if (key === '$defs' || key === 'definitions' || !Object.hasOwn(node, key)) continue;
      const value = node[key];
      if (Array.isArray(value)) value.forEach((v, i) => v !== null && typeof v === 'object' && !Array.isArray(v) && visit(v as Record<string, unknown>, pathTo(path, key, String(i)), depth + 1));
      else if (value !== null && typeof value === 'object') visit(value as Record<string, unknown>, pathTo(path, key), depth + 1);
    }
  };
  visit(schema, null, 0);
  return out;
}

/**
 * How many schema nodes a validator may apply to one value at one place, at most: `anyOf`,
 * `oneOf`, `allOf`, `not`, `if`/`then`/`else`, `dependentSchemas` and `$ref` all apply their
 * schemas to the same value, so unions of references to the same definitions multiply (each of N
 * definitions a union of two references to the next: 2^N schemas for one value, which ajv tries
 * one by one). Past this, toolman does not compile the schema (`createAjv`).
 */
export const MAX_IN_PLACE_SCHEMAS = 10_000;

/** Keywords whose subschemas apply to the same value as the schema holding them (JSON Schema 2020-12 Core §10.2), with `dependentSchemas`. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_SINGLES = ['not', 'if', 'then', 'else'] as const;

/**
 * The most schema nodes applied to one value at one place anywhere in `root` (Infinity when
 * references loop without the value getting any deeper, which a validator would follow for ever),
 * and where. Each node is counted once (memoised), so this takes linear time whatever it finds.
 */
export function inPlaceSchemas(root: unknown): { count: number; path: string[] } {
  const memo = new Map<object, number>();
  const active = new Set<object>();
  const cost = (node: unknown, depth: number): number => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return 1;
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (active.has(node) || depth > MAX_REFERENCE_DEPTH) return Infinity;
    active.add(node);
    const schema = node as Record<string, unknown>;
    let total = 1;
    if (typeof schema.$ref === 'string') total += cost(resolveLocalRef(root, schema.$ref), depth + 1);
    for (const key of IN_PLACE_LISTS) if (Array.isArray(schema[key])) for (const child of schema[key] as unknown[]) total += cost(child, depth + 1);
    for (const key of IN_PLACE_SINGLES) if (key in schema) total += cost(schema[key], depth + 1);
    const dependent = schema.dependentSchemas;
    if (dependent !== null && typeof dependent === 'object' && !Array.isArray(dependent)) for (const child of Object.values(dependent)) total += cost(child, depth + 1);
    active.delete(node);
    memo.set(node, total);
    return total;
  };
  let most = { count: cost(root, 0), path: [] as string[] };
  walkSchema(root, ({ node, path }) => {
    const count = cost(node, 0);
    if (count > most.count) most = { count, path };
  });
  return most;
}

/** A schema and the subschemas that apply to the same value through in-place applicators, with the property names they define. */
export interface SchemaFamily {
  members: ReadonlySet<object>;
  names: ReadonlySet<string>;
}

/**
 * For each subschema, its family: the schema that starts it and every subschema applying to the
 * same value through in-place applicators, and the property names they define. A `required`
 * inside `anyOf`, `then` or `else` names properties the enclosing schema defines (`allOf:
 * [{anyOf: [{required: [phone]}, {required: [email]}]}]` is how JSON Schema says "one of these
 * two"), and a property an `if` tests is the one the enclosing schema describes: both are about
 * the family, not their own node.
 */
export function schemaFamilies(root: unknown): Map<object, SchemaFamily> {
  const families = new Map<object, SchemaFamily>();
  walkSchema(root, ({ node }) => {
    // The walk visits a schema before what it holds: a node not yet in a family starts one.
    if (families.has(node)) return;
    const names = new Set<string>();
    const members = new Set<object>();
    const pending: unknown[] = [node];
    while (pending.length > 0 && members.size < 10_000) {
      const member = pending.pop();
      if (!isRecord(member) || members.has(member)) continue;
      members.add(member);
      if (isRecord(member.properties)) for (const name of Object.keys(member.properties)) names.add(name);
      for (const key of IN_PLACE_LISTS) if (Array.isArray(member[key])) pending.push(...(member[key] as unknown[]));
      for (const key of IN_PLACE_SINGLES) if (key in member) pending.push(member[key]);
      if (isRecord(member.dependentSchemas)) pending.push(...Object.values(member.dependentSchemas));
    }
    const family = { members, names };
    for (const member of members) if (!families.has(member)) families.set(member, family);
  });
  return families;
}
