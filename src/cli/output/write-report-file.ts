import { resolve } from 'node:path';
import { appendToOutputFile, prepareOutputFile, writePrivateFile } from '../../shared/output-file.js';

/**
 * Every file `toolman test` writes (JUnit, HTML, baselines, histories, merged results, a suite from
 * `test init`) goes through the one private writer (src/shared/output-file.ts): 0600, folders toolman
 * makes 0700, never through a symbolic link (the file itself, one inside the working folder, one
 * another user owns).
 */
export function writeReportFile(file: string, text: string, options: { label: string; mode: 'new' | 'replace'; cwd: string }): void {
  writePrivateFile(resolve(options.cwd, file), text, { label: options.label, mode: options.mode, scope: { cwd: options.cwd } });
}

/** Adds to a file (an append-only history), made ready by the same rules the first time. */
export function appendReportFile(file: string, text: string, options: { label: string; cwd: string }): void {
  const path = resolve(options.cwd, file);
  prepareOutputFile(path, options.label, 'append', { cwd: options.cwd });
  appendToOutputFile(path, text);
}
