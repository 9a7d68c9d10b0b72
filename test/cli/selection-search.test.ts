import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { realData } from '../helpers/real-data.js';

const selection = ['--catalog', 'test/fixtures/catalogs/selection.yaml'];

describe('toolman list --profile --explain', () => {
  it('prints the documented JSON: profile and per tool state, step and rule', async () => {
    const run = await runBin([...selection, 'list', '--profile', 'coding', '--force', 'git_log', '--explain', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.profile).toBe('coding');
    expect(doc.forced).toEqual(['git_log']);
    expect(doc.tools).toHaveLength(10);
    expect(doc.tools).toContainEqual({ name: 'git_log', state: 'active', step: 'forced', rule: 'forced by the user' });
    expect(doc.tools).toContainEqual({ name: 'git_push', state: 'deferred', step: 'defer', rule: 'defer: category:git' });
    expect(doc.tools).toContainEqual({ name: 'delete_file', state: 'removed', step: 'policy', rule: 'no-deletes: deny delete_file' });
  });

  it('shows a table with a summary line, and only selected tools without --explain', async () => {
    const explained = await runMain([...selection, 'list', '-p', 'coding', '--explain']);
    expect(explained.stdout).toMatch(/│ admin_reset\s+│ removed\s+│ profile\s+│ exclude: admin_\*/);
    expect(explained.stdout).toContain('profile coding: 3 active, 3 deferred, 4 removed');
    const plain = await runMain([...selection, 'list', '-p', 'coding', '--json']);
    expect(JSON.parse(plain.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'write_file', 'git_log', 'git_push', 'web_search', 'status']);
  });

  it('explains an unknown profile or a bad --force with exit 2', async () => {
    const profile = await runBin([...selection, 'list', '-p', 'codng']);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toMatch(/no profile named "codng"; did you mean "coding"/);
    const force = await runBin([...selection, 'list', '--force', 'delete_file']);
    expect(force.code).toBe(2);
    expect(force.stderr).toMatch(/cannot force "delete_file": it is removed by policy/);
  });
});

describe('toolman profiles', () => {
  it('lists profiles with counts, built-ins included', async () => {
    const run = await runMain([...selection, 'profiles', '--json']);
    const doc = JSON.parse(run.stdout);
    expect(doc.profiles.map((p: { name: string }) => p.name)).toEqual(['coding', 'reviewer', 'ops', 'full', 'minimal']);
    expect(doc.profiles.find((p: { name: string }) => p.name === 'reviewer')).toMatchObject({ extends: ['coding'], active: 3, deferred: 3, forced: ['read_file'], builtin: false });
    expect(doc.profiles.find((p: { name: string }) => p.name === 'full')).toMatchObject({ builtin: true, default: true });
    const text = await runMain([...selection, 'profiles']);
    expect(text.stdout).toMatch(/full \(default\) \*/);
  });
});

describe('toolman search', () => {
  it('prints the documented JSON with scores and matched fields', async () => {
    const run = await runBin(['--catalog', 'catalogs/large.yaml', 'search', 'refund a payment', '--limit', '3', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.query).toBe('refund a payment');
    expect(doc.results).toHaveLength(3);
    expect(doc.results[0]).toMatchObject({ name: 'billing_refund_payment', score: expect.any(Number), matched: expect.arrayContaining(['name']) });
    // Unquoted words are one query, as a new user types them.
    const unquoted = await runBin(['--catalog', 'catalogs/large.yaml', 'search', 'refund', 'a', 'payment', '--limit', '3', '--json']);
    expect(JSON.parse(unquoted.stdout)).toEqual(doc);
  });

  it('searches only what a profile reaches with --profile', async () => {
    const run = await runMain([...selection, 'search', 'file', '--profile', 'ops', '--json']);
    expect(JSON.parse(run.stdout).results).toEqual([]);
  });

  it('supports --regex and rejects bad patterns and limits with exit 2', async () => {
    const run = await runMain(['--catalog', 'catalogs/large.yaml', 'search', '--regex', '^mon_', '--json']);
    expect(JSON.parse(run.stdout).results.every((r: { name: string }) => r.name.startsWith('mon_'))).toBe(true);
    const bad = await runBin(['--catalog', 'catalogs/large.yaml', 'search', '--regex', '(a']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid pattern/);
    expect((await runBin(['--catalog', 'catalogs/large.yaml', 'search', 'x', '--limit', 'lots'])).stderr).toMatch(/--limit must be a whole number/);
  });
});

describe('toolman eval search', () => {
  it('prints metrics overall and per category, with per-case rankings in JSON', async () => {
    const run = await runBin(['--catalog', 'catalogs/large.yaml', 'eval', 'search', '--cases', 'test/fixtures/eval/large-cases.jsonl', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.metrics.cases).toBe(5);
    expect(Object.keys(doc.by_category)).toEqual(['billing', 'calendar', 'git']);
    expect(doc.cases[0]).toMatchObject({ id: 'c1', ranked: expect.any(Array) });
    expect(doc.cases[0].ranked.length).toBeLessThanOrEqual(10);
    expect(doc.cases[1].ranked[0]).toBe('billing_refund_payment');
    expect(doc.unknown_gold).toEqual(['no_such_tool']);
    const text = await runBin(['--catalog', 'catalogs/large.yaml', 'eval', 'search', '--cases', 'test/fixtures/eval/large-cases.jsonl']);
    expect(text.stdout).toMatch(/│ all\s+│ 5\s+│/);
    expect(text.stderr).toMatch(/1 gold names are not in the catalog/);
  });

  it('names the line of a malformed case file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-eval-'));
    writeFileSync(join(dir, 'bad.jsonl'), '{"query": "x", "gold": ["a"]}\n{"query": 1}\n');
    const run = await runBin(['--catalog', 'catalogs/large.yaml', 'eval', 'search', '--cases', join(dir, 'bad.jsonl')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad.jsonl:2: each line needs "query"/);
  });

  it('[real data] on the pooled BFCL catalog stays at or above the measured quality', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-bfcl-'));
    expect((await runMain(['import', realData('bfcl', 'functions.json'), '-o', join(dir, 'bfcl.yaml')])).code).toBe(0);
    const run = await runMain(['--catalog', join(dir, 'bfcl.yaml'), 'eval', 'search', '--cases', realData('bfcl', 'queries.dev.jsonl'), '--json']);
    const { metrics, unknown_gold } = JSON.parse(run.stdout);
    expect(unknown_gold).toEqual([]);
    expect(metrics.cases).toBe(1251);
    // Measured: R@1 62.5, R@5 85.2, R@10 90.4 (docs/search.md); a drop means a regression.
    expect(metrics.recall_at_1).toBeGreaterThanOrEqual(62);
    expect(metrics.recall_at_5).toBeGreaterThanOrEqual(85);
    expect(metrics.recall_at_10).toBeGreaterThanOrEqual(90);
  });
});

describe('toolman search input errors', () => {
  it('refuses an empty query', async () => {
    const run = await runBin(['--catalog', 'catalogs/large.yaml', 'search', ' ']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the search query is empty/);
  });
});
