import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode, ToolmanError } from './errors.js';
import { describeFileKind, describeFsError } from './fs-errors.js';

export const MiB = 1024 * 1024;

/**
 * The default cap on one input file: catalogs, imports, request bodies, case files. The largest
 * real catalog toolman is measured on (10,000 tools) is 11 MB; 64 MiB leaves room for bigger ones
 * while keeping a hostile file from taking more memory than a laptop can spare.
 */
export const DEFAULT_MAX_BYTES = 64 * MiB;

export interface ReadOptions {
  /** Base for a relative path; messages show the path as given. Defaults to process.cwd(). */
  cwd?: string;
  /** Refuse files larger than this, and never read more than this many bytes. */
  maxBytes?: number;
  /** What the file is, for messages: "catalog", "--args-file". */
  label?: string;
}

/** A file toolman would not or could not read; `reason` says why ("it is a FIFO (named pipe), not a regular file"). */
export class FileReadError extends ToolmanError {
  constructor(
    readonly path: string,
    readonly reason: string,
    options: { label?: string; hint?: string; cause?: unknown } = {},
  ) {
    super(ErrorCode.FILE_UNREADABLE, `cannot read ${options.label ? `${options.label} ` : ''}${path}: ${reason}`, {
      ...(options.hint ? { hint: options.hint } : {}),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'FileReadError';
  }
}

// Non-blocking, so opening a FIFO with no writer returns at once instead of waiting forever;
// no controlling terminal, so opening a tty cannot take one over. Windows has neither flag.
const OPEN_FLAGS = (constants.O_RDONLY ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Reads a regular file as UTF-8 text, refusing anything else (devices, FIFOs, sockets,
 * directories) and anything over `maxBytes`. The size is checked on the open descriptor, and the
 * read stops at the limit even if the file grows meanwhile, so no input can take more memory
 * than the limit or block the read.
 */
export function readRegularFile(path: string, options: ReadOptions = {}): string {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const refuse = (reason: string, extra: { hint?: string; cause?: unknown } = {}) => new FileReadError(path, reason, { ...(options.label ? { label: options.label } : {}), ...extra });
  let fd: number;
  try {
    fd = openSync(resolve(options.cwd ?? process.cwd(), path), OPEN_FLAGS);
  } catch (error) {
    throw refuse(describeFsError(error), { cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(`${describeFileKind(stats)}, not a regular file`, { hint: 'toolman reads input only from regular files' });
    if (stats.size > maxBytes) throw refuse(tooLarge(stats.size, maxBytes));
    // One byte past the limit tells a file that grew past it from one that ends exactly there.
    let buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw refuse(grewPast(maxBytes));
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      let read: number;
      try {
        read = readSync(fd, buffer, length, buffer.length - length, null);
      } catch (error) {
        throw refuse(describeFsError(error), { cause: error });
      }
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw refuse(grewPast(maxBytes));
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a stream (standard input) as UTF-8 text, up to `maxBytes`: past it, reading stops and the
 * stream is destroyed, so piping an endless source in fails instead of filling memory.
 */
export async function readBoundedStream(stream: AsyncIterable<Uint8Array | string> & { destroy?: () => unknown }, limits: Omit<ReadOptions, 'cwd'> & { label: string }): Promise<string> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    length += bytes.length;
    if (length > maxBytes) {
      stream.destroy?.();
      throw new FileReadError(limits.label, `it holds more than ${formatBytes(maxBytes)}, over the limit`, { hint: 'write it to a file and split it, or pass a smaller input' });
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}

function tooLarge(size: number, maxBytes: number): string {
  return `it is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit`;
}

function grewPast(maxBytes: number): string {
  return `it grew past the ${formatBytes(maxBytes)} limit while it was read`;
}

/** Sizes as people read them: "65 MiB", "2.5 GiB", "812 bytes". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
