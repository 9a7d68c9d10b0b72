import { pathTo, type SchemaPath } from '../catalog/json-schema.js';
import { isRecord } from '../shared/is-record.js';
import { setOwn } from '../shared/own.js';
import { restate } from './restate.js';
import { IMPLICIT_OPEN_MAP_REASON, isImplicitOpenMap, mergeAllOf, tupleAsArray } from './schema-rewrites.js';

export type Node = Record<string, unknown>;

/** What one provider's strict mode takes, for the one walk both strict converters share. */
export interface StrictRules {
  /** Why an `allOf` whose parts do not merge into one schema cannot be sent; undefined: left as it is. */
  unmergedAllOf(node: Node): string | undefined;
  /**
   * The keywords this node loses and restates in its description, in the order they are read.
   * `oneOf` among them becomes `anyOf` where it stands (not restated); a `oneOf` left out of the
   * list becomes `anyOf` after the description is written.
   */
  restated(node: Node): readonly string[];
  /** Restated keywords that are annotations, not constraints: not listed in `restated` of the result. */
  annotations?: ReadonlySet<string>;
  /** Formats strict mode keeps; others are restated. */
  formats: ReadonlySet<string>;
  /** Checks and counts on a node once rewritten, before its children: a failure's reason, at `path`. */
  visit?(node: Node, path: SchemaPath, at: { depth: number; property: boolean }): { reason: string; path: SchemaPath } | undefined;
  /** Every property required (optional ones then nullable through `property`). */
  requireAll: boolean;
  /** A property's converted schema (any value the author wrote), told whether the author made it required; `change` notes what it did. */
  property?(name: string, child: unknown, required: boolean, change: (what: string) => void): unknown;
  /** A definition kept (counted against limits). */
  definition?(name: string): void;
  /** Which unions' branches are walked besides `items` and properties. */
  lists: readonly ('anyOf' | 'allOf')[];
  /** Definitions below the root: walked too (their own names), or left as they are. */
  nestedDefinitions: 'walk' | 'leave';
}

export interface StrictWalk {
  schema: Node;
  /** What was changed, each once, in the order first done. */
  changes: string[];
  /** Keywords removed and restated, with where they were. */
  restated: { keyword: string; path: SchemaPath }[];
  failure?: { reason: string; path: SchemaPath };
}

/**
 * The rewrite both providers' strict modes need, done once: `allOf` parts merged into one schema
 * where that changes nothing; tuples as arrays of their item types (the order in words); the
 * keywords strict mode cannot express removed and restated in the description; every object
 * closed with `additionalProperties: false` (an open one refused: strict mode needs every key
 * declared); definitions no reference reaches dropped. What differs between providers (which
 * keywords, limits, nullable optionals, what is counted) comes in as `rules`. The first failure
 * wins; the walk goes on only to finish the value.
 */
