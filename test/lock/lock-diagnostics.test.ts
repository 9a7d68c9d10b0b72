import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../src/catalog/diagnostic-codes.js';
import { runMain } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'lock');

/**
 * Each toolman.lock finding, from `validate --locked` on its fixture: a catalog whose one MCP
 * server is the scripted fixture reading its tools from the folder's tools.json, and the lock
 * `toolman lock` wrote before the folder's change (the fixture's name says which).
 */
const CASES = [
  { fixture: 'TM0850-lock-unreadable', code: 'TM0850', severity: 'error', file: 'toolman.lock', line: 33, column: 19 },
  { fixture: 'TM0851-tool-changed', code: 'TM0851', severity: 'error', file: 'toolman.lock', line: 35, column: 9 },
  { fixture: 'TM0852-tool-not-pinned', code: 'TM0852', severity: 'error', file: 'toolman.lock', line: 12, column: 7 },
  { fixture: 'TM0853-pinned-tool-gone', code: 'TM0853', severity: 'error', file: 'toolman.lock', line: 13, column: 9 },
  { fixture: 'TM0854-server-changed', code: 'TM0854', severity: 'error', file: 'toolman.lock', line: 8, column: 22 },
  { fixture: 'TM0855-server-not-pinned', code: 'TM0855', severity: 'error', file: 'toolman.yaml', line: 8, column: 3 },
  { fixture: 'TM0856-pinned-server-gone', code: 'TM0856', severity: 'warning', file: 'toolman.lock', line: 5, column: 5 },
  { fixture: 'TM0857-server-unverified', code: 'TM0857', severity: 'error', file: 'toolman.yaml', line: 4, column: 3 },
] as const;

const env = { PATH: process.env.PATH ?? '', TOOLMAN_CACHE_DIR: 'off' };

describe('validate --locked: every toolman.lock finding has a fixture that triggers it', () => {
  it.each(CASES)('$fixture reports $code at $file:$line:$column', async ({ fixture, code, severity, file, line, column }) => {
    const run = await runMain(['validate', '--locked', '--json'], { cwd: join(DIR, fixture), env });
    const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: { code: string; severity: string; file: string; line: number; column: number }[] };
    const found = diagnostics.filter((d) => d.code === code);
    expect(found, run.stdout).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity, file, line, column });
    // One problem per fixture: no other error.
    expect(diagnostics.filter((d) => d.code !== code && d.severity === 'error')).toEqual([]);
    expect(run.code).toBe(severity === 'error' ? 1 : 0);
  }, 20_000);

  it('covers every 085x code, and every fixture folder is a case', () => {
    const codes = Object.keys(DIAGNOSTIC_CODES).filter((c) => c.startsWith('TM085'));
    expect(codes.sort()).toEqual(CASES.map((c) => c.code).sort());
    expect(readdirSync(DIR).filter((f) => f.startsWith('TM')).sort()).toEqual(CASES.map((c) => c.fixture).sort());
  });

  it('the same catalogs without --locked report none of them: the lock is checked only when asked', async () => {
    const run = await runMain(['validate', '--json'], { cwd: join(DIR, 'TM0851-tool-changed'), env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).diagnostics.filter((d: { code: string }) => d.code.startsWith('TM085'))).toEqual([]);
  }, 20_000);
});
