import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CacheStore, cacheKeyFile } from '../../src/shared/cache-store.js';

/** A cache root and a state folder (where the key lives) of their own. */
function fresh() {
  const base = mkdtempSync(join(tmpdir(), 'toolman-cache-store-'));
  const env = { TOOLMAN_CACHE_DIR: join(base, 'cache'), XDG_STATE_HOME: join(base, 'state') };
  return { base, env, root: env.TOOLMAN_CACHE_DIR };
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const asRoot = process.getuid?.() === 0;

describe('CacheStore: a cache folder is never taken on trust', () => {
  it('makes the root and folders 0700, entries and the key 0600, the key outside the cache', () => {
    const { env, root } = fresh();
    const store = CacheStore.open(env, 'things')!;
    store.write('a.json', '{"x":1}');
    expect(store.read('a.json', 100)).toBe('{"x":1}');
    expect(mode(root)).toBe('700');
    expect(mode(join(root, 'things'))).toBe('700');
    expect(mode(join(root, 'things', 'a.json'))).toBe('600');
    const key = cacheKeyFile(env)!.file;
    expect(key.startsWith(env.XDG_STATE_HOME)).toBe(true);
    expect(mode(key)).toBe('600');
    expect(readdirSync(root)).toEqual(['things']);
  });

  it('with no state folder to keep the key in (no HOME, no XDG_STATE_HOME) there is no cache: a key in the cache root would come with a copied cache', () => {
    const { root } = fresh();
    // A cache folder restored from elsewhere, with a key of its own in its root.
    mkdirSync(join(root, 'things'), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, 'cache-key'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    expect(cacheKeyFile({ TOOLMAN_CACHE_DIR: root })).toBeUndefined();
    expect(CacheStore.open({ TOOLMAN_CACHE_DIR: root }, 'things')).toBeUndefined();
    expect(CacheStore.open({ TOOLMAN_CACHE_DIR: root }, 'code')).toBeUndefined();
  });

  it('a cache folder an older toolman left readable by others (0755) is made private', () => {
    const { env, root } = fresh();
    mkdirSync(join(root, 'things'), { recursive: true, mode: 0o755 });
    chmodSync(root, 0o755);
    chmodSync(join(root, 'things'), 0o755);
    CacheStore.open(env, 'things')!.read('old.json', 100);
    expect(mode(root)).toBe('700');
    expect(mode(join(root, 'things'))).toBe('700');
  });

  it('an entry whose payload was changed, or that another key signed, is a miss', () => {
    const { env, root } = fresh();
    CacheStore.open(env, 'things')!.write('a.json', '{"argv":["honest"]}');
    const file = join(root, 'things', 'a.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('honest', 'pwned'));
    expect(CacheStore.open(env, 'things')!.read('a.json', 100)).toBeUndefined();
    // The same cache folder restored somewhere whose key differs (a CI cache, a copied home).
    const other = { ...env, XDG_STATE_HOME: join(env.XDG_STATE_HOME, 'elsewhere') };
    CacheStore.open(env, 'things')!.write('b.json', '{"ok":true}');
    expect(CacheStore.open(other, 'things')!.read('b.json', 100)).toBeUndefined();
    // An entry moved to another name does not verify either.
    writeFileSync(join(root, 'things', 'c.json'), readFileSync(join(root, 'things', 'b.json')));
    chmodSync(join(root, 'things', 'c.json'), 0o600);
    expect(CacheStore.open(env, 'things')!.read('c.json', 100)).toBeUndefined();
  });

  it('entries other users can change, that are links, or are over their size are misses', () => {
    const { env, root } = fresh();
    const store = CacheStore.open(env, 'things')!;
    store.write('a.json', '{"x":1}');
    const file = join(root, 'things', 'a.json');
    chmodSync(file, 0o666);
    expect(CacheStore.open(env, 'things')!.read('a.json', 100)).toBeUndefined();
    chmodSync(file, 0o600);
    expect(CacheStore.open(env, 'things')!.read('a.json', 3)).toBeUndefined();
    symlinkSync(file, join(root, 'things', 'link.json'));
    expect(CacheStore.open(env, 'things')!.read('link.json', 100)).toBeUndefined();
  });

  it.runIf(asRoot)('an entry, folder or root that belongs to another user is not used', () => {
    const { env, root } = fresh();
    CacheStore.open(env, 'things')!.write('a.json', '{"x":1}');
    const file = join(root, 'things', 'a.json');
    chownSync(file, 4242, 4242);
    expect(CacheStore.open(env, 'things')!.read('a.json', 100)).toBeUndefined();
    chownSync(file, 0, 0);
    chownSync(join(root, 'things'), 4242, 4242);
    expect(CacheStore.open(env, 'things')!.read('a.json', 100)).toBeUndefined();
    chownSync(join(root, 'things'), 0, 0);
    chownSync(root, 4242, 4242);
    expect(CacheStore.open(env, 'things')!.read('a.json', 100)).toBeUndefined();
  });

  it('a root others can write, or a root that is a link, is neither read nor written', () => {
    const { base, env, root } = fresh();
    CacheStore.open(env, 'things')!.write('a.json', '{"x":1}');
    chmodSync(root, 0o777);
    const shared = CacheStore.open(env, 'things')!;
    expect(shared.read('a.json', 100)).toBeUndefined();
    shared.write('b.json', '{}');
    expect(readdirSync(join(root, 'things'))).toEqual(['a.json']);
    chmodSync(root, 0o700);
    const real = join(base, 'real-cache');
    mkdirSync(real, { mode: 0o700 });
    const linked = { ...env, TOOLMAN_CACHE_DIR: join(base, 'linked-cache') };
    symlinkSync(real, linked.TOOLMAN_CACHE_DIR);
    CacheStore.open(linked, 'things')!.write('a.json', '{}');
    expect(readdirSync(real)).toEqual([]);
  });

  it('a key file others can read turns the cache off rather than trusting it', () => {
    const { env } = fresh();
    CacheStore.open(env, 'things')!.write('a.json', '{}');
    const { file } = cacheKeyFile(env)!;
    chmodSync(file, 0o644);
    // Keys are read once per process: a new state folder with a readable key stands for a new process.
    const other = { ...env, XDG_STATE_HOME: join(env.XDG_STATE_HOME, 'readable') };
    mkdirSync(join(other.XDG_STATE_HOME, 'toolman'), { recursive: true, mode: 0o700 });
    writeFileSync(join(other.XDG_STATE_HOME, 'toolman', 'cache-key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    expect(CacheStore.open(other, 'things')).toBeUndefined();
  });
});
