import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ErrorCode, ToolmanError } from './errors.js';
import { describeFsError } from './fs-errors.js';

/**
 * Makes ready a file toolman writes as it goes (a transcript, a recording), or says clearly why
 * it cannot, naming the option: a folder in the way, a missing or read-only folder. `new` refuses
 * a file that exists (a recording is the user's work and is never overwritten unasked); `replace`
 * empties one (the user asked to record again); `append` adds to one. Missing folders are made one level at a time: Node's recursive mkdir can spin forever on
 * paths it cannot make (under /proc, for one).
 */
export function prepareOutputFile(file: string, label: string, mode: 'new' | 'replace' | 'append'): void {
  const fail = (why: string, hint?: string): never => {
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `${label} ${file}: ${why}`, hint ? { hint } : {});
  };
  const missing: string[] = [];
  let folder = dirname(file);
  for (;;) {
    const stat = statOrUndefined(folder);
    if (stat) {
      if (!stat.isDirectory()) fail(`${folder} is not a folder`);
      break;
    }
    missing.unshift(folder);
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      fail(`cannot make the folder ${dir} (${describeFsError(error)})`);
    }
  }
  const existing = statOrUndefined(file);
  if (existing?.isDirectory()) fail('it is a folder', 'name a file in it');
  if (existing && mode === 'new') fail('the file exists; toolman does not overwrite it', 'name a new file, or delete this one first');
  try {
    if (mode === 'append') appendFileSync(file, '');
    else writeFileSync(file, '', { flag: mode === 'new' ? 'wx' : 'w' });
  } catch (error) {
    fail(`cannot write it (${describeFsError(error)})`);
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
