import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './cache-dir.js';
import { writePrivateFile } from './output-file.js';
import { lstatOrUndefined, makePrivateFolders, NO_FOLLOW, notPrivate, symlinkOnPath } from './write-path.js';

/** How an entry starts: the HMAC-SHA256 of its folder, name and payload, in hex, then a newline. */
const TAG_LENGTH = 64;
const NEWLINE = 0x0a;
const OPEN_READ = constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0);

/**
 * One folder of toolman's cache (parsed catalogs, verdicts, schema checks, MCP tool lists), on
 * which nothing is taken on trust. The cache root and the folder are made 0700, entries 0600
 * (written aside and renamed); a root or folder that is a link, belongs to another user or can be
 * changed by others is not used at all, and an entry is read only when it is a regular file of
 * this user that nobody else can change, not over its size limit, and carries a valid HMAC made
 * with this user's cache key. The key lives outside the cache (see `cacheKeyFile`), so a cache
 * folder restored or copied from elsewhere (a CI cache, a shared folder) is never believed: its
 * entries are misses and are written again. Every failure is a miss: a cache can make toolman
 * faster, never different.
 */
export class CacheStore {
  private made = false;
  private trust: boolean | undefined;

  private constructor(
    /** The folder's name in the cache, part of what each HMAC covers. */
    readonly folder: string,
    private readonly dir: string,
    private readonly root: string,
    private readonly key: Buffer,
  ) {}

  /** The store for `folder` under the environment's cache root; undefined when caching is off or the root cannot be trusted. */
  static open(env: Record<string, string | undefined>, folder: string): CacheStore | undefined {
    const root = cacheDir(env);
    if (!root) return undefined;
    const key = cacheKey(env);
    if (!key) return undefined;
    return new CacheStore(folder, join(root, folder), root, key);
  }

  /** The payload stored under `name`, when there is a trustworthy one at most `maxBytes` long. */
  read(name: string, maxBytes: number): string | undefined {
    return this.readBytes(name, maxBytes)?.toString('utf8');
  }

  /** The same for a binary payload (V8's compiled code: src/cli/code-cache.ts). */
  readBytes(name: string, maxBytes: number): Buffer | undefined {
    if (!this.trusted()) return undefined;
    const bytes = readPrivate(join(this.dir, name), maxBytes + TAG_LENGTH + 1);
    if (bytes === undefined || bytes.length < TAG_LENGTH + 1 || bytes[TAG_LENGTH] !== NEWLINE) return undefined;
    const payload = bytes.subarray(TAG_LENGTH + 1);
    const expected = Buffer.from(this.tag(name, payload), 'latin1');
    const given = bytes.subarray(0, TAG_LENGTH);
    return given.length === expected.length && timingSafeEqual(given, expected) ? payload : undefined;
  }

  /** Stores `payload` under `name`; a folder that cannot be written is simply not used. */
  write(name: string, payload: string): void {
    this.writeBytes(name, Buffer.from(payload, 'utf8'));
  }

  /** The same for a binary payload. */
  writeBytes(name: string, payload: Uint8Array): void {
    try {
      if (!this.made) {
        // Nothing is made through a link, or in a root someone else controls.
        if (symlinkOnPath(this.dir, { root: this.root }) || (lstatOrUndefined(this.root) !== undefined && !folderTrusted(this.root, this.root))) return;
        makePrivateFolders(this.dir);
        this.made = true;
        this.trust = undefined;
      }
      if (!this.trusted()) return;
      writePrivateFile(join(this.dir, name), Buffer.concat([Buffer.from(`${this.tag(name, payload)}\n`, 'latin1'), payload]), { label: 'cache entry', mode: 'replace', scope: { root: this.root } });
    } catch {
      // a read-only home, a full disk, a folder another user owns: run without the cache
    }
  }

  /**
   * Removes this folder's entries last written more than `maxAgeMs` ago, except `keep`: for a
   * folder whose entries are never read again once toolman changes (V8's code for a build's
   * chunks), so that upgrades do not pile up. Only in a folder that is the user's own; failures
   * are ignored.
   */
  prune(maxAgeMs: number, keep: ReadonlySet<string> = new Set()): void {
    try {
      if (lstatOrUndefined(this.dir) === undefined || !this.trusted()) return;
      const before = Date.now() - maxAgeMs;
      for (const name of readdirSync(this.dir)) {
        if (keep.has(name)) continue;
        const file = join(this.dir, name);
        const stats = lstatSync(file);
        if (stats.isFile() && stats.mtimeMs < before) unlinkSync(file);
      }
    } catch {
      // gone meanwhile, or not ours to change: an old entry left is only disk space
    }
  }

