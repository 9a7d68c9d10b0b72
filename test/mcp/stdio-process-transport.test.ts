import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_GRACE_MS, StdioProcessTransport } from '../../src/mcp/stdio-process-transport.js';
import { NODE, SERVERS } from './helpers.js';

/** Starts the scripted server that takes 5 s to exit once its stdin closes, and times `close`. */
async function closeTime(exitGraceMs?: number): Promise<number> {
  const transport = new StdioProcessTransport({ command: NODE, args: [join(SERVERS, 'scripted-server.mjs'), 'slow-exit'], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' } });
  if (exitGraceMs !== undefined) transport.exitGraceMs = exitGraceMs;
  await transport.start();
  // Let the process come up, so the close times the grace, not the start.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  await transport.close();
  return performance.now() - started;
}

describe('closing a stdio server that exits slowly', () => {
  it('waits the grace it is given, then stops the server: a listing waits 50 ms, not 300 (issue 24)', async () => {
    const usual = await closeTime();
    const listing = await closeTime(50);
    expect(usual).toBeGreaterThanOrEqual(EXIT_GRACE_MS - 5);
    expect(usual).toBeLessThan(5000);
    expect(listing).toBeLessThan(usual);
  }, 20_000);
});
