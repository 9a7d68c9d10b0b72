import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../shared/cache-dir.js';
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
 * only, so no secret is written; stored as one JSON file per
 * key under `mcp-tools/` in toolman's cache folder (TOOLMAN_CACHE_DIR, else
 * $XDG_CACHE_HOME/toolman, else ~/.cache/toolman; `off` turns it off). A broken or unreadable
 * entry is a miss; a folder that cannot be written is simply not used.
 */
export class ToolListCache {
  private constructor(private readonly dir: string) {}

  static from(env: Record<string, string | undefined>): ToolListCache | undefined {
    const base = cacheDir(env);
    return base ? new ToolListCache(join(base, 'mcp-tools')) : undefined;
  }

  get(launch: ServerLaunch): CachedToolList | undefined {
    try {
      const text = readFileSync(this.file(launch), 'utf8');
      if (text.length > MAX_ENTRY_BYTES) return undefined;
      const data = JSON.parse(text) as unknown;
      if (!isRecord(data) || !Array.isArray(data.tools) || typeof data.listed_at !== 'number') return undefined;
      return { tools: data.tools, listedAt: data.listed_at };
    } catch {
      return undefined;
    }
  }

  set(launch: ServerLaunch, tools: readonly unknown[], listedAt = Date.now()): void {
    try {
      mkdirSync(this.dir, { recursive: true });
      const file = this.file(launch);
      // Written aside and renamed, so a reader never sees half a file.
      const temporary = `${file}.${randomUUID()}.tmp`;
      writeFileSync(temporary, JSON.stringify({ listed_at: listedAt, tools }));
      renameSync(temporary, file);
    } catch {
      // a read-only home or a full disk: run without the cache
    }
  }

  private file(launch: ServerLaunch): string {
    return join(this.dir, `${createHash('sha256').update(JSON.stringify(launchKey(launch))).digest('hex')}.json`);
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
