import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { catalogDir, NODE, SERVERS } from './helpers.js';

/** Processes whose command line contains `marker` (Linux: /proc). */
function running(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

const waitUntil = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 50));
  return check();
};

describe.runIf(process.platform === 'linux')('a stdio MCP server that leaves a daemon behind', () => {
  it('the daemon (its own session, detached) is stopped when toolman ends, as exec programs\' are', async () => {
    const marker = `${1000 + Math.floor(Math.random() * 1000)}.${process.pid}7`;
    const { dir } = catalogDir(`toolman: 1\nname: daemons\nmcp_servers:\n  leaver:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(SERVERS, 'scripted-server.mjs'))}, daemon, "${marker}"]\n`);
    const run = await runBin(['list'], { cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('say');
    expect(await waitUntil(() => running(marker) === 0)).toBe(true);
  });
});
