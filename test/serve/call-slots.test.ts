import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CallSlots, SlotsFull } from '../../src/serve/call-slots.js';

describe('CallSlots', () => {
  it('lets a waiting call leave the queue when any of its signals aborts (the request or the server)', async () => {
    const slots = new CallSlots(1, 'for this test');
    const release = await slots.acquire([new AbortController().signal, new AbortController().signal]);
    const request = new AbortController();
    const shutdown = new AbortController();
    const waiting = slots.acquire([request.signal, shutdown.signal]);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    shutdown.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    // It left the queue and both signals: the next call gets the slot once it is free.
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    const next = slots.acquire(new AbortController().signal);
    release();
    (await next)();
    expect(slots.busy).toBe(false);
  });

  it('takes its listeners off every signal when a waiting call gets its slot', async () => {
    const slots = new CallSlots(1, 'for this test');
    const release = await slots.acquire(new AbortController().signal);
    const request = new AbortController();
    const shutdown = new AbortController();
    const waiting = slots.acquire([request.signal, shutdown.signal]);
    release();
    (await waiting)();
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('refuses at once when a signal has already aborted, and when too many wait', async () => {
    const slots = new CallSlots(1, 'for this test');
    await expect(slots.acquire([new AbortController().signal, AbortSignal.abort(new Error('gone'))])).rejects.toThrow('gone');
    await slots.acquire(new AbortController().signal);
    const queued = Array.from({ length: 4 }, () => slots.acquire(new AbortController().signal));
    await expect(slots.acquire(new AbortController().signal)).rejects.toBeInstanceOf(SlotsFull);
    expect(queued).toHaveLength(4);
  });
});

describe('CallSlots.take', () => {
  it('gives a free slot at once, none when all are held or someone waits', async () => {
    const slots = new CallSlots(1, 'for this test');
    const release = slots.take();
    expect(release).toBeTypeOf('function');
    expect(slots.take()).toBeUndefined();
    const waiting = slots.acquire(new AbortController().signal);
    release!();
    // The slot went to the call that waited, not to a newcomer.
    expect(slots.take()).toBeUndefined();
    (await waiting)();
    expect(slots.take()).toBeTypeOf('function');
  });
});
