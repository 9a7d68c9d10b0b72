import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFetch } from '../../src/agents/a2a-fetch.js';

/** Two origins: `a` redirects as its path says, `b` records what reached it. */
let a: Server;
let b: Server;
let aUrl: string;
let bUrl: string;
const seen: { origin: 'a' | 'b'; path: string; headers: IncomingHttpHeaders }[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  a = createServer((req, res) => {
    seen.push({ origin: 'a', path: req.url!, headers: req.headers });
    if (req.url === '/away') res.writeHead(302, { location: `${bUrl}/landed` }).end();
    else if (req.url === '/here') res.writeHead(302, { location: '/landed' }).end();
    else if (req.url === '/big') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ blob: 'x'.repeat(5000) }));
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  b = createServer((req, res) => {
    seen.push({ origin: 'b', path: req.url!, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  [aUrl, bUrl] = await Promise.all([listen(a), listen(b)]);
});
afterAll(async () => {
  await Promise.all([new Promise((r) => a.close(r)), new Promise((r) => b.close(r))]);
});

const options = () => ({ agent: 'researcher', headers: { Authorization: 'Bearer secret-1', 'X-Api-Key': 'secret-2' }, trusted: new Set([aUrl]), maxBytes: 1000 });

describe('the fetch remote agents are called through', () => {
  it('sends the catalog\'s headers to a trusted origin, and keeps them on a same-origin redirect', async () => {
    seen.length = 0;
    const response = await agentFetch(options())(`${aUrl}/here`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(await response.json()).toEqual({ ok: true });
    expect(seen.map((s) => [s.origin, s.path, s.headers.authorization, s.headers['x-api-key']])).toEqual([
      ['a', '/here', 'Bearer secret-1', 'secret-2'],
      ['a', '/landed', 'Bearer secret-1', 'secret-2'],
    ]);
  });

  it('drops them on a redirect to another origin', async () => {
    seen.length = 0;
    await agentFetch(options())(`${aUrl}/away`);
    expect(seen.map((s) => [s.origin, s.headers.authorization, s.headers['x-api-key']])).toEqual([
      ['a', 'Bearer secret-1', 'secret-2'],
      ['b', undefined, undefined],
    ]);
  });

  it('stops reading a body over the limit, and remembers why', async () => {
    const opts = options();
    const response = await agentFetch(opts)(`${aUrl}/big`);
    await expect(response.text()).rejects.toThrow(/over max_response_bytes \(1000\)/);
    expect(opts).toHaveProperty('failure');
  });
});
