import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/paths.js';
import { connectHttp } from './serve-client.js';
import { serveInProcess } from './serve-in-process.js';

const CATALOG = join(FIXTURES, 'catalogs', 'serve', 'limits.yaml');

// Every call in flight (and every call waiting for a slot) listens to the server's stop signal
// until it ends: past ten at once, Node warned of a leak that is none ("Possible EventTarget
// memory leak detected. 11 abort listeners added to [AbortSignal]"), on serve's stderr.
describe('toolman serve with many calls in flight', () => {
  it('runs 24 calls at once, and queues more, without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const served = await serveInProcess({ catalog: CATALOG, limits: { maxCallsPerSession: 24, maxCalls: 16 } });
    const { client } = await connectHttp(served.url);
    try {
      const results = await Promise.all(Array.from({ length: 24 }, () => client.callTool({ name: 'overlap', arguments: { ms: 100 } })));
      expect(results.every((r) => !r.isError)).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await client.close().catch(() => undefined);
      await served.close();
    }
  });
});
