import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { catalogDir, NODE, scripted, SERVERS } from './helpers.js';

/**
 * A server given a secret through its entry's `env` that echoes it into its tool list (title,
 * description, an enum value, a default): the list is redacted as it arrives, so no command shows
 * it, sends it to a model, serves it or writes it into the cache.
 */
const SECRET = 'sk-live-9f8e7d6c5b4a3f2e1d0c';

describe('an MCP server that echoes a secret into its tool list', () => {
  const { dir } = catalogDir(`toolman: 1\nname: leaks\nmcp_servers:\n  leaky:\n${scripted('echo-secret', '    env: { API_KEY: "${env:MY_KEY}" }\n')}`);
  const env = { MY_KEY: SECRET, TOOLMAN_CACHE_DIR: join(dir, 'cache'), XDG_STATE_HOME: join(join(dir, 'cache'), '..', 'state') };

  it('show, list, format and the cache never hold it', async () => {
    for (const args of [['show', 'leaky'], ['list', '--json'], ['format', '--provider', 'openai'], ['format', '--provider', 'gemini'], ['show', 'leaky', '--json']]) {
      const run = await runMain(args, { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout + run.stderr, args.join(' ')).not.toContain(SECRET);
      expect(run.stdout + run.stderr, args.join(' ')).toContain('[redacted]');
    }
    const folder = join(dir, 'cache', 'mcp-tools');
    const entries = readdirSync(folder);
    expect(entries).toHaveLength(1);
    const stored = readFileSync(join(folder, entries[0]!), 'utf8');
    expect(stored).toContain('[redacted]');
    expect(stored).not.toContain(SECRET);
  });

  it('toolman mcp tools and import --mcp (a server named on the command line) redact it too', async () => {
    const server = ['--', NODE, join(SERVERS, 'scripted-server.mjs'), 'echo-secret'];
    const tools = await runMain(['mcp', 'tools', '--env', 'API_KEY', '--json', ...server], { cwd: dir, env: { PATH: process.env.PATH ?? '', API_KEY: SECRET } });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('[redacted]');
    expect(tools.stdout + tools.stderr).not.toContain(SECRET);
    const imported = await runBin(['import', '--mcp', '--env', 'API_KEY', ...server], { cwd: dir, env: { API_KEY: SECRET } });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('[redacted]');
    expect(imported.stdout + imported.stderr).not.toContain(SECRET);
  });
});
