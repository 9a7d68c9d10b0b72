import type { Stats } from 'node:fs';

/** A file-system error in words a user understands ("no such file"), for messages that name the file. */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a part of the path is not a directory';
  if (code === 'ELOOP') return 'too many levels of symbolic links (a link that points back at itself?)';
  if (code === 'ENAMETOOLONG') return 'the path is too long';
  if (code === 'ENXIO') return 'no device or reader at the other end';
  return error instanceof Error ? error.message : String(error);
}

/** What a file that is not a regular file is, as "it is a FIFO" (for "not a regular file" messages). */
export function describeFileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'it is a directory';
  if (stats.isFIFO()) return 'it is a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'it is a character device';
  if (stats.isBlockDevice()) return 'it is a block device';
  if (stats.isSocket()) return 'it is a socket';
  if (stats.isSymbolicLink()) return 'it is a symbolic link';
  if (stats.isFile()) return 'it is a regular file';
  return 'it is a special file';
}
