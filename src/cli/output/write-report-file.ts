import { chmodSync, closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { describeFsError } from '../../shared/fs-errors.js';
import { prepareOutputFile } from '../../shared/output-file.js';

/**
 * Every file `toolman test` writes (JUnit, HTML, baselines, histories, merged results, a suite from
 * `test init`) goes through these two functions, so they can move to the one symlink-refusing
 * writer of src/shared/output-file.ts (`writePrivateFile`, `appendToOutputFile`, branch `harden`)
 * in one place. Until then: files 0600, folders toolman makes 0700, never written through a
 * symbolic link (the file itself, one inside the working folder, or one another user owns).
 */
export function writeReportFile(file: string, text: string, options: { label: string; mode: 'new' | 'replace'; cwd: string }): void {
  const path = resolve(options.cwd, file);
  ready(path, options.label, options.mode, options.cwd);
  write(path, text, options.label, constants.O_WRONLY | constants.O_TRUNC);
}

/** Adds to a file (an append-only history), made ready as above the first time. */
export function appendReportFile(file: string, text: string, options: { label: string; cwd: string }): void {
  const path = resolve(options.cwd, file);
  ready(path, options.label, 'append', options.cwd);
  write(path, text, options.label, constants.O_WRONLY | constants.O_APPEND);
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

function ready(path: string, label: string, mode: 'new' | 'replace' | 'append', cwd: string): void {
  const fail = (why: string, hint?: string): never => {
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `${label} ${path}: ${why}`, hint ? { hint } : {});
  };
  const link = linkOnPath(path, resolve(cwd));
  if (link) fail(`${link}; toolman does not write through symbolic links`, 'name a path without links, or resolve the link yourself (realpath) if you mean its target');
  // Folders toolman makes are its own: 0700, one level at a time (prepareOutputFile would make them with the umask's mode).
  const missing: string[] = [];
  for (let at = dirname(path); ; at = dirname(at)) {
    try {
      lstatSync(at);
      break;
    } catch {
      missing.unshift(at);
    }
    if (dirname(at) === at) break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      fail(`cannot make the folder ${folder} (${describeFsError(error)})`);
    }
  }
  let existed = true;
  try {
    lstatSync(path);
  } catch {
    existed = false;
  }
  prepareOutputFile(path, label, mode);
  // A file toolman made, or emptied for new content, is 0600; one it appends to stays as the user set it.
  if (mode !== 'append' || !existed) chmodSync(path, 0o600);
}

function write(path: string, text: string, label: string, flags: number): void {
  let fd: number;
  try {
    fd = openSync(path, flags | NO_FOLLOW, 0o600);
  } catch (error) {
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `${label} ${path}: cannot write it (${describeFsError(error)})`);
  }
  try {
    if ((flags & constants.O_APPEND) === 0) fchmodSync(fd, 0o600);
    const bytes = Buffer.from(text, 'utf8');
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}

/** Why a link on the way forbids writing at `path`, or undefined (see writeReportFile). */
function linkOnPath(path: string, cwd: string): string | undefined {
  const me = process.getuid?.();
  let at = path.startsWith(sep) ? sep : '';
  for (const part of path.split(sep).filter(Boolean)) {
    at = at === sep || at === '' ? `${at}${part}` : `${at}${sep}${part}`;
    let stats;
    try {
      stats = lstatSync(at);
    } catch {
      return undefined;
    }
    if (!stats.isSymbolicLink()) continue;
    if (at === path) return `${at} is a symbolic link`;
    if (me !== undefined && stats.uid !== me && stats.uid !== 0) return `${at} is a symbolic link owned by another user`;
    const rel = relative(cwd, at);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return `${at} is a symbolic link inside the working folder`;
  }
  return undefined;
}
