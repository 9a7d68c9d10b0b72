import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from '../shared/is-record.js';
import type { HeaderMark } from '../shared/x-mcp-header.js';

/**
 * `Mcp-Param-{Name}` headers against a `tools/call` body, for tools whose parameters carry
 * `x-mcp-header` (spec 2026-07-28, `basic/transports/streamable-http.mdx` §Custom Headers from
 * Tool Parameters and §Server Validation; `server/tools.mdx` §x-mcp-header; read 2026-11-24).
 * The SDK checks these only for tools registered on its high-level `McpServer`, and toolman
 * serves the catalog's own JSON Schemas through the low-level `Server`, so the check is here.
 *
 * The marks and their rules are `shared/x-mcp-header.ts`'s (the client's check too). When the body has a
 * value there (not null), the header MUST be present and equal it: strings as they are, integers
 * compared as numbers, booleans as `true`/`false`; a value in the sentinel form
 * `=?base64?…?=` is decoded first and must be canonical Base64 of UTF-8. Otherwise the request
 * is refused with 400 and -32020 (`HeaderMismatch`). A tool whose marks break the rules is one
 * conforming clients drop from their lists; its headers are not checked.
 */

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Why a `tools/call`'s headers disagree with its arguments, or undefined when they agree. */
export function paramHeaderMismatch(marks: readonly HeaderMark[], args: unknown, headers: IncomingHttpHeaders): string | undefined {
  for (const mark of marks) {
    const value = valueAt(args, mark.path);
    if (value === undefined || value === null) continue;
    const name = `Mcp-Param-${mark.header}`;
    const raw = headers[name.toLowerCase()];
    const sent = Array.isArray(raw) ? raw.join(', ') : raw;
    const where = mark.path.join('.');
    if (sent === undefined) return `the arguments carry ${where} but the ${name} header is missing`;
    const decoded = decodeValue(sent.trim());
    if (decoded === undefined) return `the ${name} header holds characters a header value may not carry, or a broken =?base64?…?= value`;
    const equal = mark.type === 'integer' && typeof value === 'number' ? /^-?\d+(\.0+)?$/.test(decoded) && Number(decoded) === value : decoded === stringOf(value);
    if (!equal) return `the ${name} header does not match the value of ${where} in the arguments`;
  }
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A header value as the client meant it: visible ASCII as is, the sentinel form decoded; undefined when invalid. */
function decodeValue(value: string): string | undefined {
  if (!/^[\x20-\x7e\t]*$/.test(value)) return undefined;
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return value;
  if (!CANONICAL_BASE64.test(sentinel[1]!)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(sentinel[1]!, 'base64'));
  } catch {
    return undefined;
  }
}
