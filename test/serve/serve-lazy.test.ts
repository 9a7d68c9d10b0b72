import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { modernRequest } from './modern-client.js';
import { startHttp } from './serve-client.js';

// `toolman serve` does not wait for the catalog's MCP servers when it starts: tools come from the
// tool-list cache, a server starts on the first call of one of its tools, and the gateway lists
// prompts and resources only when a client first asks. A server made slow (it sleeps before it
// answers anything; a 2025-11-25 server, which toolman waits for up to the entry's timeout_ms)
// shows it: serve is ready long before the server could be.

const MODERN_SERVER = join(FIXTURES, 'mcp', 'servers', 'modern-server.mjs');
const SLOW_MS = 8_000;

describe('serve starts its upstream servers lazily', () => {
  it('answers tools/list from the cache at once; the slow server starts on its first call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-lazy-'));
    const delay = join(dir, 'delay');
    const starts = join(dir, 'starts');
    // A wrapper that records each start, sleeps when told to, then is the v2 fixture server.
    const wrapper = join(dir, 'slow.mjs');
    writeFileSync(
      wrapper,
      `import { appendFileSync, existsSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(starts)}, 'start\\n');\nif (existsSync(${JSON.stringify(delay)})) await new Promise((r) => setTimeout(r, Number(readFileSync(${JSON.stringify(delay)}, 'utf8'))));\nprocess.argv = [process.argv[0], ${JSON.stringify(MODERN_SERVER)}, 'stdio'];\nawait import(${JSON.stringify(MODERN_SERVER)});\n`,
    );
    const catalog = join(dir, 'lazy.yaml');
    writeFileSync(catalog, `toolman: 1\nname: lazy\nmcp_servers:\n  slow:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(wrapper)}]\n    prefix: s_\n    protocol: legacy\n    timeout_ms: 30000\n`);
    const env = { TOOLMAN_CACHE_DIR: join(dir, 'cache'), XDG_STATE_HOME: join(join(dir, 'cache'), '..', 'state') };
    // The first listing fills the tool-list cache (the server is fast then).
    const listed = await runBin(['-c', catalog, 'list'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(readFileSync(starts, 'utf8')).toBe('start\n');

    writeFileSync(delay, String(SLOW_MS));
    const began = Date.now();
    const served = await startHttp([], env, catalog);
    try {
      const ready = Date.now() - began;
      const tools = await modernRequest(served.url, 'tools/list');
      const listedAt = Date.now() - began;
      expect((tools.response?.result?.tools as { name: string }[]).map((t) => t.name)).toContain('s_echo');
      // Serving and listing took less than the server's sleep alone: serve did not wait for it.
      expect(listedAt, `ready after ${ready} ms`).toBeLessThan(SLOW_MS);
      expect(readFileSync(starts, 'utf8')).toBe('start\n');
      // The first call starts it, waits for it, and runs.
      const call = await modernRequest(served.url, 'tools/call', { name: 's_echo', arguments: { text: 'hi' } });
      expect(call.response?.result?.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
      expect(readFileSync(starts, 'utf8')).toBe('start\nstart\n');
      expect(Date.now() - began).toBeGreaterThanOrEqual(SLOW_MS);
      // Prompts are listed once a client asks (the server runs now: at once).
      const prompts = await modernRequest(served.url, 'prompts/list');
      expect((prompts.response?.result?.prompts as { name: string }[]).map((p) => p.name)).toContain('s_greet');
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  }, 90_000);
});
