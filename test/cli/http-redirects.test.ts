import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressClass } from '../../src/execute/runners/address-class.js';
import { runMain } from '../helpers/cli.js';

/**
 * An `http` handler whose service redirects the request inward: to the cloud metadata address, to
 * loopback, by address or by a name. Refused unless the catalog allows it; redirects that stay in
 * the same class still work.
 */
let server: Server;
let port = 0;
const reached: string[] = [];
/** An address of this machine outside loopback (its network interface), reached as the "outside" host. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !a.internal && addressClass(a.address) !== 'loopback')?.address;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    reached.push(`${req.headers.host}${url}`);
    if (url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (url === '/to-loopback') return void res.writeHead(302, { location: `http://127.0.0.1:${port}/inside` }).end();
    if (url === '/to-localhost') return void res.writeHead(307, { location: `http://localhost:${port}/inside` }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => void server.close());

function catalog(host: string, extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-redirects-'));
  const file = join(dir, 'catalog.yaml');
  const tool = (name: string, path: string) =>
    `  - name: ${name}\n    description: Calls the service, which redirects the request somewhere else.\n    effect: read\n    parameters: { type: object, properties: {} }\n    handler: { http: { url: "http://${host}:${port}${path}"${extra} } }\n`;
  writeFileSync(file, `toolman: 1\nname: redirects\ntools:\n${tool('metadata', '/to-metadata')}${tool('loopback', '/to-loopback')}${tool('localhost', '/to-localhost')}`);
  return file;
}

const env = { PATH: process.env.PATH ?? '', TOOLMAN_CACHE_DIR: 'off' };

describe('the http handler does not follow a redirect inward', () => {
  it('from loopback to the metadata address (link-local): refused before anything is sent there', async () => {
    const run = await runMain(['-c', catalog('127.0.0.1'), 'call', 'metadata'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('metadata refused a redirect to http://169.254.169.254: 169.254.169.254 is a link-local address, more private than 127.0.0.1 (loopback); the catalog can allow it with http.allow_private_redirects: true');
  });

  it('within one class (loopback to loopback, by address or by name) it is followed', async () => {
    const file = catalog('127.0.0.1');
    for (const name of ['loopback', 'localhost']) {
      const run = await runMain(['-c', file, 'call', name, '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(JSON.parse(run.stdout).responses[0].content)).toEqual({ at: '/inside' });
    }
  });

  it.runIf(outside !== undefined)('from this machine\'s network address to loopback, by address and by a name resolved as it connects: refused', async () => {
    const file = catalog(outside!);
    reached.length = 0;
    const literal = await runMain(['-c', file, 'call', 'loopback'], { env });
    expect(literal.code).toBe(1);
    expect(literal.stderr).toContain(`refused a redirect to http://127.0.0.1:${port}: 127.0.0.1 is a loopback address, more private than ${outside}`);
    const named = await runMain(['-c', file, 'call', 'localhost'], { env });
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(new RegExp(`refused a redirect to http://localhost:${port}: localhost \\((127\\.0\\.0\\.1|::1)\\) is a loopback address, more private than ${outside!.replace(/\./g, '\\.')}`));
    // Neither reached the inside.
    expect(reached.filter((r) => r.endsWith('/inside'))).toEqual([]);
  });

  it.runIf(outside !== undefined)('with allow_private_redirects: true the catalog lets it through', async () => {
    const run = await runMain(['-c', catalog(outside!, ', allow_private_redirects: true'), 'call', 'localhost', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(run.stdout).responses[0].content)).toEqual({ at: '/inside' });
  });
});