export function strictSchemaWalk(schema: Node, used: ReadonlySet<string>, rules: StrictRules): StrictWalk {
  const changes = new Set<string>();
  const restatedKeywords: StrictWalk['restated'] = [];
  let failure: StrictWalk['failure'];
  const fail = (reason: string, path: SchemaPath) => void (failure ??= { reason, path });

  const convert = (input: Node, depth: number, path: SchemaPath, property: boolean): Node => {
    let node: Node = { ...input };
    const restated: string[] = [];
    // Parts that merge into one schema are merged: closed one by one, object parts would each
    // refuse the others' keys, and only {} would satisfy the whole.
    if (Array.isArray(node.allOf)) {
      const merged = mergeAllOf(node);
      if (merged) {
        node = merged;
        changes.add('allOf merged into one schema');
      } else {
        const reason = rules.unmergedAllOf(node);
        if (reason) fail(reason, pathTo(path, 'allOf'));
      }
    }
    const tuple = tupleAsArray(node);
    if (tuple) {
      node = tuple.node;
      if (tuple.words) {
        restated.push(tuple.words);
        restatedKeywords.push({ keyword: 'prefixItems', path: pathTo(path, 'prefixItems') });
        changes.add('tuples sent as arrays of their item types (the order restated in the description)');
      }
    }
    for (const keyword of rules.restated(node)) {
      if (keyword === 'oneOf' && Array.isArray(node.oneOf)) {
        toAnyOf(node, changes);
        continue;
      }
      restated.push(restate(keyword, node[keyword]));
      if (!rules.annotations?.has(keyword)) restatedKeywords.push({ keyword, path: pathTo(path, keyword) });
      delete node[keyword];
      changes.add(`removed ${keyword} (restated in the description)`);
    }
    if (typeof node.format === 'string' && !rules.formats.has(node.format)) {
      restated.push(restate('format', node.format));
      delete node.format;
      changes.add('removed unsupported formats (restated in the description)');
    }
    if (restated.length) node.description = [node.description, `(${restated.join('; ')})`].filter(Boolean).join(' ');
    if (Array.isArray(node.oneOf)) toAnyOf(node, changes);

    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isRecord(node.properties);
    const here = isObject ? depth + 1 : depth;
    const problem = rules.visit?.(node, path, { depth: here, property });
    if (problem) fail(problem.reason, problem.path);
    if (isObject) {
      const ap = node.additionalProperties;
      if (ap === true || isRecord(ap)) fail('an object allows arbitrary keys (additionalProperties); strict mode needs every key declared', pathTo(path, 'additionalProperties'));
      // The root without properties is a tool without parameters: closed, it is still what the tool takes.
      if (path !== null && isImplicitOpenMap(node)) fail(IMPLICIT_OPEN_MAP_REASON, path);
      if (ap !== false) changes.add('objects closed with additionalProperties: false');
      node.additionalProperties = false;
      if (isRecord(node.properties) || rules.requireAll) {
        const properties = isRecord(node.properties) ? node.properties : {};
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        const converted: Node = {};
        for (const [name, sub] of Object.entries(properties)) {
          const child = isRecord(sub) ? convert(sub, here, pathTo(path, 'properties', name), true) : rules.requireAll ? {} : sub;
          setOwn<unknown>(converted, name, rules.property ? rules.property(name, child, required.has(name), (what) => changes.add(what)) : child);
        }
        node.properties = converted;
        if (rules.requireAll) node.required = Object.keys(converted);
      }
    }
    if (isRecord(node.items)) node.items = convert(node.items, here, pathTo(path, 'items'), false);
    for (const list of rules.lists) {
      if (Array.isArray(node[list])) node[list] = (node[list] as unknown[]).map((s, i) => (isRecord(s) ? convert(s, here, pathTo(path, list, String(i)), false) : s));
    }
    for (const defs of ['$defs', 'definitions'] as const) {
      if (!isRecord(node[defs]) || (path !== null && rules.nestedDefinitions === 'leave')) continue;
      const all = Object.entries(node[defs] as Node);
      // Only the root's definitions are what "#/$defs/name" points at.
      const kept = path === null ? all.filter(([name]) => used.has(`${defs}/${name}`)) : all;
      if (kept.length < all.length) changes.add(`unused ${defs} dropped`);
      if (kept.length === 0) {
        delete node[defs];
        continue;
      }
      node[defs] = Object.fromEntries(
        kept.map(([name, s]) => {
          rules.definition?.(name);
          return [name, isRecord(s) ? convert(s, 0, pathTo(path, defs, name), false) : s];
        }),
      );
    }
    return node;
  };

  const converted = convert(schema, 0, null, false);
  return { schema: converted, changes: [...changes], restated: restatedKeywords, ...(failure ? { failure } : {}) };
}

function toAnyOf(node: Node, changes: Set<string>): void {
  node.anyOf = node.oneOf;
  delete node.oneOf;
  changes.add('oneOf became anyOf');
}
