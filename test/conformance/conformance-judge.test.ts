import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conformanceRequired, describeFailures, judge, loadBaseline, readResults, type Check, type ScenarioResult } from '../helpers/conformance.js';

/**
 * The referee's referee: how a conformance leg's results are read and judged against a baseline.
 * If this were wrong, the conformance tests could pass whatever the server did.
 */
const dir = mkdtempSync(join(tmpdir(), 'toolman-conformance-judge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(id: string, status: Check['status'], errorMessage?: string): Check {
  return { id, name: id, status, ...(errorMessage ? { errorMessage } : {}) };
}

function scenario(name: string, checks: Check[]): [string, ScenarioResult] {
  return [name, { scenario: name, checks, failed: checks.filter((c) => c.status === 'FAILURE') }];
}

describe('judge', () => {
  const results = new Map([
    scenario('tools-list', [check('tools-list', 'SUCCESS'), check('wire-schema-valid', 'SUCCESS')]),
    scenario('server-stateless', [check('a', 'SUCCESS'), check('b', 'FAILURE', 'b broke'), check('c', 'FAILURE', 'c broke')]),
    scenario('prompts-get-simple', [check('prompts-get-simple', 'FAILURE', 'Unknown prompt')]),
    scenario('caching', [check('x', 'WARNING'), check('y', 'SKIPPED')]),
  ]);

  it('passes what the baseline covers, scenario-wide or check by check', () => {
    const verdict = judge(results, { 'prompts-get-simple': 'needs a fixture prompt', 'server-stateless:b': 'needs a fixture tool', 'server-stateless:c': 'needs a fixture tool' });
    expect(verdict.unexpected).toEqual([]);
    expect(verdict.fixed).toEqual([]);
    expect(verdict.absent).toEqual([]);
    // Warnings and skips are not failures.
    expect(verdict.passed.sort()).toEqual(['caching', 'tools-list']);
  });

  it('fails on a failing check the baseline does not name, keeping only that check', () => {
    const verdict = judge(results, { 'prompts-get-simple': 'needs a fixture prompt', 'server-stateless:b': 'needs a fixture tool' });
    expect(verdict.unexpected.map((r) => [r.scenario, r.failed.map((c) => c.id)])).toEqual([['server-stateless', ['c']]]);
    expect(describeFailures(verdict.unexpected)).toBe('server-stateless:\n  ✗ c: c broke');
  });

  it('fails on everything when the baseline is empty', () => {
    expect(judge(results, {}).unexpected.map((r) => r.scenario).sort()).toEqual(['prompts-get-simple', 'server-stateless']);
  });

  it('names baseline entries that pass now, and entries whose scenario did not run', () => {
    const verdict = judge(results, { 'tools-list': 'said to fail', 'server-stateless:a': 'said to fail', 'server-stateless:b': 'r', 'server-stateless:c': 'r', 'prompts-get-simple': 'r', 'resources-read-text': 'needs a fixture resource' });
    expect(verdict.fixed.sort()).toEqual(['server-stateless:a', 'tools-list']);
    expect(verdict.absent).toEqual(['resources-read-text']);
  });
});

describe('loadBaseline', () => {
  it('reads revisions of scenario: reason', () => {
    const file = join(dir, 'good.yml');
    writeFileSync(file, '2026-07-28:\n  tools-call-image: "needs the fixture tool test_image_content"\n2025-11-25: {}\n');
    expect(loadBaseline(file)).toEqual({ '2026-07-28': { 'tools-call-image': 'needs the fixture tool test_image_content' }, '2025-11-25': {} });
  });

  it('refuses an entry without a reason', () => {
    const file = join(dir, 'bare.yml');
    writeFileSync(file, '2026-07-28:\n  tools-call-image: ""\n');
    expect(() => loadBaseline(file)).toThrow(/tools-call-image: say why it may fail/);
    writeFileSync(file, '2026-07-28:\n  tools-call-image: 1\n');
    expect(() => loadBaseline(file)).toThrow(/say why/);
  });
});

describe('readResults', () => {
  it('reads every scenario\'s checks.json, nested names (auth/...) included, and ignores other folders', () => {
    const out = join(dir, 'leg');
    const write = (folder: string, checks: Check[]) => {
      mkdirSync(join(out, folder), { recursive: true });
      writeFileSync(join(out, folder, 'checks.json'), JSON.stringify(checks));
    };
    write('server-tools-list-2026-11-24T09-00-00-000Z', [check('tools-list', 'SUCCESS')]);
    write('server-caching-2026-11-24T09-00-02-000Z', [check('c', 'FAILURE', 'stale')]);
    write('notes', [check('n', 'FAILURE')]);
    const server = readResults(out, 'server');
    expect([...server.keys()].sort()).toEqual(['caching', 'tools-list']);
    expect(server.get('caching')!.failed.map((c) => c.id)).toEqual(['c']);
    // A client leg's folders have no side prefix; nested names (auth/...) are folders in folders.
    const client = join(dir, 'client-leg');
    mkdirSync(join(client, 'auth', 'metadata-default-2026-11-24T09-00-01-000Z'), { recursive: true });
    writeFileSync(join(client, 'auth', 'metadata-default-2026-11-24T09-00-01-000Z', 'checks.json'), JSON.stringify([check('m', 'FAILURE', 'no')]));
    mkdirSync(join(client, 'tools_call-2026-11-24T09-00-03-000Z'));
    writeFileSync(join(client, 'tools_call-2026-11-24T09-00-03-000Z', 'checks.json'), JSON.stringify([check('t', 'SUCCESS')]));
    expect([...readResults(client, 'client').keys()].sort()).toEqual(['auth/metadata-default', 'tools_call']);
    expect(readResults(client, 'client').get('auth/metadata-default')!.failed.map((c) => c.id)).toEqual(['m']);
    expect(readResults(join(dir, 'missing'), 'server').size).toBe(0);
  });
});

describe('conformanceRequired', () => {
  it('is required under CI (any CI value but empty, 0 or false) or when asked', () => {
    expect(conformanceRequired({ CI: 'true' })).toBe(true);
    expect(conformanceRequired({ CI: '1' })).toBe(true);
    expect(conformanceRequired({ TOOLMAN_CONFORMANCE: 'required' })).toBe(true);
    expect(conformanceRequired({})).toBe(false);
    expect(conformanceRequired({ CI: '' })).toBe(false);
    expect(conformanceRequired({ CI: '0' })).toBe(false);
    expect(conformanceRequired({ CI: 'false' })).toBe(false);
  });
});
