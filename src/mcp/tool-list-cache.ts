import { createHash } from 'node:crypto';
import { CacheStore } from '../shared/cache-store.js';
import { isRecord } from '../shared/is-record.js';
import { launchKey, type ServerLaunch } from './server-launch.js';

/** A cached list older than this is shown as stale (with its age); it is still used. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** A cache file larger than this is ignored (and rewritten on the next listing). */
const MAX_ENTRY_BYTES = 32 << 20;

export interface CachedToolList {
  tools: unknown[];
  /** When the server listed them (ms since the epoch). */
  listedAt: number;
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
 */
export class ToolListCache {
  private constructor(private readonly store: CacheStore) {}

  static from(env: Record<string, string | undefined>): ToolListCache | undefined {
    const store = CacheStore.open(env, 'mcp-tools');
    return store ? new ToolListCache(store) : undefined;
  }

  get(launch: ServerLaunch): CachedToolList | undefined {
    const text = this.store.read(this.name(launch), MAX_ENTRY_BYTES);
    if (text === undefined) return undefined;
    try {
      const data = JSON.parse(text) as unknown;
      if (!isRecord(data) || !Array.isArray(data.tools) || typeof data.listed_at !== 'number') return undefined;
      return { tools: data.tools, listedAt: data.listed_at };
    } catch {
      return undefined;
    }
  }

  set(launch: ServerLaunch, tools: readonly unknown[], listedAt = Date.now()): void {
    this.store.write(this.name(launch), JSON.stringify({ listed_at: listedAt, tools }));
  }

  private name(launch: ServerLaunch): string {
    return `${createHash('sha256').update(JSON.stringify(launchKey(launch))).digest('hex')}.json`;
  }
}

/** "3 min", "5 h", "2 days": a cache entry's age for messages. */
export function describeAge(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}
