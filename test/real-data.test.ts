import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realToolFiles, SHARED_DATA, VENDORED_DATA } from './helpers/real-data.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}

describe('[real data] the copy in test/fixtures/real-data', () => {
  it('lists every real tool file', () => {
    expect(realToolFiles().length).toBeGreaterThanOrEqual(6);
  });

  it.runIf(existsSync(SHARED_DATA))('is byte for byte the same as ../shared/data', () => {
    for (const file of files(join(VENDORED_DATA, 'bfcl')).concat(files(join(VENDORED_DATA, 'mcp')))) {
      const name = relative(VENDORED_DATA, file);
      expect(readFileSync(file).equals(readFileSync(join(SHARED_DATA, name))), name).toBe(true);
    }
    for (const file of files(join(SHARED_DATA, 'bfcl')).concat(files(join(SHARED_DATA, 'mcp')))) expect(existsSync(join(VENDORED_DATA, relative(SHARED_DATA, file))), file).toBe(true);
  });
});
