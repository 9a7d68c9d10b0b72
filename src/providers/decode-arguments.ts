import { resolveLocalRef } from '../catalog/json-schema.js';
import type { JsonSchema, Tool } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { geminiName, geminiPropertyNames } from './gemini/gemini-facts.js';
import { isObjectWithoutProperties, mergeAllOf } from './schema-rewrites.js';
import type { FormatOptions, ProviderName } from './types.js';

/** What a model sent for one call, turned back into the catalog's terms, and what was changed. */
export interface DecodedArguments {
  arguments: unknown;
  changes: string[];
}

/**
 * Undoes, on what a model sends back, what the provider's formatter changed on the way out, so the
 * executor validates and runs the arguments the catalog describes:
 * - strict schemas (OpenAI `--strict`, where optional parameters were sent required and
 *   nullable): `null` for a parameter the catalog marks optional, and does not allow to be null,
 *   means "absent" and is removed;
 * - Gemini's schema subset: properties renamed for Gemini (`_1st_contact`) get their names back,
 *   enum values sent as text (`"2"`) their types back, and values of untyped parameters and of
 *   objects without properties of their own (open maps such as `{type: object}`; both sent as
 *   JSON text) are parsed.
 * Anything else is left as the model sent it, for argument validation to judge.
 */
export function decodeArguments(provider: ProviderName, options: FormatOptions, tool: Tool, args: unknown): DecodedArguments {
  const changes = new Set<string>();
  const gemini = provider === 'gemini' && !options.geminiJsonSchema;
  const strictNulls = options.strict === true && (provider === 'openai' || provider === 'openai-responses');
  if (!gemini && !strictNulls) return { arguments: args, changes: [] };
  const root = tool.parameters;

  const decode = (value: unknown, schema: unknown, depth: number): unknown => {
    if (depth > 64 || !isRecord(schema)) return value;
    const resolved = typeof schema.$ref === 'string' ? resolveLocalRef(root, schema.$ref) : schema;
    if (!isRecord(resolved)) return value;
    // Formatters merge allOf parts into one schema; the answer is read against the same.
    const node = mergeAllOf(resolved) ?? resolved;
    if (gemini && typeof value === 'string') {
      if (Array.isArray(node.enum) && !node.enum.includes(value)) {
        const typed = node.enum.find((v) => typeof v !== 'string' && JSON.stringify(v) === value);
        if (typed !== undefined) {
          changes.add(`enum value ${JSON.stringify(value)} sent as text became ${JSON.stringify(typed)}`);
          return typed;
        }
      }
      if (untyped(node)) {
        try {
          const parsed: unknown = JSON.parse(value);
          changes.add('a value sent as JSON text was parsed');
          return parsed;
        } catch {
          return value;
        }
      }
      // Objects without properties of their own were sent as JSON text (gemini-schema.ts).
      if (sentAsJsonText(node, depth) || (unionBranches(node)?.some((b) => sentAsJsonText(b, depth)) && !unionBranches(node)!.some(takesText))) {
        const parsed = parseObject(value);
        if (parsed !== undefined) {
          changes.add('an object sent as JSON text was parsed');
          return parsed;
        }
      }
    }
    if (isRecord(value)) {
      const properties = objectProperties(node);
      if (!properties) return value;
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      const back = gemini ? new Map([...geminiPropertyNames(Object.keys(properties))].map(([from, to]) => [to, from])) : undefined;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const name = back?.get(key) ?? key;
        if (name !== key) changes.add(`property ${JSON.stringify(key)} renamed back to ${JSON.stringify(name)}`);
        const item = value[key];
        const sub = Object.hasOwn(properties, name) ? properties[name] : undefined;
        if (item === null && strictNulls && sub !== undefined && !required.has(name) && !acceptsNull(sub, root)) {
          changes.add(`null for the optional parameter ${JSON.stringify(name)} means absent`);
          continue;
        }
        Object.defineProperty(out, name, { value: decode(item, sub, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    if (Array.isArray(value)) {
      // A tuple's items by position, the rest by `items`.
      const positions = Array.isArray(node.prefixItems) ? node.prefixItems : [];
      if (positions.length || isRecord(node.items)) return value.map((item, i) => decode(item, i < positions.length ? positions[i] : node.items, depth + 1));
    }
    return value;
  };
  const decoded = decode(args, root, 0);
  return { arguments: decoded, changes: [...changes] };
}

/** The name a provider's model calls a tool by (Gemini's names may differ from the catalog's). */
export function providerToolName(provider: ProviderName, tool: Tool): string {
  return provider === 'gemini' ? geminiName(tool.name) : tool.name;
}

/** The properties of an object schema, also when they sit in its only object branch of a union. */
function objectProperties(node: JsonSchema): Record<string, unknown> | undefined {
  if (isRecord(node.properties)) return node.properties;
  const branches = [node.anyOf, node.oneOf].find(Array.isArray) as unknown[] | undefined;
  const objects = branches?.filter((b) => isRecord(b) && isRecord(b.properties)) as JsonSchema[] | undefined;
  return objects?.length === 1 ? (objects[0]!.properties as Record<string, unknown>) : undefined;
}

/** An object schema Gemini was sent as JSON text: one without properties of its own, below the root. */
function sentAsJsonText(node: unknown, depth: number): boolean {
  return depth > 0 && isRecord(node) && isObjectWithoutProperties(node);
}

function unionBranches(node: JsonSchema): JsonSchema[] | undefined {
  const branches = [node.anyOf, node.oneOf].find(Array.isArray) as unknown[] | undefined;
  return branches?.filter(isRecord) as JsonSchema[] | undefined;
}

/** A branch a string may be meant for as it is (so JSON-looking text there is not parsed). */
function takesText(node: JsonSchema): boolean {
  return node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string')) || untyped(node);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A schema that says nothing about its value's type (Gemini was sent "any JSON value, written as JSON text"). */
function untyped(node: JsonSchema): boolean {
  return node.type === undefined && !isRecord(node.properties) && node.items === undefined && !Array.isArray(node.enum) && !('const' in node) && !Array.isArray(node.anyOf) && !Array.isArray(node.oneOf);
}

function acceptsNull(schema: unknown, root: JsonSchema, seen = new Set<unknown>()): boolean {
  const node = isRecord(schema) && typeof schema.$ref === 'string' ? resolveLocalRef(root, schema.$ref) : schema;
  if (!isRecord(node)) return true;
  // Each node is asked once: a recursive union would otherwise never end, and unions of the same
  // references would be asked again on every path.
  if (seen.has(node)) return false;
  seen.add(node);
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ('const' in node && node.const === null) return true;
  for (const list of ['anyOf', 'oneOf'] as const) if (Array.isArray(node[list]) && (node[list] as unknown[]).some((b) => acceptsNull(b, root, seen))) return true;
  // No type at all accepts null too.
  return node.type === undefined && !Array.isArray(node.enum) && !('const' in node) && !Array.isArray(node.anyOf) && !Array.isArray(node.oneOf);
}
