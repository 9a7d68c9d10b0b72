import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';
import { callCommand } from '../../src/cli/commands/call.js';

// What `call` and `mcp call` tell the person at the terminal (issue 19, rough edges).
const EXECUTOR = ['--catalog', 'test/fixtures/catalogs/executor.yaml'];
const EVERYTHING = join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');

describe('call and mcp call speak to the person, in one voice', () => {
  it('call without a tool suggests a tool of the catalog given, with that catalog', async () => {
    const run = await runBin(['-c', 'catalogs/coding.yaml', 'call']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('toolman: error: name the tool to call, or pass --batch FILE');
    const hint = /hint: (.*)/.exec(run.stderr)?.[1] ?? '';
    // Before: "toolman call search_email ...", a tool coding.yaml does not have.
    expect(hint).not.toContain('search_email');
    expect(hint).toMatch(/^toolman -c catalogs\/coding\.yaml call (\w+)/);
    const suggested = /call (\w+)/.exec(hint)![1]!;
    const show = await runBin(['-c', 'catalogs/coding.yaml', 'show', suggested]);
    expect(show.code, show.stderr).toBe(0);
    expect(hint).toContain('`toolman -c catalogs/coding.yaml list` shows all 18 tools');
  });

  it('a declined call says why it did not run, not the sentence meant for the model', async () => {
    const run = await runBin([...EXECUTOR, 'call', 'remove_record', '--args', '{"key": "a"}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('declined: remove_record is destructive and needs confirmation; pass --yes to approve when there is no terminal\n');
    let err = '';
    const code = await callCommand(
      { tool: 'remove_record', args: '{"key": "b"}', catalog: ['test/fixtures/catalogs/executor.yaml'], ask: async () => 'n' },
      { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, cwd: ROOT, env: {} },
    );
    expect(code).toBe(1);
    expect(err).toBe('declined: you declined; remove_record was not run\n');
    // --json keeps the record as it is: what the model would be told.
    const json = await runBin([...EXECUTOR, 'call', 'remove_record', '--args', '{"key": "a"}', '--json']);
    expect(JSON.parse(json.stdout).responses[0]).toMatchObject({ ok: false, error_kind: 'declined', content: expect.stringContaining('the user declined') });
  });

  it('mcp call names the server\'s tools closest to a misspelled one', async () => {
    const run = await runBin(['mcp', 'call', 'get-sun', '--args', '{"a":1,"b":2}', '--', EVERYTHING]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('toolman: error: the server has no tool "get-sun"; did you mean "get-sum"?');
  });

  it('commander\'s usage errors and toolman\'s own share one prefix', async () => {
    for (const args of [['call', '--bogus'], ['nosuchcommand'], ['format', '-P', 'nope'], ['show']]) {
      const run = await runBin(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^toolman: error: /);
      expect(run.stderr).not.toMatch(/^error: /m);
    }
    const own = await runBin([...EXECUTOR, 'call', 'lookup', '--args', '{"limit": 3}']);
    expect(own.stderr).toBe('toolman: error: invalid arguments for lookup: missing required argument "key"\n');
  });
});
