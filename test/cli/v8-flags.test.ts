import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOf, v8FlagsFor } from '../../src/cli/v8-flags.js';
import { ROOT } from '../helpers/paths.js';

const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));

describe('v8FlagsFor: the V8 flags of a run, decided before anything is compiled', () => {
  it('finds the command after global options and their values', () => {
    expect(commandOf(['validate', 'a.yaml'])).toBe('validate');
    expect(commandOf(['-c', 'validate.yaml', 'budget'])).toBe('budget');
    expect(commandOf(['--catalog', 'x.yaml', '--refresh', 'validate'])).toBe('validate');
    expect(commandOf(['--catalog=x.yaml', 'list'])).toBe('list');
    expect(commandOf(['--version'])).toBeUndefined();
    expect(commandOf(['--', 'validate'])).toBeUndefined();
  });

  it('validate gets its heap flag; every run gets the baseline WebAssembly tier and a later TurboFan', () => {
    expect(v8FlagsFor(['validate', 'a.yaml'])).toEqual(['--liftoff-only', '--interrupt-budget=270336', '--heap-growing-percent=80']);
    expect(v8FlagsFor(['-c', 'a.yaml', 'validate'])).toEqual(['--liftoff-only', '--interrupt-budget=270336', '--heap-growing-percent=80']);
    expect(v8FlagsFor(['-c', 'validate', 'budget'])).toEqual(['--liftoff-only', '--interrupt-budget=270336']);
    expect(v8FlagsFor([])).toEqual(['--liftoff-only', '--interrupt-budget=270336']);
    // test: no incremental marking (a short run no longer waits at exit for a collection begun at its end).
    expect(v8FlagsFor(['-c', 'a.yaml', 'test', 's.yaml', '--replay', 'r'])).toEqual(['--liftoff-only', '--interrupt-budget=270336', '--no-incremental-marking']);
    expect(v8FlagsFor(['test', 'merge', 'a.json'])).toEqual(['--liftoff-only', '--interrupt-budget=270336', '--no-incremental-marking']);
  });

  it('serve, a long-running process, keeps V8 defaults: optimised code sooner, and the optimising WebAssembly tier', () => {
    expect(v8FlagsFor(['serve'])).toEqual([]);
    expect(v8FlagsFor(['-c', 'serve.yaml', 'serve', '--port', '0'])).toEqual([]);
    // A catalog named serve does not make another command a server.
    expect(v8FlagsFor(['--catalog', 'serve', 'list'])).toEqual(['--liftoff-only', '--interrupt-budget=270336']);
  });

  it('no code of toolman sets a V8 flag once it runs: only bin/toolman.js does, with these, before the code cache', () => {
    // A flag set later changes V8's flag hash mid-run, and V8 then refuses the code cache's entries (src/cli/v8-flags.ts).
    const setters = files(join(ROOT, 'src')).filter((file) => /setFlagsFromString/.test(readFileSync(file, 'utf8')));
    expect(setters.map((file) => relative(ROOT, file))).toEqual([]);
    const bin = readFileSync(join(ROOT, 'bin', 'toolman.js'), 'utf8');
    expect(bin.match(/setFlagsFromString\(/g)).toHaveLength(1);
    expect(bin.indexOf('setFlagsFromString(flag)')).toBeLessThan(bin.indexOf('installCodeCache(process.env'));
  });
});
