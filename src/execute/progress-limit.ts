import type { RunContext } from './runner.js';

/** A progress message longer than this is cut (an MCP server or a remote agent decides its length). */
export const MAX_PROGRESS_CHARS = 1_000;
/** Progress events a call may send at once before the rate below applies. */
export const PROGRESS_BURST = 20;
/** ...and then at most this many a second; messages in between are coalesced into the latest. */
export const PROGRESS_PER_SECOND = 10;

export interface LimitedProgress {
  progress: RunContext['progress'];
  /** The call is over: a message still waiting is dropped (the result follows). */
  close(): void;
}

/**
 * Progress from a source toolman does not control (an MCP server's notifications, a remote
 * agent's status updates), bounded before it becomes events, transcripts, `--events` lines and
 * `serve`'s notifications: each message cut to MAX_PROGRESS_CHARS, and a token bucket per call
 * (PROGRESS_BURST at once, then PROGRESS_PER_SECOND): past it, messages are coalesced into the
 * latest, sent when the next token comes. An ordinary server's or agent's handful of updates pass
 * as they are; 300 messages of 100 KB become about 20 of 1,000 characters, then ten a second.
 */
export function limitProgress(progress: RunContext['progress'], burst = PROGRESS_BURST, perSecond = PROGRESS_PER_SECOND): LimitedProgress {
  let tokens = burst;
  let refilled = Date.now();
  let pending: Parameters<RunContext['progress']> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const refill = () => {
    const now = Date.now();
    tokens = Math.min(burst, tokens + ((now - refilled) * perSecond) / 1000);
    refilled = now;
  };
  const flush = () => {
    timer = undefined;
    if (closed || !pending) return;
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      const args = pending;
      pending = undefined;
      progress(...args);
    } else timer = setTimeout(flush, Math.ceil(((1 - tokens) * 1000) / perSecond));
  };
  return {
    progress(message, detail) {
      if (closed) return;
      const text = message.length > MAX_PROGRESS_CHARS ? `${message.slice(0, MAX_PROGRESS_CHARS)}… (${message.length - MAX_PROGRESS_CHARS} more characters)` : message;
      pending = detail === undefined ? [text] : [text, detail];
      if (!timer) flush();
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
