import { isRecord } from '../shared/is-record.js';

/** RFC 9110 §5.1 field-name token: `1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/**
 * Keywords whose subschemas are not reached through `properties` alone: a mark under any of them
 * breaks the "statically reachable" rule.
 */
const UNREACHABLE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions'];
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** Schemas nest at most this deep before the check gives up (and calls the tool invalid). */
const MAX_DEPTH = 64;

/**
 * Why a tool's `x-mcp-header` marks break MCP 2026-07-28's rules, or undefined when they do not
 * (or it has none). The rules (`server/tools.mdx` "x-mcp-header" and `basic/transports/
 * streamable-http.mdx` "Custom Headers from Tool Parameters", read 2026-11-24): the value is a
 * non-empty RFC 9110 token, unique ignoring case within the schema; only on a property of type
 * integer, string or boolean (`number` is not permitted); and only on a property reached from the
 * root through `properties` keys alone. An HTTP client MUST leave out a tool that breaks them.
 * Written here rather than taken from the SDK, whose scanner is not public.
 */
export function paramHeaderProblem(inputSchema: unknown): string | undefined {
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
  return visit(inputSchema, [], true, 0);
}
