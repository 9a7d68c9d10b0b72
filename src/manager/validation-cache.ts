import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { CacheStore } from '../shared/cache-store.js';
import { toolmanVersion } from '../shared/package-root.js';

/** The largest parsed file or schema-check result read back (the 10,000-tool catalog parses to about 12 MB of JSON). */
const MAX_CONTENT_BYTES = 256 << 20;

/**
 * Catalogs known to validate with no errors, remembered by content, as linters cache clean files:
 * commands that refuse a catalog with errors (`call`, `format`, `budget`, the loop) would otherwise
 * run every check on every start. A catalog's key is the hash of its files' paths and text and of
 * this toolman build; only "no errors" is stored (an entry with no payload), so the cache can make
 * a command faster, never different. Lives in TOOLMAN_CACHE_DIR, else $XDG_CACHE_HOME/toolman, else
 * $HOME/.cache/toolman, from the environment the command was given; `TOOLMAN_CACHE_DIR=off` (or
 * none of these) turns it off, and a folder that cannot be written or trusted is simply not used
 * (`CacheStore`: private folders and files, entries authenticated with the user's cache key).
 */
export class ValidationCache {
  private constructor(private readonly store: CacheStore) {}

  static from(env: Record<string, string | undefined>): ValidationCache | undefined {
    const store = CacheStore.open(env, 'validated');
    return store ? new ValidationCache(store) : undefined;
  }

  /** `extra`: what else the verdict depends on (the MCP servers' tool lists). */
  knownValid(loaded: LoadedCatalog, extra?: string): boolean {
    return this.store.read(key(loaded, extra), 0) === '';
  }

  rememberValid(loaded: LoadedCatalog, extra?: string): void {
    this.store.write(key(loaded, extra), '');
  }
}

/**
 * Parsed catalog files in the cache, next to the verdicts: one entry per file text (and toolman
 * build), so what is read back is exactly what this build parsed from that text. A missing,
 * unreadable, damaged or unauthenticated entry is a miss: an entry someone else wrote can never
 * change a catalog (its handlers, its tools) from what its text says.
 */
export function parseCacheFrom(env: Record<string, string | undefined>): ParseCache | undefined {
  return contentStore(env, 'parsed');
}

/**
 * The results of the checks that compile schemas (ajv's strict-mode complaints, examples
 * validated), keyed by the schemas and examples themselves: a pure function of them and the
 * build, and the slowest part of `validate` on an unchanged catalog.
 */
export function schemaCheckCacheFrom(env: Record<string, string | undefined>): ParseCache | undefined {
  return contentStore(env, 'schema-checks');
}

/**
 * What the checks found on a catalog (`runChecks`), with their positions, keyed by its files'
 * paths and text, the loader's findings and which module files exist: a catalog with warnings is
 * neither checked again nor parsed again to place them on every `validate` or `format`.
 */
export function findingsCacheFrom(env: Record<string, string | undefined>): ParseCache | undefined {
  return contentStore(env, 'findings');
}

/**
 * What tool definitions cost (`countDefinitions`), keyed by the payload counted, provider and
 * model: a pure function of them and the build, and the tokenizer `budget` and `diff` would
 * otherwise load on every run.
 */
export function tokenCountCacheFrom(env: Record<string, string | undefined>): ParseCache | undefined {
  return contentStore(env, 'token-counts');
}

/** JSON values in `folder` of the cache, one entry per key text and toolman build. */
function contentStore(env: Record<string, string | undefined>, folder: string): ParseCache | undefined {
  const store = CacheStore.open(env, folder);
  if (!store) return undefined;
  const name = (text: string) => `${createHash('sha256').update(buildId()).update('\u0000').update(text).digest('hex')}.json`;
  return {
    get(text) {
      const payload = store.read(name(text), MAX_CONTENT_BYTES);
      if (payload === undefined) return undefined;
      try {
        return JSON.parse(payload) as unknown;
      } catch {
        return undefined;
      }
    },
    set(text, data) {
      store.write(name(text), JSON.stringify(data));
    },
  };
}

/**
 * This build of toolman: a change to any check must not reuse an older verdict. The version names a
 * release; the build file's time and size tell development builds apart, and the version still
 * tells releases apart where an install gives every file the same time (a Nix store, some image
 * layers).
 */
let build: string | undefined;
function buildId(): string {
  if (build === undefined) {
    try {
      const stats = statSync(fileURLToPath(import.meta.url));
      build = `${toolmanVersion()} ${stats.mtimeMs} ${stats.size}`;
    } catch {
      build = `${toolmanVersion()} unknown`;
    }
  }
  return build;
}

function key(loaded: LoadedCatalog, extra?: string): string {
  const hash = createHash('sha256').update(buildId());
  if (extra !== undefined) hash.update('\u0000').update(extra);
  for (const file of [...loaded.sources.values()].sort((a, b) => a.absolutePath.localeCompare(b.absolutePath))) {
    hash.update('\u0000').update(file.absolutePath).update('\u0000');
    file.hashInto(hash);
  }
  return hash.digest('hex');
}
