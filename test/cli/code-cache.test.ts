import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { CodeCache, NODE_COMPILES } from '../../src/cli/code-cache.js';
import { CacheStore } from '../../src/shared/cache-store.js';
import { runBin } from '../helpers/cli.js';
import { CATALOGS, ROOT } from '../helpers/paths.js';

// V8 keeps what a process compiled by source text and file (its compilation cache), and a second
// compile of the same text in one process is served from there: cachedData is then neither used
// nor refused. A run of toolman compiles each chunk once; these tests compile a text several
// times, as several runs would, so they turn that in-process cache off.
setFlagsFromString('--no-compilation-cache');

/** A cache root and a state folder (where the cache key lives) of their own. */
function fresh() {
  const base = mkdtempSync(join(tmpdir(), 'toolman-code-cache-'));
  const env = { TOOLMAN_CACHE_DIR: join(base, 'cache'), XDG_STATE_HOME: join(base, 'state') };
  return { env, folder: join(env.TOOLMAN_CACHE_DIR, 'code') };
}

/** A module with enough functions that V8 has something to cache; `n` makes another text. */
const moduleText = (n: number) => `'use strict';
function fib(k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }
const names = ['a', 'b', 'c'].map((x) => x + ${n});
module.exports = { value: fib(10) + ${n}, names, file: __filename };
`;

/** Compiles and runs a module through a CodeCache as the installed hook would. */
function load(cache: CodeCache, text: string, filename = '/virtual/dist/cli/chunks/m.cjs') {
  const module = { exports: {} as Record<string, unknown> };
  cache.compile(text, filename).call(module.exports, module.exports, () => undefined, module, filename, '/virtual/dist/cli/chunks');
  return module.exports;
}

const entries = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((f) => !f.startsWith('.')) : []);

