import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../src/execute/cancellation.js';

describe('Cancellation', () => {
  it('follows its signals, calls each listener once, and unlinks', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { cancel, unlink } = Cancellation.linked([a.signal, b.signal]);
    const heard: string[] = [];
    cancel.onAbort(() => heard.push('one'));
    const remove = cancel.onAbort(() => heard.push('removed'));
    remove();
    b.abort('because');
    a.abort('later');
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('because');
    expect(heard).toEqual(['one']);
    unlink();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('makes its AbortSignal only when asked, already aborted when it was', () => {
    const { cancel } = Cancellation.linked([]);
    cancel.abort(new Error('stop'));
    const signal = cancel.signal;
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stop');
    const { cancel: live } = Cancellation.linked([]);
    const made = live.signal;
    expect(made.aborted).toBe(false);
    live.abort('now');
    expect(made.reason).toBe('now');
  });

  it('keeps no listener on NEVER, which never aborts', () => {
    for (let i = 0; i < 20; i++) Cancellation.NEVER.onAbort(() => undefined);
    Cancellation.NEVER.abort('no');
    expect(Cancellation.NEVER.aborted).toBe(false);
    expect(getEventListeners(Cancellation.NEVER.signal, 'abort')).toHaveLength(0);
  });

  it('is cancelled at once by a signal that had already aborted', () => {
    const { cancel } = Cancellation.linked([AbortSignal.abort('earlier')]);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('earlier');
  });
});

describe('Cancellation.linkedLater: listens from the next turn of the event loop (issue 24)', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('is cancelled at once by a signal that had already aborted', () => {
    const { cancel } = Cancellation.linkedLater([new AbortController().signal, AbortSignal.abort('earlier')]);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('earlier');
  });

  it('adds no listener within the turn; a signal aborted meanwhile cancels once the loop turns', async () => {
    const a = new AbortController();
    const { cancel } = Cancellation.linkedLater([a.signal]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    a.abort('meanwhile');
    expect(cancel.aborted).toBe(false);
    await nextTurn();
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('meanwhile');
  });

  it('listens once the loop has turned, and unlinks', async () => {
    const a = new AbortController();
    const { cancel, unlink } = Cancellation.linkedLater([a.signal]);
    await nextTurn();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    unlink();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    a.abort('after');
    expect(cancel.aborted).toBe(false);
  });

  it('never listens when unlinked within the turn (work that ended in it)', async () => {
    const a = new AbortController();
    const { unlink } = Cancellation.linkedLater([a.signal]);
    unlink();
    await nextTurn();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });
});

describe('afterThisTurn', () => {
  it('runs queued work once the loop turns, in order; past MOST_QUEUED at once, so a loop that never yields keeps no backlog', async () => {
    const { afterThisTurn, MOST_QUEUED } = await import('../../src/shared/after-this-turn.js');
    const ran: number[] = [];
    afterThisTurn(() => ran.push(1));
    afterThisTurn(() => ran.push(2));
    expect(ran).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([1, 2]);
    let count = 0;
    for (let i = 0; i < MOST_QUEUED * 3; i++) afterThisTurn(() => count++);
    expect(count).toBe(MOST_QUEUED * 3);
  });
});
