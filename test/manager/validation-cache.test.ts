import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { ROOT } from '../helpers/paths.js';

/** The validation cache as a build of the given version sees it (each import is a fresh module, so its build id is read again). */
async function cacheOfVersion(version: string) {
  vi.resetModules();
  vi.doMock('../../src/shared/package-root.js', async (original) => ({ ...(await original<object>()), toolmanVersion: () => version }));
  return (await import('../../src/manager/validation-cache.js')).ValidationCache;
}

afterEach(() => {
  vi.doUnmock('../../src/shared/package-root.js');
  vi.resetModules();
});

describe('ValidationCache', () => {
  it('a verdict of one toolman version is not reused by another, even where the install gives every file the same time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-validation-cache-'));
    const env = { TOOLMAN_CACHE_DIR: join(dir, 'cache'), XDG_STATE_HOME: join(dir, 'state') };
    const loaded = loadCatalog([join(ROOT, 'catalogs', 'assistant.yaml')], { cwd: ROOT });
    const older = (await cacheOfVersion('1.0.0')).from(env)!;
    older.rememberValid(loaded);
    expect(older.knownValid(loaded)).toBe(true);
    expect((await cacheOfVersion('1.0.0')).from(env)!.knownValid(loaded)).toBe(true);
    expect((await cacheOfVersion('1.1.0')).from(env)!.knownValid(loaded)).toBe(false);
  });
});
