import type { YieldStream } from './runner.js';
import { ToolFailure } from './runner.js';
import { delay } from '../shared/timers.js';

/** A stateful tool's run written out: what a mock case or a suite's stub says it yields. */
export interface ScriptedRun {
  yields: readonly unknown[];
  /** The return value, once every yield was read (unless `error`). */
  result?: unknown;
  /** Fail with this message after the yields. */
  error?: string;
  /** Before each yield and before the end. */
  latencyMs?: number;
}

/**
 * A stream over a scripted run, paced as a generator would be: each step waits `latencyMs`
 * (cancelled by `signal` or `stop()`), then yields the next value, and after the last the run
 * returns its result or fails with its error.
 */
export function scriptedStream(run: ScriptedRun, signal: AbortSignal): YieldStream {
  const stopped = new AbortController();
  const both = AbortSignal.any([signal, stopped.signal]);
  let index = 0;
  let ended = false;
  return {
    async next(): Promise<IteratorResult<unknown, unknown>> {
      if (ended) return { done: true, value: undefined };
      if (run.latencyMs) await delay(run.latencyMs, both);
      if (index < run.yields.length) return { done: false, value: run.yields[index++] };
      ended = true;
      if (run.error !== undefined) throw new ToolFailure(run.error);
      return { done: true, value: run.result ?? null };
    },
    async stop(): Promise<void> {
      ended = true;
      stopped.abort(new Error('the job was stopped'));
    },
  };
}
