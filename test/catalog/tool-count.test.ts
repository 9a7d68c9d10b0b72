import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { FIXTURES } from '../helpers/paths.js';

describe('TM0405 per profile', () => {
  it('reports the profiles that send too many tools, at their definitions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-count-'));
    const base = readFileSync(join(FIXTURES, 'diagnostics', 'TM0405-tool-count-over-limit.yaml'), 'utf8');
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, `${base}profiles:\n  small: { include: [tool_000, tool_001] }\n  everything: { include: ["*"] }\n  deferred: { include: ["*"], defer: ["tool_1*"] }\n`);
    const { diagnostics } = await validateCatalog([file]);
    const found = diagnostics.filter((d) => d.code === 'TM0405' && /OpenAI/.test(d.message)).map((d) => [d.line, d.message]);
    expect(found).toEqual([
      [2, 'profile full sends 130 tools up front; OpenAI Chat Completions takes at most 128 per request'],
      [139, 'profile everything sends 130 tools up front; OpenAI Chat Completions takes at most 128 per request'],
    ]);
  });
});
