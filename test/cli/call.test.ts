import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnBin, runBin, runMain } from '../helpers/cli.js';

const executor = ['--catalog', 'test/fixtures/catalogs/executor.yaml'];
const dir = mkdtempSync(join(tmpdir(), 'toolman-call-'));
const batch = (calls: unknown) => {
  const file = join(dir, `batch-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(calls));
  return file;
};

describe('toolman call', () => {
  it('runs one call and prints the result', async () => {
    const run = await runBin([...executor, 'call', 'lookup', '--args', '{"key": "user-1"}']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ kind: 'user', key: 'user-1' });
  });

  it('prints the documented JSON', async () => {
    const run = await runBin([...executor, 'call', 'lookup', '--args', '{"key": "a"}', '--json']);
    expect(JSON.parse(run.stdout)).toEqual({
      responses: [{ id: 'c1', name: 'lookup', tool: 'lookup', ok: true, content: expect.any(String), error: null, error_kind: null, deduplicated: false, truncated: false, original_tokens: null, duration_ms: expect.any(Number) }],
      took_control: null,
    });
  });

  it('reads arguments from a file, and reports invalid arguments with exit 1', async () => {
    const args = join(dir, 'args.json');
    writeFileSync(args, '{"limit": 3}');
    const run = await runBin([...executor, 'call', 'lookup', '--args-file', args]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: invalid arguments for lookup: missing required argument "key"');
  });

  it('declines destructive tools without a terminal or --yes, and runs them with --yes', async () => {
    const declined = await runBin([...executor, 'call', 'remove_record', '--args', '{"key": "a"}']);
    expect(declined.code).toBe(1);
    expect(declined.stderr).toMatch(/declined: remove_record is destructive and needs confirmation; pass --yes/);
    const approved = await runBin([...executor, 'call', 'remove_record', '--args', '{"key": "a"}', '--yes']);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ deleted: 'a' });
  });

  it('asks on the terminal when there is one', async () => {
    const yes = await runMain([...executor, 'call', 'remove_record', '--args', '{"key": "a"}'].slice(0), {});
    expect(yes.code).toBe(1);
    const { callCommand } = await import('../../src/cli/commands/call.js');
    let asked = '';
    let out = '';
    const code = await callCommand(
      { tool: 'remove_record', args: '{"key": "b"}', catalog: ['test/fixtures/catalogs/executor.yaml'], ask: async (q) => ((asked = q), 'y') },
      { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, cwd: process.cwd(), env: {} },
    );
    expect(code).toBe(0);
    expect(asked).toMatch(/remove_record is destructive\. Run remove_record \{"key":"b"\}\? \[y\/N\]/);
    expect(JSON.parse(out)).toEqual({ deleted: 'b' });
  });

  it('--batch exercises de-duplication, the cap and the take-control guard', async () => {
    const calls = [
      { id: 'a', name: 'lookup', arguments: { key: 'x', limit: 1 } },
      { id: 'b', name: 'lookup', arguments: { limit: 1, key: 'x' } },
      ...Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, name: 'lookup', arguments: { key: `k${i}` } })),
    ];
    const run = await runBin([...executor, 'call', '--batch', batch(calls), '--json']);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.responses[1]).toMatchObject({ id: 'b', deduplicated: true, ok: true });
    expect(doc.responses.filter((r: { error_kind: string }) => r.error_kind === 'over_limit').map((r: { id: string }) => r.id)).toEqual(['k9']);
    const control = await runBin([...executor, 'call', '--batch', batch([{ name: 'takeover' }, { name: 'fast_safe' }]), '--json']);
    expect(JSON.parse(control.stdout).responses.map((r: { error_kind: string }) => r.error_kind)).toEqual(['must_run_alone', 'must_run_alone']);
    const alone = await runBin([...executor, 'call', 'takeover', '--json']);
    expect(JSON.parse(alone.stdout).took_control).toBe('takeover');
  });

  it('runs deferred tools the user names, but never removed ones', async () => {
    expect((await runBin([...executor, 'call', 'hidden'])).code).toBe(0);
    const removed = await runBin(['--catalog', 'catalogs/assistant.yaml', 'call', 'delete_email', '--args', '{"message_ids": ["m"]}', '--yes']);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(/not available in this session \(policy: no-bulk-delete: deny delete_email\)/);
  });

  it('explains usage errors with exit 2 and no stack trace', async () => {
    for (const args of [['call'], ['call', 'lookup', '--args', '{nope'], ['call', 'lookup', '--batch', 'x.json'], ['call', '--batch', 'missing.json']]) {
      const run = await runBin([...executor, ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/toolman: error:/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const unknown = await runBin([...executor, 'call', 'lookpu']);
    // A tool named on the command line that does not exist is a usage error, as for `show`.
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no tool named "lookpu"; did you mean "lookup"/);
  });

  it('shows each call\'s status and progress with --verbose', async () => {
    const run = await runBin([...executor, 'call', 'counter', '--verbose']);
    expect(run.stderr).toMatch(/\[c1\] counter: queued[\s\S]*validating[\s\S]*running[\s\S]*progress call 1[\s\S]*done \d/);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`exits 130 when interrupted (${signal}) while a tool runs, cancelling it`, async () => {
      const child = spawnBin([...executor, 'call', 'wait_long', '--verbose']);
      await child.waitFor(/wait_long: running/);
      child.kill(signal);
      const run = await child.done;
      expect(run.code).toBe(130);
      expect(run.stderr).toMatch(/wait_long: cancelled/);
      expect(run.stderr).toMatch(/interrupted: the running calls were cancelled/);
    });
  }
});
