import { createHash } from 'node:crypto';
import { ProtocolError, type Tool as McpTool } from '@modelcontextprotocol/server';
import type { Tool } from '../catalog/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { toMcpTool, type Era } from './mcp-tool.js';

/** Tools per `tools/list` page in the 2026-07-28 era: clients MUST NOT assume a page size (`server/utilities/pagination.mdx`). */
export const PAGE_SIZE = 100;

/** What `tools/list` answers, built once per set of tools: the entries in order, and a digest that names this exact list. */
export interface Listing {
  tools: readonly Tool[];
  mcp: readonly McpTool[];
  byName: ReadonlyMap<string, Tool>;
  /** sha256 of the canonical entries, cut to 16 hex digits: a cursor carries it, so a cursor into an older list is refused. */
  hash: string;
}

export function buildListing(tools: readonly Tool[], era: Era): Listing {
  const mcp = tools.map((t) => toMcpTool(t, era));
  const hash = createHash('sha256').update(canonicalJson(mcp)).digest('hex').slice(0, 16);
  return { tools, mcp, byName: new Map(tools.map((t) => [t.name, t])), hash };
}

/**
 * One page of the listing. The cursor is opaque to clients (spec 2026-07-28,
 * `server/utilities/pagination.mdx`): the offset and the list's digest, base64url. A cursor
 * toolman did not make, or made for a list that has changed since, is an invalid cursor: the
 * protocol error -32602, after which the client lists again from the start (`caching.mdx`
 * §Interaction with Pagination: "If a cursor becomes invalid ... re-fetch from the beginning").
 */
export function listPage(listing: Listing, cursor: string | undefined, pageSize = PAGE_SIZE): { tools: McpTool[]; nextCursor?: string } {
  const page = pageOf(listing.mcp, listing.hash, cursor, pageSize, 'tool list');
  return { tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

/** One page of any list whose exact content `digest` names (tools, prompts, resources); `what` names it in the error. */
export function pageOf<T>(entries: readonly T[], digest: string, cursor: string | undefined, pageSize: number, what: string): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const match = /^(\d{1,9})\.([0-9a-f]{16})$/.exec(decode(cursor) ?? '');
    if (!match || match[2] !== digest || Number(match[1]) >= entries.length || Number(match[1]) % pageSize !== 0) {
      throw new ProtocolError(-32602, `Invalid cursor: it was not made by this server for the current ${what}; list again without a cursor`);
    }
    offset = Number(match[1]);
  }
  const items = entries.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return { items, ...(next < entries.length ? { nextCursor: Buffer.from(`${next}.${digest}`).toString('base64url') } : {}) };
}

function decode(cursor: string): string | undefined {
  if (cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  return Buffer.from(cursor, 'base64url').toString('latin1');
}
