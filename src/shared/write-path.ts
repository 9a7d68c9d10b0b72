import { constants, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { describeFsError } from './fs-errors.js';

/**
 * Where toolman may write, and how: every file it writes goes through here (output files, caches,
 * imported catalogs), so no writer can follow a link an attacker planted or leave what it wrote
 * readable by other users. Files are created 0600 and folders 0700; existing folders are left as
 * they are (they are the user's).
 */

/** Flags that keep an open from following a link at the last component (0 where the platform has none). */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
export const FILE_MODE = 0o600;
export const FOLDER_MODE = 0o700;

export interface WriteScope {
  /**
   * The folder the path was configured from (the cache folder, the data folder, a folder the user
   * named): links above it are the user's own business, from it down none is followed. Default:
   * the file's own folder.
   */
  root?: string;
  /**
   * The working folder. Inside it (a clone, an unpacked archive: content the user did not make) no
   * link is followed either, unless it is the home folder or a `root` was given. Default: the
   * process's working folder.
   */
  cwd?: string;
}

/**
 * Why toolman will not write at `path` because of a symbolic link on the way, or undefined. A link
 * is refused when it is the file itself, when it lies in `root` or below it, when it lies inside
 * the working folder (see WriteScope), or when another user owns it (as Linux's protected_symlinks
 * refuses in shared folders). Links the system made (owned by root, such as /tmp → /private/tmp on
 * macOS) are followed unless toolman itself runs as root.
 */
export function symlinkOnPath(path: string, scope: WriteScope = {}): string | undefined {
  const cwd = resolve(scope.cwd ?? process.cwd());
  const file = resolve(cwd, path);
  const root = resolve(cwd, scope.root ?? dirname(file));
  const insideCwdRule = scope.root === undefined && cwd !== resolve(homedir()) && cwd !== sep;
  const me = process.getuid?.();
  const parts = file.split(sep).filter(Boolean);
  let at = file.startsWith(sep) ? sep : '';
  for (const part of parts) {
    at = at === sep || at === '' ? `${at}${part}` : `${at}${sep}${part}`;
    let stats: Stats;
    try {
      stats = lstatSync(at);
    } catch {
      return undefined; // from here on nothing exists: toolman makes it
    }
    if (!stats.isSymbolicLink()) continue;
    const ownedByOther = me !== undefined && stats.uid !== me && stats.uid !== 0;
    const systemLink = me !== undefined && me !== 0 && stats.uid === 0;
    if (at === file) return `${at} is a symbolic link`;
    if (ownedByOther) return `${at} is a symbolic link owned by another user`;
    if (systemLink) continue;
    if (within(at, root)) return `${at} is a symbolic link`;
    if (insideCwdRule && within(at, cwd) && at !== cwd) return `${at} is a symbolic link inside the working folder`;
  }
  return undefined;
}

/** Whether `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Makes `folder` and the folders above it that are missing, 0700, one level at a time (Node's
 * recursive mkdir can spin forever on paths it cannot make, under /proc for one). Throws with a
 * message naming what is in the way.
 */
export function makePrivateFolders(folder: string): void {
  const missing: string[] = [];
  let at = resolve(folder);
  for (;;) {
    let stats: Stats | undefined;
    try {
      stats = lstatSync(at);
    } catch {
      stats = undefined;
    }
    if (stats) {
      if (stats.isSymbolicLink()) break; // judged by symlinkOnPath; following it is the caller's decision
      if (!stats.isDirectory()) throw new Error(`${at} is not a folder`);
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: FOLDER_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(`cannot make the folder ${dir} (${describeFsError(error)})`);
    }
  }
}

/**
 * Whether a folder or file other users could change (or read, with `privateRead`): not owned by
 * the user toolman runs as, or writable by group or others. Undefined when it is the user's own.
 */
export function notPrivate(stats: Stats, what: string, privateRead = false): string | undefined {
  const me = process.getuid?.();
  if (me !== undefined && stats.uid !== me) return `${what} belongs to another user (uid ${stats.uid})`;
  if (process.platform !== 'win32' && (stats.mode & (privateRead ? 0o077 : 0o022)) !== 0) return `${what} can be ${privateRead ? 'read or changed' : 'changed'} by other users (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

/** What is at `path` itself (a link is not followed), or undefined when nothing is. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
