import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

const suites = readdirSync(join(ROOT, 'suites')).filter((f) => f.endsWith('.yaml'));

describe('the shipped suites pass offline from their recordings (no network, no key)', () => {
  it('there is one per shipped catalog', () => {
    const catalogs = readdirSync(join(ROOT, 'catalogs')).filter((f) => f.endsWith('.yaml'));
    expect(suites.sort()).toEqual(catalogs.sort());
  });

  it.each(suites)('%s', async (file) => {
    const run = await runBin(['-c', `catalogs/${file}`, 'test', `suites/${file}`, '--replay', 'suites/recordings', '--json'], { env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
    const doc = JSON.parse(run.stdout);
    const failures = doc.suites?.[0]?.runs?.filter((r: { passed: boolean }) => !r.passed).map((r: { case: string; failures: unknown }) => [r.case, r.failures]);
    expect(run.code, `${run.stderr}\n${JSON.stringify(failures)}\n(after changing a shipped suite or catalog, run: node scripts/make-suite-recordings.mjs)`).toBe(0);
    expect(run.stderr).not.toContain('differ');
  });
});
