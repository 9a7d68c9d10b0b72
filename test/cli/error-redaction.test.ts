import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';

/**
 * An error toolman reports may quote what an API or a proxy said, and that may be the key it was
 * sent. Whatever fails, the provider's key is never part of it (`processSecrets`, read as the key
 * is): here `budget --exact` and `tokens --exact` against a counting endpoint that echoes it.
 */
const KEY = 'sk-ant-error-redaction-key-77d0';
let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `you sent x-api-key ${req.headers['x-api-key']}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('budget --exact: the echoed key is redacted from the error, text and --json alike', async () => {
  const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: url };
  for (const json of [[], ['--json']]) {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', 'budget', '-P', 'anthropic', '--exact', ...json], { env });
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('[redacted]');
    expect(run.stdout + run.stderr).not.toContain(KEY);
  }
});
