import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

const recordings = readdirSync(join(ROOT, 'catalogs', 'recordings')).filter((f) => f.endsWith('.jsonl'));

describe('the shipped recordings replay against the shipped catalogs (no network, no key)', () => {
  it('there is one per shipped catalog', () => {
    const catalogs = readdirSync(join(ROOT, 'catalogs')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
    expect(recordings.map((f) => f.replace(/\.jsonl$/, '')).sort()).toEqual(catalogs.sort());
  });

  it.each(recordings)('%s: every turn answers, every call succeeds, nothing differs from the recording', async (file) => {
    const run = await runBin(['-c', `catalogs/${file.replace(/\.jsonl$/, '.yaml')}`, 'chat', '--replay', `catalogs/recordings/${file}`, '--json', '--no-transcript'], { env: {} });
    expect(run.code, `${run.stderr}\n(after changing a shipped catalog, run: node scripts/make-recordings.mjs)`).toBe(0);
    expect(run.stderr).not.toContain('differ');
    const doc = JSON.parse(run.stdout) as { turns?: { stop: string; calls: { ok: boolean }[] }[]; stop?: string; calls?: { ok: boolean }[] };
    const turns = doc.turns ?? [doc as { stop: string; calls: { ok: boolean }[] }];
    for (const turn of turns) {
      expect(turn.stop).toBe('done');
      expect(turn.calls.every((c) => c.ok)).toBe(true);
    }
  });
});
