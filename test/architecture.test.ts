import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const SRC = join(ROOT, 'src');
const UI_ONLY = /from '(commander|ink|react|cli-table3)'|import\('(commander|ink|react|cli-table3)'\)/;
const DRIVERS = ['cli', 'repl', 'testing'];

describe('layering (DESIGN.md §1)', () => {
  const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
  const core = files.filter((f) => !DRIVERS.includes(f.path.split('/')[0]!));

  it('keeps commander, ink, react and cli-table3 out of the core', () => {
    expect(core.filter((f) => UI_ONLY.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('never prints, exits or imports a driver from the core', () => {
    const offenders = core.filter((f) => /process\.exit|console\.|process\.std(out|err)|from '\.\.\/(\.\.\/)?(cli|repl|testing)\//.test(f.text));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('calls process.exit nowhere in src (only bin/toolman.js decides the exit)', () => {
    expect(files.filter((f) => /process\.exit\(/.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
