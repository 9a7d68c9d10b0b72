import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { scripted } from '../mcp/helpers.js';

/**
 * A `$ref` fan-out bomb: 30 definitions, each referring to the next twice (a few KB that inline to
 * 2^30 nodes). From a catalog, an imported file, a live MCP server and that server's cached list,
 * every command ends quickly and reports the tool as unconvertible for Gemini, located.
 */
const defs = Object.fromEntries(
  Array.from({ length: 30 }, (_, i) => [`d${i}`, i === 29 ? { type: 'string' } : { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } }]),
);
const schema = { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs: defs };
/** Whole process, start to exit: generous for a loaded CI machine; the expansion took minutes. */
const FAST_MS = 4000;

/** The command in this process (fast), or with `bin` the built binary (the MCP server and its cache). */
async function timedRun(args: string[], options: { cwd?: string; env?: Record<string, string>; bin?: boolean } = {}) {
  const start = Date.now();
  const env = { TOOLMAN_CACHE_DIR: 'off', ...options.env };
  const run = options.bin ? await runBin(args, { ...options, env }) : await runMain(args, { ...(options.cwd ? { cwd: options.cwd } : {}), env: { PATH: process.env.PATH ?? '', ...env } });
  return { ...run, ms: Date.now() - start };
}

describe('a $ref fan-out bomb', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-bomb-'));
  const catalog = join(dir, 'toolman.yaml');
  writeFileSync(catalog, `toolman: 1\nname: bomb\ntools:\n  - name: boom\n    description: Takes a value whose schema refers to itself many times over.\n    parameters: ${JSON.stringify(schema)}\n    handler: { mock: [ { result: ok } ] }\n`);

  it('in a catalog: validate and format end at once, the tool reported unconvertible for Gemini at its $ref', async () => {
    const validate = await timedRun(['validate', catalog, '--json']);
    expect(validate.ms).toBeLessThan(FAST_MS);
    const finding = (JSON.parse(validate.stdout) as { diagnostics: { code: string; line: number; column: number; message: string }[] }).diagnostics.find((d) => d.code === 'TM0403');
    expect(finding).toMatchObject({ line: 6, message: expect.stringMatching(/inlining its \$refs .* would make more than 10000 schema nodes/) });
    expect(readFileSync(catalog, 'utf8').split('\n')[5]!.slice(finding!.column - 1)).toMatch(/^"#\/\$defs\/d0"\}/);
    const format = await timedRun(['-c', catalog, 'format', '--provider', 'gemini']);
    expect(format.ms).toBeLessThan(FAST_MS);
    expect(format.stderr).toContain('boom: not sent: inlining its $refs');
    const budget = await timedRun(['-c', catalog, 'budget', '--provider', 'gemini']);
    expect(budget.ms).toBeLessThan(FAST_MS);
    expect(budget.code).toBe(0);
  });

  it('in an imported file: import (which validates what it wrote) ends at once', async () => {
    const input = join(dir, 'tools.json');
    writeFileSync(input, JSON.stringify([{ type: 'function', function: { name: 'boom', description: 'Takes a value whose schema refers to itself many times over.', parameters: schema } }]));
    const run = await timedRun(['import', input, '-o', join(dir, 'imported.yaml')]);
    expect(run.ms).toBeLessThan(FAST_MS);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).toMatch(/validate: 0 errors, \d+ warnings/);
    const validate = await timedRun(['validate', join(dir, 'imported.yaml')]);
    expect(validate.ms).toBeLessThan(FAST_MS);
    expect(validate.stdout).toMatch(/TM0403 .*"boom".*inlining its \$refs/);
  });

  it('from an MCP server, live and then from its cached list with no server started', async () => {
    const served = mkdtempSync(join(tmpdir(), 'toolman-bomb-mcp-'));
    const starts = join(served, 'starts');
    writeFileSync(join(served, 'toolman.yaml'), `toolman: 1\nname: bomb\nmcp_servers:\n  bombs:\n${scripted('bomb', `    env: { STARTS_FILE: ${JSON.stringify(starts)} }\n`)}`);
    const env = { TOOLMAN_CACHE_DIR: join(served, 'cache'), XDG_STATE_HOME: join(join(served, 'cache'), '..', 'state') };
    const live = await timedRun(['list'], { cwd: served, env, bin: false });
    expect(live.ms).toBeLessThan(FAST_MS);
    expect(live.stdout).toContain('boom');
    for (const args of [['validate'], ['format', '--provider', 'gemini'], ['budget', '--provider', 'gemini']]) {
      const run = await timedRun(args, { cwd: served, env, bin: false });
      expect(run.ms, args.join(' ')).toBeLessThan(FAST_MS);
      expect(run.stdout + run.stderr, args.join(' ')).not.toContain('internal error');
      if (args[0] === 'validate') expect(run.stdout).toMatch(/TM0403 .*"boom".*inlining its \$refs/);
    }
    // One start: every later command used the cached list.
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a union bomb with an example: validate reports it as an error at once, and call refuses the catalog', async () => {
    const unions = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`d${i}`, i === 29 ? { type: 'object', properties: { fine: { type: 'string', description: 'fine' } }, additionalProperties: false } : { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}`, description: 'again' }] }]),
    );
    const file = join(dir, 'unions.yaml');
    writeFileSync(file, `toolman: 1\nname: unions\ntools:\n  - name: boom\n    description: Takes a value whose schema is a union of unions many times over.\n    parameters: ${JSON.stringify({ type: 'object', properties: { x: { $ref: '#/$defs/d0', description: 'the value' } }, $defs: unions })}\n    examples: [{ x: { stray: 1 } }]\n    handler: { mock: [ { result: ok } ] }\n`);
    const validate = await timedRun(['validate', file], { bin: true });
    expect(validate.ms).toBeLessThan(FAST_MS);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/error TM0301 tools\[0\] "boom": parameters\.properties\.x: \d+ subschemas applied to one value .* exponential time/);
    const call = await timedRun(['-c', file, 'call', 'boom', '--args', '{"x": {"stray": 1}}']);
    expect(call.ms).toBeLessThan(FAST_MS);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('exponential time');
  });
});
