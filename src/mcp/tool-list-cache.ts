import { createHash } from 'node:crypto';
import { CacheStore } from '../shared/cache-store.js';
import { isRecord } from '../shared/is-record.js';
import type { EraVerdict } from './mcp-connection.js';
import { launchKey, type ServerLaunch } from './server-launch.js';

/**
 * How long a list from a server that gives no freshness hint (every 2025-era server) is fresh.
 * Past it, a cached list is shown as stale (with its age); it is still used.
 */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** A cache file larger than this is ignored (and rewritten on the next listing). */
const MAX_ENTRY_BYTES = 32 << 20;

export interface CachedToolList {
  tools: unknown[];
  /** When the server listed them (ms since the epoch). */
  listedAt: number;
  /** The era the server spoke, with its `server/discover` result (2026-07-28): the next start skips the probe for a 2025 server. */
  verdict?: EraVerdict;
  /** The server's freshness hints (2026-07-28 `ttlMs`, `cacheScope`); absent from a 2025 server. */
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
  /** What the server said it is. */
  serverInfo?: { name: string; version: string };
}

/**
 * Each server's last tool list, so commands that only look at tools (`validate`, `list`, `show`,
 * `search`, `budget`, `format`) run without starting servers. Keyed by what identifies a server
 * (command, arguments, working folder and the entry's environment, or URL and headers), by a hash
 * only, so no secret is written; stored as one entry per key under `mcp-tools/` in toolman's cache
 * folder (TOOLMAN_CACHE_DIR, else $XDG_CACHE_HOME/toolman, else ~/.cache/toolman; `off` turns it
 * off), through `CacheStore`: private, and authenticated with the user's cache key, so a list
 * another user or a restored cache put there is a miss. A list read back is as untrusted as one
 * from the server: it goes through the same cleaning and bounds. A broken entry is a miss; a
 * folder that cannot be written is simply not used.
 *
 * A list the server marked `cacheScope: private` (MCP 2026-07-28 `server/utilities/caching.mdx`:
 * "MUST NOT be shared across authorization contexts") is kept under the authorization it was
 * listed with (`auth`, a fingerprint of the login: never the token), and is a miss under another.
 */
export class ToolListCache {
  private constructor(private readonly store: CacheStore) {}

  static from(env: Record<string, string | undefined>): ToolListCache | undefined {
    const store = CacheStore.open(env, 'mcp-tools');
    return store ? new ToolListCache(store) : undefined;
  }

  get(launch: ServerLaunch, auth = ''): CachedToolList | undefined {
    const text = this.store.read(this.name(launch), MAX_ENTRY_BYTES);
    if (text === undefined) return undefined;
    try {
      const data = JSON.parse(text) as unknown;
      if (!isRecord(data) || !Array.isArray(data.tools) || typeof data.listed_at !== 'number') return undefined;
      const scope = data.cache_scope === 'public' || data.cache_scope === 'private' ? data.cache_scope : undefined;
      if (scope === 'private' && data.auth !== auth) return undefined;
      return {
        tools: data.tools,
        listedAt: data.listed_at,
        ...(verdictOf(data.era, data.protocol_version, data.discover) ?? {}),
        ...(typeof data.ttl_ms === 'number' && data.ttl_ms >= 0 ? { ttlMs: data.ttl_ms } : {}),
        ...(scope ? { cacheScope: scope } : {}),
        ...(isRecord(data.server_info) && typeof data.server_info.name === 'string' && typeof data.server_info.version === 'string' ? { serverInfo: { name: data.server_info.name, version: data.server_info.version } } : {}),
      };
    } catch {
      return undefined;
    }
  }

  set(launch: ServerLaunch, list: Omit<CachedToolList, 'listedAt'> & { listedAt?: number }, auth = ''): void {
    const verdict = list.verdict;
    this.store.write(
      this.name(launch),
      JSON.stringify({
        listed_at: list.listedAt ?? Date.now(),
        tools: list.tools,
        ...(verdict ? { era: verdict.era, ...(verdict.version ? { protocol_version: verdict.version } : {}), ...(verdict.era === 'modern' ? { discover: verdict.discover } : {}) } : {}),
        ...(list.ttlMs !== undefined ? { ttl_ms: list.ttlMs } : {}),
        ...(list.cacheScope ? { cache_scope: list.cacheScope, ...(list.cacheScope === 'private' ? { auth } : {}) } : {}),
        ...(list.serverInfo ? { server_info: list.serverInfo } : {}),
      }),
    );
  }

  private name(launch: ServerLaunch): string {
    return `${createHash('sha256').update(JSON.stringify(launchKey(launch))).digest('hex')}.json`;
  }
}

/**
 * How long a cached list stays fresh: the server's `ttlMs` (fresh while now < listed + ttlMs,
 * MCP 2026-07-28 caching.mdx; capped at a day, as the SDK caps it), or a day for a 2025 server,
 * which gives no hint (its "0" would make every cached list stale at once).
 */
export function freshFor(list: Pick<CachedToolList, 'ttlMs'>): number {
  return list.ttlMs === undefined ? STALE_AFTER_MS : Math.min(list.ttlMs, STALE_AFTER_MS);
}

function verdictOf(era: unknown, version: unknown, discover: unknown): { verdict: EraVerdict } | undefined {
  if (era === 'legacy') return { verdict: { era: 'legacy', ...(typeof version === 'string' ? { version } : {}) } };
  if (era === 'modern' && typeof version === 'string' && isRecord(discover)) return { verdict: { era: 'modern', version, discover } };
  return undefined;
}

/** "3 min", "5 h", "2 days": a cache entry's age for messages. */
export function describeAge(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}
