import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { catalogDir, EVERYTHING } from './helpers.js';

let server: ChildProcess;
let port: number;

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  port = await freePort();
  server = spawn(EVERYTHING, ['streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk;
      if (seen.includes('listening')) resolve();
    });
    server.once('exit', () => reject(new Error(`the HTTP server exited: ${seen}`)));
  });
});
afterAll(() => {
  server.kill();
});

it('reaches a streamable HTTP server: headers with secrets, list, call', async () => {
  const { dir, file } = catalogDir(`toolman: 1\nname: http\nmcp_servers:\n  web:\n    url: "http://127.0.0.1:${port}/mcp"\n    headers: { X-Api-Key: "\${env:WEB_TOKEN}" }\n    prefix: web_\n`);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off', WEB_TOKEN: 'tok-secret-123' }, requireValid: 'all' });
  try {
    expect(manager.mcpServers()[0]).toMatchObject({ source: 'live' });
    expect(manager.tool('web_echo').source).toMatchObject({ kind: 'mcp', server: 'web', tool: 'echo' });
    const session = await manager.session();
    const turn = await session.runTurn([{ id: '1', name: 'web_echo', arguments: { message: 'the key is tok-secret-123' } }]);
    expect(turn.responses[0]).toMatchObject({ ok: true });
    // Whatever comes back is scrubbed of the header's secret.
    expect(JSON.stringify(turn.responses[0])).toContain('[redacted]');
    expect(JSON.stringify(turn.responses[0])).not.toContain('tok-secret-123');
  } finally {
    await manager.close();
  }
});

it('reports an HTTP server that is not there, and a missing secret, as unavailable', async () => {
  const { dir, file } = catalogDir(`toolman: 1\nname: http\nmcp_servers:\n  gone:\n    url: "http://127.0.0.1:${await freePort()}/mcp"\n    timeout_ms: 3000\n  nokey:\n    url: "http://127.0.0.1:${port}/mcp"\n    headers: { Authorization: "Bearer \${env:MISSING_TOKEN}" }\n`);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' }, requireValid: false });
  try {
    const [gone, nokey] = manager.mcpServers();
    expect(gone).toMatchObject({ source: 'unavailable' });
    expect(gone!.error).toMatch(/MCP server "gone" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) failed to start/);
    expect(nokey).toMatchObject({ source: 'unavailable' });
    expect(nokey!.error).toContain('environment variable MISSING_TOKEN (in headers.Authorization) is not set');
  } finally {
    await manager.close();
  }
});
