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
