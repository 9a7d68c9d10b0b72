import { closeSync, constants, fchmodSync, fstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ErrorCode, ToolmanError } from './errors.js';
import { describeFsError } from './fs-errors.js';
import { FILE_MODE, lstatOrUndefined, makePrivateFolders, NO_FOLLOW, symlinkOnPath, type WriteScope } from './write-path.js';

export type { WriteScope } from './write-path.js';

const { O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_WRONLY } = constants;

/**
 * Makes ready a file toolman writes as it goes (a transcript, a recording), or says clearly why
 * it cannot, naming the option: a folder in the way, a missing or read-only folder, a symbolic
 * link on the way (see `symlinkOnPath`: toolman never writes through one). `new` refuses a file
 * that exists (a recording is the user's work and is never overwritten unasked); `replace`
 * empties one (the user asked to record again); `append` adds to one. Files toolman creates are
 * 0600 and the folders it makes 0700; a file it empties becomes 0600 too.
 */
export function prepareOutputFile(file: string, label: string, mode: 'new' | 'replace' | 'append', scope: WriteScope = {}): void {
  const { fail, existing } = checkTarget(file, label, true, scope);
  if (existing && mode === 'new') fail('the file exists; toolman does not overwrite it', 'name a new file, or delete this one first');
  const flags = O_WRONLY | O_CREAT | NO_FOLLOW | (mode === 'new' ? O_EXCL : mode === 'replace' ? O_TRUNC : O_APPEND);
  let fd: number;
  try {
    fd = openSync(file, flags, FILE_MODE);
  } catch (error) {
    return fail(`cannot write it (${describeFsError(error)})`);
  }
  try {
    // A file emptied for new content gets the mode of a new one; one appended to stays as the user set it.
    if (mode === 'replace' && fstatSync(fd).isFile()) fchmodSync(fd, FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/**
 * Says now, before any work, why `file` could not be written later, and changes nothing: a link on
 * the way, a folder where the file should be, something other than a file there (a device, a
 * pipe), or (for `new`) a file that exists. Folders that do not exist yet are made when the file
 * is written. For outputs written at the end of a long run (JUnit, HTML, a baseline), so a path
 * toolman will refuse is refused before the runs are paid for. Throws a ToolmanError naming `label`.
 */
export function checkOutputPath(file: string, label: string, mode: 'new' | 'replace' | 'append', scope: WriteScope = {}): void {
  const { fail, existing } = checkTarget(file, label, false, scope);
  if (existing && !existing.isFile()) fail('it is not a regular file (a device, a pipe or a socket)', 'name a file');
  if (existing && mode === 'new') fail('the file exists; toolman does not overwrite it', 'name a new file, or delete this one first');
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    const found = lstatOrUndefined(folder);
    if (found) {
      if (!found.isDirectory()) fail(`${folder} is not a folder`);
      break;
    }
    if (dirname(folder) === folder) break;
  }
}

/** Appends to a file made ready by `prepareOutputFile`, never through a link put in its place meanwhile. */
export function appendToOutputFile(file: string, text: string): void {
  const fd = openSync(file, O_WRONLY | O_APPEND | O_CREAT | NO_FOLLOW, FILE_MODE);
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `data` to `fd` (one write may take less than it was given). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Writes a whole file at once (an imported catalog, a report, a cache entry): aside under a random
 * name, 0600 and never through a link, then renamed over the target, so a reader never sees half
 * a file and a link at the target is replaced, not followed. `new` refuses a file that exists.
 * Throws a ToolmanError naming `label`.
 */
export function writePrivateFile(file: string, data: string | Uint8Array, options: { label: string; mode: 'new' | 'replace'; scope?: WriteScope }): void {
  const { fail, existing } = checkTarget(file, options.label, true, options.scope);
  if (existing && options.mode === 'new') fail('the file exists; toolman does not overwrite it', 'name a new file, or delete this one first');
  // Renamed over, a device, a pipe or a socket would be replaced by a plain file: never.
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) fail('it is not a regular file (a device, a pipe or a socket); toolman writes whole files only', 'name a regular file');
  const aside = join(dirname(file), `.${basename(file)}.${randomUUID()}.tmp`);
  try {
    const fd = openSync(aside, O_WRONLY | O_CREAT | O_EXCL | NO_FOLLOW, FILE_MODE);
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, file);
  } catch (error) {
    rmSync(aside, { force: true });
    fail(`cannot write it (${describeFsError(error)})`);
  }
}

/**
 * What every writer checks first, naming `label` in the error it throws: no symbolic link on the
 * way, the file's folders made private (when `makeFolders`), and no folder where the file goes.
 * Returns the thrower (for the caller's own checks) and what is at the path now.
 */
function checkTarget(file: string, label: string, makeFolders: boolean, scope: WriteScope = {}): { fail: (why: string, hint?: string) => never; existing: ReturnType<typeof lstatOrUndefined> } {
  const fail = (why: string, hint?: string): never => {
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `${label} ${file}: ${why}`, hint ? { hint } : {});
  };
  const link = symlinkOnPath(file, scope);
  if (link) fail(`${link}; toolman does not write through symbolic links`, 'name a path without links, or resolve the link yourself (realpath) if you mean its target');
  if (makeFolders) {
    try {
      makePrivateFolders(dirname(file));
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
  }
  const existing = lstatOrUndefined(file);
  if (existing?.isDirectory()) fail('it is a folder', 'name a file in it');
  return { fail, existing };
}