describe('CodeCache: V8 code kept between runs, never taken on trust', () => {
  it('a second run takes the code the first one compiled, and gets the same module', () => {
    const { env, folder } = fresh();
    const first = new CodeCache(CacheStore.open(env, 'code'));
    const a = load(first, moduleText(1));
    expect(first.counts).toEqual({ used: 0, compiled: 1, rejected: 0 });
    first.save();
    expect(entries(folder)).toHaveLength(1);
    expect((statSync(join(folder, entries(folder)[0]!)).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(folder).mode & 0o777).toString(8)).toBe('700');

    const second = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(second, moduleText(1))).toEqual(a);
    expect(second.counts).toEqual({ used: 1, compiled: 0, rejected: 0 });
    second.save(); // nothing new to store
    expect(entries(folder)).toHaveLength(1);
  });

  it('another text, file or Node runtime is another entry: a blob is offered to V8 only for the text it was made from', () => {
    const { env, folder } = fresh();
    const cache = new CodeCache(CacheStore.open(env, 'code'));
    load(cache, moduleText(1));
    cache.save();
    // Same length, other text: V8 itself checks only the length of the source, so the entry's name binds the text.
    const again = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(again, moduleText(2))).toMatchObject({ value: 57, names: ['a2', 'b2', 'c2'] });
    expect(load(again, moduleText(1), '/virtual/dist/cli/chunks/other.cjs')).toMatchObject({ value: 56 });
    expect(again.counts).toEqual({ used: 0, compiled: 2, rejected: 0 });
    const otherNode = new CodeCache(CacheStore.open(env, 'code'), 'v99.0.0');
    load(otherNode, moduleText(1));
    expect(otherNode.counts.used).toBe(0);
    again.save();
    expect(entries(folder)).toHaveLength(3);
  });

  it('an entry changed on disk, or moved to another name, is a miss; the module is compiled afresh and the entry written again', () => {
    const { env, folder } = fresh();
    const first = new CodeCache(CacheStore.open(env, 'code'));
    load(first, moduleText(1));
    first.save();
    const x = entries(folder)[0]!;
    const third = new CodeCache(CacheStore.open(env, 'code'));
    load(third, moduleText(3), '/virtual/dist/cli/chunks/three.cjs');
    third.save();
    const y = entries(folder).find((n) => n !== x)!;
    const bytes = readFileSync(join(folder, x));
    bytes[bytes.length - 10]! ^= 0xff; // a byte of V8's code, not of the tag
    writeFileSync(join(folder, x), bytes);
    const changed = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(changed, moduleText(1))).toMatchObject({ value: 56, names: ['a1', 'b1', 'c1'] });
    expect(changed.counts).toEqual({ used: 0, compiled: 1, rejected: 0 });
    // The other entry copied over it: authentic, but for another name.
    cpSync(join(folder, y), join(folder, x));
    const moved = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(moved, moduleText(1))).toMatchObject({ value: 56 });
    expect(moved.counts).toEqual({ used: 0, compiled: 1, rejected: 0 });
    moved.save();
    const healed = new CodeCache(CacheStore.open(env, 'code'));
    load(healed, moduleText(1));
    expect(healed.counts.used).toBe(1);
  });

  it('an authentic entry that is not V8 code for this text (garbage, or another text\'s code) is refused by V8 and replaced', () => {
    const { env, folder } = fresh();
    const cache = new CodeCache(CacheStore.open(env, 'code'));
    load(cache, moduleText(1));
    cache.save();
    const name = entries(folder)[0]!;
    const store = CacheStore.open(env, 'code')!;
    // Written with this user's key, as a bug or an older toolman might have: V8's own checks (magic, version, flags, source length) refuse it.
    store.writeBytes(name, Buffer.from('not V8 code at all, just bytes '.repeat(40)));
    const garbage = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(garbage, moduleText(1))).toMatchObject({ value: 56 });
    expect(garbage.counts).toEqual({ used: 0, compiled: 0, rejected: 1 });
    garbage.save();
    const healed = new CodeCache(CacheStore.open(env, 'code'));
    load(healed, moduleText(1));
    expect(healed.counts.used).toBe(1);
    // V8's code for a longer text, stored under this text's name.
    const elsewhere = fresh();
    const longer = new CodeCache(CacheStore.open(elsewhere.env, 'code'));
    load(longer, moduleText(12345));
    longer.save();
    const longerCode = CacheStore.open(elsewhere.env, 'code')!.readBytes(entries(elsewhere.folder)[0]!, 1 << 20)!;
    store.writeBytes(name, longerCode);
    const foreign = new CodeCache(CacheStore.open(env, 'code'));
    expect(load(foreign, moduleText(1))).toMatchObject({ value: 56, names: ['a1', 'b1', 'c1'] });
    expect(foreign.counts).toEqual({ used: 0, compiled: 0, rejected: 1 });
  });

  it('a run that writes new entries removes those no run has written for a week, keeping what it used', () => {
    const { env, folder } = fresh();
    const first = new CodeCache(CacheStore.open(env, 'code'));
    load(first, moduleText(1), '/virtual/dist/cli/chunks/used.cjs');
    load(first, moduleText(2), '/virtual/dist/cli/chunks/old-build.cjs');
    first.save();
    const [a, b] = entries(folder) as [string, string];
    const weeksAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const name of [a, b]) utimesSync(join(folder, name), weeksAgo, weeksAgo);
    // Nothing new stored: nothing removed.
    const reading = new CodeCache(CacheStore.open(env, 'code'));
    load(reading, moduleText(1), '/virtual/dist/cli/chunks/used.cjs');
    reading.save();
    expect(entries(folder)).toHaveLength(2);
    // A new build's chunk: stored, the old build's entry removed, the one this run used kept.
    const upgraded = new CodeCache(CacheStore.open(env, 'code'));
    load(upgraded, moduleText(1), '/virtual/dist/cli/chunks/used.cjs');
    load(upgraded, moduleText(3), '/virtual/dist/cli/chunks/new-build.cjs');
    upgraded.save();
    const left = entries(folder);
    expect(left).toHaveLength(2);
    const again = new CodeCache(CacheStore.open(env, 'code'));
    load(again, moduleText(1), '/virtual/dist/cli/chunks/used.cjs');
    load(again, moduleText(3), '/virtual/dist/cli/chunks/new-build.cjs');
    load(again, moduleText(2), '/virtual/dist/cli/chunks/old-build.cjs');
    expect(again.counts).toEqual({ used: 2, compiled: 1, rejected: 0 });
  });

  it('with the cache off, modules are compiled and nothing is written', () => {
    const { folder } = fresh();
    const cache = new CodeCache(CacheStore.open({ TOOLMAN_CACHE_DIR: 'off' }, 'code'));
    expect(load(cache, moduleText(1))).toMatchObject({ value: 56 });
    cache.save();
    expect(existsSync(folder)).toBe(false);
  });

  it('stack traces point at the lines of the file, not of the wrapper', () => {
    const cache = new CodeCache(undefined);
    const text = "'use strict';\n\nmodule.exports = () => { throw new Error('here'); };\n";
    const thrower = load(cache, text, '/virtual/dist/cli/chunks/throws.cjs') as unknown as () => void;
    let stack = '';
    try {
      thrower();
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toContain('/virtual/dist/cli/chunks/throws.cjs:3:');
  });
});

