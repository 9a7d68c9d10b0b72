import { isRecord } from '../shared/is-record.js';

/** A hostile server could answer `tools/list` with a cursor forever: this many pages, then stop. */
export const MAX_TOOL_PAGES = 100;
/** ...and this many tools in all. */
export const MAX_TOOLS_PER_SERVER = 5_000;

/** A 2026-07-28 list's cache hints (`ttlMs`, `cacheScope`). */
export interface ListHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** A server's whole tool list as read page by page. */
export interface ToolListPages {
  /** Each name once (the first entry of a name wins), at most MAX_TOOLS_PER_SERVER. */
  tools: Record<string, unknown>[];
  /** Why the list was cut short (too many tools or pages, a repeated page, names listed twice), if it was. */
  cut?: string;
  /** The hints of a 2026-07-28 list: as fresh as its stalest page; undefined from a 2025 server. */
  hints?: ListHints;
}

/** One `tools/list` page as the server answered it (already read as any object), or a failure thrown. */
export type ReadPage = (cursor: string | undefined) => Promise<Record<string, unknown>>;

/** Thrown when a page holds no `tools` array: the connection says it in its own words. */
export class NoToolsList extends Error {}

/**
 * Follows `nextCursor` within bounds a hostile server cannot stretch: MAX_TOOL_PAGES pages,
 * MAX_TOOLS_PER_SERVER tools, no cursor twice. What was cut, and why, is said in `cut`, never
 * dropped silently. Entries that are not objects are left out here; each remaining one is
 * still untrusted (the caller checks and redacts them).
 */
export async function readToolListPages(readPage: ReadPage, modern: boolean): Promise<ToolListPages> {
  const tools: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let cut: string | undefined;
  let hints: ListHints | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await readPage(cursor);
    if (!Array.isArray(result.tools)) throw new NoToolsList('answered tools/list without a tools list');
    // Each page has its own hints; the list is as fresh as its stalest page (2026-07-28, caching.mdx).
    if (modern && typeof result.ttlMs === 'number') {
      const scope = result.cacheScope === 'public' ? 'public' : 'private';
      hints = { ttlMs: Math.min(result.ttlMs, hints?.ttlMs ?? Infinity), cacheScope: hints?.cacheScope === 'private' ? 'private' : scope };
    }
    // One by one: a page is a message of any length, and spreading a few hundred thousand entries
    // into push() overflows the stack (the server was then 'unavailable', not cut with a notice).
    for (const entry of result.tools as unknown[]) if (isRecord(entry)) tools.push(entry);
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (cursor !== undefined && seen.has(cursor)) {
      cut = `its tool list repeats a page (cursor ${JSON.stringify(cursor.slice(0, 40))}); the tools after it are missing`;
      break;
    }
    if (tools.length >= MAX_TOOLS_PER_SERVER) {
      if (tools.length > MAX_TOOLS_PER_SERVER || cursor !== undefined) cut = `it offers more than ${MAX_TOOLS_PER_SERVER} tools; the first ${MAX_TOOLS_PER_SERVER} are used`;
      break;
    }
    if (cursor === undefined) break;
    if (page === MAX_TOOL_PAGES - 1) cut = `its tool list has more than ${MAX_TOOL_PAGES} pages; the tools after them are missing`;
    seen.add(cursor);
  }
  // A name listed twice (a repeated page, a careless server) is one tool: the first entry wins.
  const names = new Set<unknown>();
  const unique = tools.filter((tool) => typeof tool.name !== 'string' || (!names.has(tool.name) && names.add(tool.name)));
  if (unique.length < tools.length && !cut) cut = `it lists ${tools.length - unique.length} tool name(s) twice; the first of each is used`;
  return { tools: unique.slice(0, MAX_TOOLS_PER_SERVER), ...(cut ? { cut } : {}), ...(hints ? { hints } : {}) };
}
