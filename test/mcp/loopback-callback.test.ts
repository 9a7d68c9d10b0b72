import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackCallback } from '../../src/mcp/oauth/loopback-callback.js';

// The browser step's redirect target (src/mcp/oauth/loopback-callback.ts).

const open: LoopbackCallback[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start() {
  const callback = await LoopbackCallback.start();
  open.push(callback);
  return callback;
}

describe('the loopback callback', () => {
  it('takes only the answer carrying the state it waits for, and echoes nothing', async () => {
    const callback = await start();
    expect(callback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const waited = callback.wait('s-1');
    const forged = await fetch(`${callback.redirectUrl}?code=evil&state=other&error_description=%3Cscript%3E`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).not.toContain('script');
    const real = await fetch(`${callback.redirectUrl}?code=good&state=s-1`);
    expect(real.status).toBe(200);
    expect((await waited).get('code')).toBe('good');
  });

  it('a newer sign-in ends the one still waiting at once (not after its 5 minutes), and takes the answer', async () => {
    const callback = await start();
    const first = callback.wait('old');
    const second = callback.wait('new');
    await expect(first).rejects.toThrow('a newer sign-in replaced this one');
    expect((await fetch(`${callback.redirectUrl}?code=c&state=old`)).status).toBe(400);
    expect((await fetch(`${callback.redirectUrl}?code=c2&state=new`)).status).toBe(200);
    expect((await second).get('code')).toBe('c2');
  });

  it('gives up after its timeout, saying how to try again', async () => {
    const callback = await start();
    await expect(callback.wait('s', undefined, 50)).rejects.toThrow('no answer from the browser within 0 s');
  });
});
