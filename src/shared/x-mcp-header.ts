import { isRecord } from './is-record.js';

/**
 * The `x-mcp-header` marks of a tool's input schema (MCP 2026-07-28: a parameter mirrored into an
 * `Mcp-Param-{Name}` header), checked once for both sides of toolman: the client leaves out a
 * server's tool whose marks break the rules (`mcp/tolerant-transport.ts`, TM0830), and `serve`
 * checks a call's headers against its arguments by the marks (`serve/param-headers.ts`).
 *
 * The rules (`server/tools.mdx` "x-mcp-header" and `basic/transports/streamable-http.mdx` "Custom
 * Headers from Tool Parameters", read 2026-11-24): the value is a non-empty RFC 9110 token,
 * unique ignoring case within the schema; only on a property of type integer, string or boolean
 * (`number` is not permitted); and only on a property reached from the root through `properties`
 * keys alone. Written here rather than taken from the SDK, whose scanner is not public.
 */

/** RFC 9110 §5.1 field-name token: `1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/**
 * Keywords whose subschemas are not reached through `properties` alone: a mark under any of them
 * breaks the "statically reachable" rule.
 */
const UNREACHABLE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions'];
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** Schemas nest at most this deep before the check gives up (and calls the marks invalid). */
const MAX_DEPTH = 64;

/** One mark: the property's path from the root, the header's name (after `Mcp-Param-`), the property's type. */
export interface HeaderMark {
  path: string[];
  header: string;
  type: 'string' | 'integer' | 'boolean';
}

/** The marks of a tool's input schema in schema order, or the first reason they break the rules. */
export function headerMarks(inputSchema: unknown): { ok: true; marks: HeaderMark[] } | { ok: false; reason: string } {
  const marks: HeaderMark[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean, depth: number): string | undefined => {
    if (!isRecord(node)) return undefined;
    if (depth > MAX_DEPTH) return `its schema nests more than ${MAX_DEPTH} levels deep`;
    const where = path.length ? `property ${JSON.stringify(path.join('.'))}` : 'the schema root';
    if (Object.hasOwn(node, 'x-mcp-header')) {
      const name = node['x-mcp-header'];
      if (!reachable || path.length === 0) return `${where}: x-mcp-header is allowed only on a property reached through "properties" alone`;
      if (typeof name !== 'string' || name === '') return `${where}: x-mcp-header is not a non-empty string`;
      if (!TOKEN.test(name)) return `${where}: x-mcp-header ${JSON.stringify(name.slice(0, 60))} is not an HTTP header token`;
      const type = node.type;
      if (typeof type !== 'string' || !HEADER_TYPES.has(type)) return `${where}: x-mcp-header on a parameter of type ${typeof type === 'string' ? type : JSON.stringify(type ?? null)} (only integer, string or boolean)`;
      const other = seen.get(name.toLowerCase());
      if (other !== undefined) return `x-mcp-header ${JSON.stringify(name)} differs only in case from ${JSON.stringify(other)}`;
      seen.set(name.toLowerCase(), name);
      marks.push({ path, header: name, type: type as HeaderMark['type'] });
    }
    if (isRecord(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const problem = visit(child, [...path, key], reachable, depth + 1);
        if (problem) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED_SUBSCHEMAS.has(keyword) && isRecord(sub) ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `(${keyword})`], false, depth + 1);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const reason = visit(inputSchema, [], true, 0);
  return reason === undefined ? { ok: true, marks } : { ok: false, reason };
}

/** Why a tool's marks break the rules, or undefined when they do not (or it has none). */
export function paramHeaderProblem(inputSchema: unknown): string | undefined {
  const checked = headerMarks(inputSchema);
  return checked.ok ? undefined : checked.reason;
}
