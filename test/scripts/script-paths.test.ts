import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

// `new URL(..., import.meta.url).pathname` is percent-encoded: in a folder with a space
// ("/home/a/My Projects/toolman") `npm install` (prepare: scripts/build.mjs) failed with
// `Could not resolve "./src/validate/strict-compile.ts"`. Scripts take paths with fileURLToPath.
describe('the build scripts work from any folder', () => {
  it('no script turns a URL into a path by its pathname', () => {
    const scripts = readdirSync(join(ROOT, 'scripts')).filter((name) => name.endsWith('.mjs'));
    expect(scripts.length).toBeGreaterThan(3);
    const offenders = scripts.filter((name) => /\.pathname\b/.test(readFileSync(join(ROOT, 'scripts', name), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