  /**
   * Whether the root and this folder are the user's own (checked once per process, and again once
   * the folder is made). Being toolman's own, they are made private if an older toolman left them
   * readable by others (0755), which also hides the older entries inside.
   */
  private trusted(): boolean {
    if (this.trust === undefined) {
      this.trust = folderTrusted(this.root, this.root) && (lstatOrUndefined(this.dir) === undefined || folderTrusted(this.dir, this.root));
      if (this.trust) for (const folder of [this.root, this.dir]) tighten(folder);
    }
    return this.trust;
  }

  private tag(name: string, payload: Uint8Array): string {
    return createHmac('sha256', this.key).update(this.folder).update('\u0000').update(name).update('\u0000').update(payload).digest('hex');
  }
}

/**
 * Where the key that authenticates cache entries is kept: toolman's state folder
 * ($XDG_STATE_HOME/toolman, else ~/.local/state/toolman), so it is not part of the cache.
 * Undefined when neither can be named (no HOME): then there is no key and no cache, since a key
 * kept in the cache root would travel with a cache folder copied or restored from elsewhere, and
 * make its entries (V8 code among them, src/cli/code-cache.ts) trusted.
 */
export function cacheKeyFile(env: Record<string, string | undefined>): { file: string; scopeRoot: string } | undefined {
  const state = env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'toolman') : env.HOME ? join(env.HOME, '.local', 'state', 'toolman') : undefined;
  return state ? { file: join(state, 'cache-key'), scopeRoot: state } : undefined;
}

const keys = new Map<string, Buffer | undefined>();

/** This user's cache key: read once per process, made (32 random bytes, 0600) when there is none. */
function cacheKey(env: Record<string, string | undefined>): Buffer | undefined {
  const where = cacheKeyFile(env);
  if (!where) return undefined;
  const { file, scopeRoot } = where;
  if (keys.has(file)) return keys.get(file);
  let key: Buffer | undefined;
  try {
    makePrivateFolders(scopeRoot);
    if (!folderTrusted(scopeRoot, scopeRoot)) throw new Error('untrusted key folder');
    if (lstatOrUndefined(file) === undefined) {
      try {
        writePrivateFile(file, `${randomBytes(32).toString('hex')}\n`, { label: 'cache key', mode: 'new', scope: { root: scopeRoot } });
      } catch {
        // another toolman made it at the same moment: read theirs
      }
    }
    const text = readPrivate(file, 200, true)?.toString('utf8');
    if (text !== undefined && /^[0-9a-f]{64}\n?$/.test(text)) key = Buffer.from(text.slice(0, 64), 'hex');
  } catch {
    key = undefined; // no trustworthy key: no cache
  }
  keys.set(file, key);
  return key;
}

/** Whether `dir` is a real folder (not a link) of this user that nobody else can change, reached without links below `root`. */
function folderTrusted(dir: string, root: string): boolean {
  if (symlinkOnPath(dir, { root })) return false;
  let stats: Stats;
  try {
    stats = lstatSync(dir);
  } catch {
    return false;
  }
  return stats.isDirectory() && notPrivate(stats, dir) === undefined;
}

/** A folder of toolman's own made 0700 when it is more open (nothing happens when it cannot be). */
function tighten(folder: string): void {
  try {
    if (process.platform !== 'win32' && (lstatSync(folder).mode & 0o077) !== 0) chmodSync(folder, 0o700);
  } catch {
    // gone, or not ours to change: the checks above already decided whether it is used
  }
}


/**
 * A file's bytes when it is a regular file (never through a link), this user's, not changeable by
 * others (with `secret`, not readable either), and at most `maxBytes` long; else undefined.
 */
function readPrivate(file: string, maxBytes: number, secret = false): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, OPEN_READ);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxBytes || notPrivate(stats, file, secret)) return undefined;
    const buffer = Buffer.allocUnsafe(stats.size);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

