import { chmodSync, lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Diagnostic, Fix } from '../catalog/diagnostic.js';
import type { SourceFile } from '../catalog/source-file.js';
import { applyFixes } from '../catalog/text-fixes.js';
import { describeFsError } from '../shared/fs-errors.js';

export interface AppliedFix {
  file: string;
  line: number;
  column: number;
  code: string;
  description: string;
}

export interface FixPass {
  applied: AppliedFix[];
  /** Files with fixes that were not written, and why (a symbolic link, a write that failed). */
  refused: { file: string; reason: string }[];
}

/**
 * One pass of `validate --fix`: the fixes of `diagnostics`, applied to their files' text (fixes that
 * overlap one applied in this pass wait for the next), each file written in place of the old one
 * with the same mode. A file reached through a symbolic link is never written (the link could lead
 * anywhere); the file must also be the one that was read (unchanged since).
 */
export function writeFixes(diagnostics: readonly Diagnostic[], sources: ReadonlyMap<string, SourceFile>): FixPass {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) if (d.fix) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const pass: FixPass = { applied: [], refused: [] };
  for (const [path, found] of byFile) {
    const source = sources.get(path);
    if (!source?.quotable) continue;
    const fixes = found.map((d) => d.fix!);
    const { text, applied } = applyFixes(source.text, fixes);
    if (applied.length === 0) continue;
    const error = writeInPlace(source.absolutePath, text);
    if (error) {
      pass.refused.push({ file: path, reason: error });
      continue;
    }
    const appliedSet = new Set<Fix>(applied);
    for (const d of found) if (appliedSet.has(d.fix!)) pass.applied.push({ file: d.file, line: d.line, column: d.column, code: d.code, description: d.fix!.description });
  }
  return pass;
}

/** Replaces the file at `path` with `text`, keeping its mode; never through a symbolic link. Returns why not, or undefined. */
function writeInPlace(path: string, text: string): string | undefined {
  let mode: number;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 'it is a symbolic link; toolman never writes through one (fix the file it points to)';
    if (!stat.isFile()) return 'it is not a regular file';
    mode = stat.mode & 0o7777;
  } catch (error) {
    return describeFsError(error);
  }
  // A new file beside it, renamed over it: a reader never sees half a file, and the mode is the old one.
  const temporary = join(dirname(path), `.${basename(path)}.toolman-fix-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(temporary, text, { flag: 'wx', mode: 0o600 });
    chmodSync(temporary, mode);
    if (lstatSync(path).isSymbolicLink()) throw new Error('it became a symbolic link while toolman fixed it');
    renameSync(temporary, path);
    return undefined;
  } catch (error) {
    rmSync(temporary, { force: true });
    return error instanceof Error && !('code' in error) ? error.message : describeFsError(error);
  }
}