describe('bin/toolman.js runs the CommonJS build with the code cache', () => {
  it('a first run stores the code of the chunks it loaded; later runs, with the entries intact or spoiled, answer the same', async () => {
    const { env, folder } = fresh();
    const args = ['validate', join(CATALOGS, 'assistant.yaml'), '--json'];
    const first = await runBin(args, { env });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(join(ROOT, 'dist', 'cli', 'main.cjs'))).toBe(true);
    // Only the hook bin installs writes these: dist/cli's chunks went through it.
    const made = entries(folder);
    expect(made.length).toBeGreaterThan(5);
    for (const name of made) expect((statSync(join(folder, name)).mode & 0o777).toString(8)).toBe('600');

    const warm = await runBin(args, { env });
    expect(warm).toEqual(first);
    expect(entries(folder)).toEqual(made); // all taken, none written again

    // Every entry spoiled: the same answer, nothing on stderr, and the entries made good again.
    for (const name of made) {
      const file = join(folder, name);
      const bytes = readFileSync(file);
      writeFileSync(file, Buffer.concat([bytes.subarray(0, 65), Buffer.alloc(bytes.length - 65, 0x41)]));
      chmodSync(file, 0o600);
    }
    const spoiled = await runBin(args, { env });
    expect(spoiled).toEqual(first);
    // Made good again: the entries that run used (a warm validate loads fewer chunks than a first
    // run: not the checks), so the run after it rewrites none. Which entry sorts first depends on
    // the build's path, so no one entry is named here.
    const good = (name: string) => !readFileSync(join(folder, name)).subarray(65).every((b) => b === 0x41);
    expect(made.filter(good).length).toBeGreaterThan(5);
    const snapshot = () => Object.fromEntries(entries(folder).map((name) => { const s = statSync(join(folder, name)); return [name, `${s.ino}:${s.mtimeMs}`]; }));
    const before = snapshot();
    expect(await runBin(args, { env })).toEqual(first);
    expect(snapshot()).toEqual(before);
  });

  it('runs of validate and budget in turn take each other\'s entries as they are: a warm run writes no entry again', async () => {
    // validate runs with a V8 heap flag of its own, and V8 refuses code made under other flags: each
    // command once rewrote the entries the other had made (about 56 files per validate of large.yaml).
    const { env, folder } = fresh();
    const validate = ['validate', join(CATALOGS, 'large.yaml'), '--json'];
    const budget = ['-c', join(CATALOGS, 'large.yaml'), 'budget', '--json'];
    const answers = new Map<string, unknown>();
    for (const args of [validate, budget, validate, budget]) {
      const run = await runBin(args, { env });
      expect(run.code, run.stderr).toBeLessThan(2);
      answers.set(args.join(' '), run);
    }
    /** Each entry's identity on disk: a rewrite (written aside, renamed over it) is a new inode. */
    const snapshot = () => Object.fromEntries(entries(folder).map((name) => { const s = statSync(join(folder, name)); return [name, `${s.ino}:${s.mtimeMs}`]; }));
    const before = snapshot();
    for (const args of [validate, validate, budget, validate]) {
      const run = await runBin(args, { env });
      // budget's --json carries its own timing; the rest of every answer is the same.
      const timeless = (r: unknown) => JSON.stringify(r).replace(/\\"count_eager_ms\\": [\d.]+/g, '');
      expect(timeless(run)).toBe(timeless(answers.get(args.join(' '))));
    }
    expect(snapshot()).toEqual(before);
  });

  it('only chunks that import() an ES module chunk are left to Node; an SDK that merely mentions import() in a message is cached', () => {
    // The OpenAI and Anthropic SDKs' "File is not defined" message names `import('node:buffer')`,
    // and the plugin worker's source is a string with an import() in it: the build once marked
    // those chunks for Node to compile (no code cache: about 8 ms of CPU of every warm chat).
    const folder = join(ROOT, 'dist', 'cli', 'chunks');
    const chunks = readdirSync(folder).filter((f) => f.endsWith('.cjs')).map((f) => ({ name: f, text: readFileSync(join(folder, f), 'utf8') }));
    const marked = chunks.filter((c) => c.text.startsWith(NODE_COMPILES));
    expect(marked.length).toBeGreaterThan(0); // the REPL's loader of its ES module chunk
    for (const c of marked) expect(c.text, c.name).toMatch(/\bimport\((["'])\.\.?\/[\w./-]+\.mjs\1\)/);
    const openai = chunks.filter((c) => c.text.includes("import('node:buffer')"));
    expect(openai.length).toBeGreaterThan(0);
    for (const c of openai) expect(c.text.startsWith(NODE_COMPILES), c.name).toBe(false);
  });

  it('a build with a chunk missing, or a current folder deleted meanwhile: a clear error and exit 2, no stack trace', () => {
    const copy = mkdtempSync(join(tmpdir(), 'toolman-partial-'));
    for (const part of ['bin', 'dist', 'schema', 'package.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    const chunk = /chunks\/chunk-\w+\.cjs/.exec(readFileSync(join(copy, 'dist', 'cli', 'main.cjs'), 'utf8'))![0];
    rmSync(join(copy, 'dist', 'cli', chunk));
    const broken = spawnSync(process.execPath, [join(copy, 'bin', 'toolman.js'), '--version'], { encoding: 'utf8', env: { ...process.env, TOOLMAN_CACHE_DIR: 'off' } });
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/^toolman: error: toolman's build cannot be loaded \(MODULE_NOT_FOUND/);
    expect(broken.stderr).not.toMatch(/\n\s+at /);

    const gone = mkdtempSync(join(tmpdir(), 'toolman-gone-'));
    const inGone = spawnSync('sh', ['-c', `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${join(ROOT, 'bin', 'toolman.js')}" validate x.yaml`], { encoding: 'utf8' });
    expect(inGone.status).toBe(2);
    expect(inGone.stderr).toBe('toolman: error: the current folder no longer exists\n  hint: cd to a folder that exists and run it again\n');
  });
});

describe('installCodeCache: what the hook takes and what it leaves to Node', () => {
  it('caches CommonJS under its folders; an ES module .js there, and files elsewhere, are Node\'s as before', () => {
    const { env, folder } = fresh();
    const base = mkdtempSync(join(tmpdir(), 'toolman-code-hook-'));
    const covered = join(base, 'node_modules', 'dep');
    const outside = join(base, 'elsewhere');
    for (const dir of [covered, outside]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(covered, 'package.json'), '{}'); // no "type": Node decides by the syntax
    writeFileSync(join(covered, 'plain.js'), "module.exports = { kind: 'commonjs', file: __filename };\n");
    writeFileSync(join(covered, 'esm.js'), "export const kind = 'esm';\n");
    writeFileSync(join(outside, 'other.cjs'), "module.exports = { kind: 'outside' };\n");
    const script = `
      const { installCodeCache } = require(${JSON.stringify(join(ROOT, 'dist', 'cli', 'code-cache.cjs'))});
      const cache = installCodeCache(process.env, [${JSON.stringify(join(base, 'node_modules'))}]);
      const plain = require(${JSON.stringify(join(covered, 'plain.js'))});
      const other = require(${JSON.stringify(join(outside, 'other.cjs'))});
      const esm = require(${JSON.stringify(join(covered, 'esm.js'))});
      process.stdout.write(JSON.stringify({ plain, other: other.kind, esm: esm.kind, counts: cache.counts }));
    `;
    const run = () => spawnSync(process.execPath, ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ plain: { kind: 'commonjs', file: join(covered, 'plain.js') }, other: 'outside', esm: 'esm', counts: { used: 0, compiled: 1, rejected: 0 } });
    expect(entries(folder)).toHaveLength(1);
    const second = run();
    expect(JSON.parse(second.stdout).counts).toEqual({ used: 1, compiled: 0, rejected: 0 });
  });
});
