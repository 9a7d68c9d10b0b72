import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonDocument, jsonLine } from '../../../src/cli/output/json-document.js';
import { ROOT } from '../../helpers/paths.js';

describe('JSON on stdout', () => {
  const hostile = { answer: 'hello \u001b[2J\u001b]0;title\u0007 \u202eevil\u202c \u009b31m \u{e0041}\u200b' };

  it('escapes every character a terminal acts on or hides, and parses back to the same value', () => {
    for (const text of [jsonDocument(hostile), jsonLine(hostile)]) {
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b]|\udb40/);
      expect(text).toContain('\\u202e');
      expect(text).toContain('\\udb40\\udc41');
      expect(JSON.parse(text)).toEqual(hostile);
    }
    expect(jsonLine(hostile)).not.toContain('\n');
  });

  it('every command writes JSON to stdout through it (no bare JSON.stringify to stdout)', () => {
    const folder = join(ROOT, 'src/cli/commands');
    const bare = readdirSync(folder)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /stdout\.write\(\s*JSON\.stringify/.test(readFileSync(join(folder, f), 'utf8')));
    expect(bare).toEqual([]);
  });
});
