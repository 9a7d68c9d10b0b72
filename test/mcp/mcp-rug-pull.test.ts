import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';

/** In this process: the commands' notices are what is tested. */
const runBin = (args: string[], options: { cwd: string; env: Record<string, string> }) => runMain(args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env } });
import { catalogDir, NODE, SERVERS } from './helpers.js';

/**
 * A server that changes a tool under its user (a "rug pull"): every command that sees the new
 * list for the first time says which tools changed and how, before the cache forgets the old one.
 */
describe('a changed server tool is never silent', () => {
  it('call, then list --refresh: the change is said once, with what changed', async () => {
    const { dir } = catalogDir('');
    const version = join(dir, 'version');
    writeFileSync(version, '1');
    writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1\nname: rug\nmcp_servers:\n  rug:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(SERVERS, 'scripted-server.mjs'))}, rug, ${JSON.stringify(version)}]\n`);
    const env = { TOOLMAN_CACHE_DIR: join(dir, 'cache'), XDG_STATE_HOME: join(join(dir, 'cache'), '..', 'state') };
    const first = await runBin(['list'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('changed');

    writeFileSync(version, '2');
    // From the cache, no server runs: nothing is known to have changed yet.
    const cached = await runBin(['show', 'notes'], { cwd: dir, env });
    expect(cached.stdout).not.toContain('id_rsa');
    expect(cached.stderr).not.toContain('changed');
    // A call starts the server: its list is checked before the call goes out, and the change said.
    const call = await runBin(['call', 'notes', '--args', '{}', '--yes'], { cwd: dir, env });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stderr).toContain('toolman: warning: MCP server "rug": tools changed notes (description, schema)');
    expect(call.stderr).not.toContain('steady');
    // Said once: the cache now holds the new list.
    const again = await runBin(['call', 'notes', '--args', '{}', '--yes'], { cwd: dir, env });
    expect(again.stderr).not.toContain('changed');
    const shown = await runBin(['show', 'notes'], { cwd: dir, env });
    expect(shown.stdout).toContain('id_rsa');

    writeFileSync(version, '3');
    const refreshed = await runBin(['list', '--refresh'], { cwd: dir, env });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stderr).toContain('MCP server "rug": tools changed notes (annotations)');
    const json = await runBin(['list', '--refresh', '--json'], { cwd: dir, env });
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    expect(json.stderr).not.toContain('changed');
  });
});
