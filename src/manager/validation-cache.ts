import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { cacheDir } from '../shared/cache-dir.js';

/**
 * Catalogs known to validate with no errors, remembered by content, as linters cache clean files:
 * commands that refuse a catalog with errors (`call`, `format`, `budget`, the loop) would otherwise
 * run every check on every start. A catalog's key is the hash of its files' paths and text and of
 * this toolman build; only "no errors" is stored (an empty file), so the cache can make a command
 * faster, never different. Lives in TOOLMAN_CACHE_DIR, else $XDG_CACHE_HOME/toolman, else
 * $HOME/.cache/toolman, from the environment the command was given; `TOOLMAN_CACHE_DIR=off` (or
 * none of these) turns it off, and a folder that cannot be written is simply not used.
 */
export class ValidationCache {
  private constructor(private readonly dir: string) {}

  static from(env: Record<string, string | undefined>): ValidationCache | undefined {
    const base = cacheDir(env);
    return base ? new ValidationCache(join(base, 'validated')) : undefined;
  }

  /** `extra`: what else the verdict depends on (the MCP servers' tool lists). */
  knownValid(loaded: LoadedCatalog, extra?: string): boolean {
    try {
      return statSync(join(this.dir, key(loaded, extra))).isFile();
    } catch {
      return false;
    }
  }

  rememberValid(loaded: LoadedCatalog, extra?: string): void {
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(join(this.dir, key(loaded, extra)), '');
    } catch {
      // a read-only home or a full disk: run without the cache
    }
  }
}

/**
 * Parsed catalog files on disk, next to the verdicts: one JSON file per file text (and toolman
 * build), so what is read back is exactly what this build parsed from that text. A missing,
 * unreadable or damaged entry is a miss.
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

/** JSON values on disk in `folder` of the cache, one file per key text and toolman build. */
function contentStore(env: Record<string, string | undefined>, folder: string): ParseCache | undefined {
  const base = cacheDir(env);
  if (!base) return undefined;
  const dir = join(base, folder);
  const file = (text: string) => join(dir, `${createHash('sha256').update(buildId()).update('\u0000').update(text).digest('hex')}.json`);
  let made = false;
  return {
    get(text) {
      try {
        return JSON.parse(readFileSync(file(text), 'utf8')) as unknown;
      } catch {
        return undefined;
      }
    },
    set(text, data) {
      try {
        if (!made) mkdirSync(dir, { recursive: true });
        made = true;
        writeFileSync(file(text), JSON.stringify(data));
      } catch {
        // a read-only home or a full disk: run without the cache
      }
    },
  };
}

/** This build of toolman: a change to any check must not reuse an older verdict. */
let build: string | undefined;
function buildId(): string {
  if (build === undefined) {
    try {
      build = String(statSync(fileURLToPath(import.meta.url)).mtimeMs);
    } catch {
      build = 'unknown';
    }
  }
  return build;
}

function key(loaded: LoadedCatalog, extra?: string): string {
  const hash = createHash('sha256').update(buildId());
  if (extra !== undefined) hash.update('\u0000').update(extra);
  for (const file of [...loaded.sources.values()].sort((a, b) => a.absolutePath.localeCompare(b.absolutePath))) hash.update('\u0000').update(file.absolutePath).update('\u0000').update(file.text);
  return hash.digest('hex');
}
