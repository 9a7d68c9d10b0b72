import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { ParseCache } from '../../src/catalog/parse-cache.js';
import { checkPlugins, type PluginInspector } from '../../src/validate/check-plugins.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

const catalog = join(FIXTURES, 'plugins', 'TM0743-plugin-config-invalid.yaml');

function memoryCache() {
  const entries = new Map<string, string>();
  const stats = { hits: 0 };
  const cache: ParseCache = { get: (key) => (entries.has(key) ? (stats.hits++, JSON.parse(entries.get(key)!)) : undefined), set: (key, data) => void entries.set(key, JSON.stringify(data)) };
  return { cache, entries, stats };
}

/** An inspector that answers what the test says, counting the questions. */
function inspector(answer: () => Awaited<ReturnType<PluginInspector['inspect']>>) {
  const asked = { count: 0 };
  return { asked, inspector: { inspect: async () => (asked.count++, answer()) } satisfies PluginInspector };
}

describe('checkPlugins with the findings cache', () => {
  it('asks the plugins every time, and places their answers from the cache only when they answered the same', async () => {
    const { cache, entries, stats } = memoryCache();
    let answer: Awaited<ReturnType<PluginInspector['inspect']>> = { ok: true, configErrors: [{ pointer: '/repeat', message: 'config.repeat must be <= 10' }] };
    const { asked, inspector: plugins } = inspector(() => answer);
    const load = () => loadCatalog([catalog], { cwd: ROOT });
    const fresh = await checkPlugins(load(), plugins);
    expect(fresh.map((d) => [d.code, d.line, d.column])).toEqual([['TM0743', 9, 17]]);
    expect(await checkPlugins(load(), plugins, cache)).toEqual(fresh);
    expect(entries.size).toBe(1);
    expect(await checkPlugins(load(), plugins, cache)).toEqual(fresh);
    expect(stats.hits).toBe(1);
    expect(asked.count).toBe(3);
    // Another answer (the plugin changed): placed afresh, never the remembered findings.
    answer = { ok: true, configErrors: [{ pointer: '/greeting', message: 'config.greeting must be a number' }] };
    const changed = await checkPlugins(load(), plugins, cache);
    expect(changed).toEqual(await checkPlugins(load(), plugins));
    expect(changed.map((d) => [d.code, d.line])).toEqual([['TM0743', 8]]);
    answer = { ok: true, configErrors: [] };
    expect(await checkPlugins(load(), plugins, cache)).toEqual([]);
  });

  it('treats a remembered entry of another shape as a miss', async () => {
    const { cache, entries } = memoryCache();
    const { inspector: plugins } = inspector(() => ({ ok: false, problem: { code: 'TM0740', message: 'cannot find the plugin ./plugins/kinds.mjs' } }));
    const load = () => loadCatalog([catalog], { cwd: ROOT });
    const fresh = await checkPlugins(load(), plugins, cache);
    expect(fresh.map((d) => d.code)).toEqual(['TM0740']);
    const key = [...entries.keys()][0]!;
    for (const damaged of ['{}', '[{"code": "TM0740"}]', JSON.stringify([{ ...fresh[0], line: -1 }]), JSON.stringify([{ ...fresh[0], code: 'TM9999' }])]) {
      entries.set(key, damaged);
      expect(await checkPlugins(load(), plugins, cache)).toEqual(fresh);
    }
  });
});
