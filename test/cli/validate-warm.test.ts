import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { BIN, CATALOGS, ROOT } from '../helpers/paths.js';

/** A cache and a state folder (the cache key) of their own. */
function freshCache() {
  const base = mkdtempSync(join(tmpdir(), 'toolman-validate-warm-'));
  return { TOOLMAN_CACHE_DIR: join(base, 'cache'), XDG_STATE_HOME: join(base, 'state') };
}

const PLUGINS = join(ROOT, 'test', 'fixtures', 'plugins');

/**
 * The files of toolman's build a `validate` process loaded (a preloaded hook lists them), and
 * which of them define the checks: what a warm run should not need.
 */
function loadedBy(args: string[], env: Record<string, string>): { output: string; checks: boolean; grading: boolean } {
  const hook = join(mkdtempSync(join(tmpdir(), 'toolman-load-hook-')), 'hook.cjs');
  writeFileSync(hook, `const Module = require('node:module'); const { writeSync } = require('node:fs'); const files = [];
const load = Module.prototype.load; Module.prototype.load = function (file) { files.push(file); return load.apply(this, arguments); };
process.on('exit', () => writeSync(2, '\\nLOADED ' + JSON.stringify(files) + '\\n'));\n`);
  const run = spawnSync(process.execPath, ['-r', hook, BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  expect(run.status, run.stderr).toBeLessThan(2);
  const files = JSON.parse(/\nLOADED (.*)\n/.exec(run.stderr)![1]!) as string[];
  const texts = files.filter((f) => f.includes(`${join('dist', 'cli')}`)).map((f) => readFileSync(f, 'utf8'));
  return { output: run.stdout, checks: texts.some((t) => t.includes('function runChecks(')), grading: texts.some((t) => t.includes('function assessTool(')) };
}

describe('validate with a warm cache', () => {
  it('prints byte for byte what a run without a cache and a first run print: text, --json, SARIF, --quality, --quiet, with and without plugins', async () => {
    const large = join(CATALOGS, 'large.yaml');
    const catalogs = [join(CATALOGS, 'assistant.yaml'), large, join(PLUGINS, 'TM0743-plugin-config-invalid.yaml')];
    for (const catalog of catalogs) {
      for (const flags of [[], ['--json'], ['--quality'], ...(catalog === large ? [['--format', 'sarif'], ['--quiet']] : [])]) {
        const args = ['validate', catalog, ...flags];
        const env = freshCache();
        const none = await runBin(args, { env: { TOOLMAN_CACHE_DIR: 'off' } });
        const first = await runBin(args, { env });
        const warm = await runBin(args, { env });
        expect(first, args.join(' ')).toEqual(none);
        expect(warm, args.join(' ')).toEqual(none);
      }
    }
  }, 120_000);

  it('takes what the checks found and the quality grades from the cache, loading none of the checks, also for a catalog with plugins', () => {
    for (const catalog of [join(CATALOGS, 'assistant.yaml'), join(CATALOGS, 'large.yaml')]) {
      const env = freshCache();
      const first = loadedBy(['validate', catalog], env);
      expect(first).toMatchObject({ checks: true, grading: true });
      // large.yaml's plugin tools once kept its findings out of the cache: checked again on every run.
      expect(readdirSync(join(env.TOOLMAN_CACHE_DIR, 'findings')).length).toBeGreaterThanOrEqual(2);
      const warm = loadedBy(['validate', catalog], env);
      expect(warm).toEqual({ output: first.output, checks: false, grading: false });
    }
  });

  it('asks the plugins again on every run: what they say of a config is not remembered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-plugin-warm-'));
    cpSync(PLUGINS, dir, { recursive: true });
    const catalog = join(dir, 'TM0743-plugin-config-invalid.yaml');
    const env = freshCache();
    const before = await runBin(['validate', catalog, '--json'], { env });
    expect(JSON.parse(before.stdout).diagnostics.map((d: { code: string }) => d.code)).toContain('TM0743');
    // The plugin now takes a repeat of up to 100: the catalog is unchanged, its finding is gone.
    const plugin = join(dir, 'plugins', 'kinds.mjs');
    writeFileSync(plugin, readFileSync(plugin, 'utf8').replace('maximum: 10 }', 'maximum: 100 }'));
    const after = await runBin(['validate', catalog, '--json'], { env });
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout).diagnostics.map((d: { code: string }) => d.code)).not.toContain('TM0743');
    expect(existsSync(join(env.TOOLMAN_CACHE_DIR, 'findings'))).toBe(true);
  });
});
