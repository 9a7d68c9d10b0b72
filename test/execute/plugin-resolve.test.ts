import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlugin } from '../../src/execute/runners/plugin-resolve.js';

describe('resolvePlugin: a plugin folder whose package.json is not JSON', () => {
  it('says why without quoting the file, and shows a control character as an escape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-resolve-'));
    mkdirSync(join(dir, 'evil'));
    const catalog = join(dir, 'toolman.yaml');
    writeFileSync(catalog, 'toolman: 1\n');
    for (const [text, reason] of [
      ['sk-live-0123456789abcdef{"name": "x"}', "unexpected token 's'"],
      ['\u001b]0;PWN\u0007{"name": "x"}', "unexpected token '\\u001b'"],
    ] as const) {
      writeFileSync(join(dir, 'evil', 'package.json'), text);
      const found = await resolvePlugin('./evil', catalog);
      expect(found.ok).toBe(false);
      const message = (found as { message: string }).message;
      expect(message).toBe(`the plugin ./evil's package.json cannot be read: ${reason}`);
    }
  });
});
