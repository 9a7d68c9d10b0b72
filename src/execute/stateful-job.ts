import type { Tool } from '../catalog/types.js';
import type { SecretSet } from '../shared/secrets.js';
import { timerDelay } from '../shared/timers.js';
import { ToolFailure, type YieldStream } from './runner.js';
import { serialise } from './serialise.js';
import { cutStrategy } from './shorten-result.js';
import { estimateTokens, truncateResult } from './truncate.js';
import type { ErrorKind } from './types.js';

/**
 * The bounds of a stateful job (besides the tool's `timeout_ms`, its total time). The generator
 * runs ahead of the model by at most `maxUnread` yields, then waits until they are read, so a job
 * holds at most that many (each at most the tool's result limit). `job_next` waits for news
 * `defaultWaitMs` unless asked otherwise, at most `maxWaitMs`; at most `maxInbox` sent values wait
 * for the generator.
 */
export const STATEFUL_LIMITS = { maxUnread: 32, defaultWaitMs: 10_000, maxWaitMs: 60_000, maxInbox: 16 } as const;

export type JobStatus = 'running' | 'done' | 'failed' | 'stopped';

/** One yield as the model reads it: numbered from 1, cut to the tool's result limit like a result. */
export interface JobYield {
  n: number;
  value: unknown;
  truncated?: true;
  original_tokens?: number;
}

/** What a job says when it is read (its first answer, job_next, job_stop). */
export interface JobReport {
  job_id: string;
  tool: string;
  status: JobStatus;
  yields: JobYield[];
  /** The generator's return value, once it has ended and every yield was read. */
  result?: unknown;
  /** Why it failed (once every yield was read). */
  error?: string;
  error_kind?: ErrorKind;
  /** Yields waiting beyond this answer's size limit. */
  more?: number;
  note?: string;
}

/** A change a display shows: a yield came, the job ended. Text is redacted already. */
export interface JobUpdate {
  job_id: string;
  tool: string;
  status: JobStatus;
  /** Yields so far, and of them not read by the model yet. */
  yields: number;
  unread: number;
  /** The latest yield (or the end's result or error), as text, at most 200 characters. */
  latest?: string;
}

/** What a job needs from its executor: the limits and the secrets its results are cut and scrubbed with. */
export interface JobShaping {
  /** Tokens (estimated) one yield may take: the tool's `max_result_tokens`, within `budget.per_result`. */
  maxTokens: number;
  secrets: SecretSet;
}

type Shaped = Omit<JobYield, 'n'> & { text: string };

/** Kept free in each answer for what wraps the yields (job id, tool, status, note), so the whole answer stays within the tool's limit. */
const ENVELOPE_TOKENS = 80;

/**
 * A `mode: stateful` call's generator, run as a job of the session: started by the call, which
 * answers with its first yield; then read with `job_next` (each read returns what came since, in
 * order, and the end once everything before it was read) and stopped with `job_stop`, its time
 * limit or the session's end. Yields are shaped as results are: secrets redacted, each cut to the
 * tool's limit with its truncation.
 */
export class StatefulJob {
  status: JobStatus = 'running';
  readonly startedAt = performance.now();
  finishedAt: number | undefined;
  private readonly unread: (JobYield & { text: string })[] = [];
  private readonly inbox: unknown[] = [];
  private yielded = 0;
  private end: { result: Shaped } | { error: string; kind: ErrorKind } | undefined;
  /** Readers waiting for news, and the pump waiting for room. */
  private readonly waiters = new Set<() => void>();
  private roomFreed: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly first: { resolve(first: JobYield | undefined): void; promise: Promise<JobYield | undefined> };

  constructor(
    readonly id: string,
    readonly tool: Tool,
    private readonly stream: YieldStream,
    /** Aborts the signal the runner got: stop, time limit, the session's end. */
    private readonly controller: AbortController,
    private readonly shaping: JobShaping,
    private readonly onUpdate: (update: JobUpdate) => void,
  ) {
    let resolve!: (first: JobYield | undefined) => void;
    const promise = new Promise<JobYield | undefined>((r) => (resolve = r));
    this.first = { promise, resolve };
    this.timer = setTimeout(() => void this.halt('failed', { error: `${tool.name} did not finish within ${tool.timeoutMs} ms and was stopped`, kind: 'timeout' }), timerDelay(tool.timeoutMs));
    this.timer.unref();
    void this.pump();
  }

  /**
   * The first yield (read by the call that started the job), or undefined when the job ended
   * before yielding. Resolves when it comes, or when `signal` aborts (the job is then stopped).
   */
  private async firstYield(signal: AbortSignal): Promise<JobYield | undefined> {
    if (signal.aborted) await this.stop('cancelled');
    const onAbort = () => void this.stop('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.first.promise;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The answer of the call that started the job: its first yield with the job id, or, when it
   * ended without yielding, its end (a result, or the failure); cancelled with `signal`.
   */
  async firstAnswer(signal: AbortSignal): Promise<{ ok: true; value: unknown } | { ok: false; kind: ErrorKind; message: string }> {
    const first = await this.firstYield(signal);
    if (signal.aborted) return { ok: false, kind: 'cancelled', message: `${this.tool.name} was cancelled` };
    if (first) return { ok: true, value: { job_id: this.id, tool: this.tool.name, yields: [first], note: 'call job_next with this job_id for the rest (job_stop stops it)' } };
    const report = await this.read(0, signal);
    if (report.status === 'failed' || report.status === 'stopped') return { ok: false, kind: report.error_kind ?? 'tool_error', message: report.error ?? `${this.tool.name} was stopped` };
    return { ok: true, value: report };
  }

  /**
   * What came since the last read, in order, at most the tool's result limit (the rest stays for
   * the next read, `more`); waits up to `waitMs` when nothing is new (`until: 'next'`) or until the
   * job has ended (`until: 'end'`). The end (result or error) comes once every yield before it was read.
   */
  async read(waitMs: number, signal: AbortSignal, until: 'next' | 'end' = 'next'): Promise<JobReport> {
    const deadline = performance.now() + waitMs;
    // `next`: until anything is new; `end`: until the job has ended (or its unread yields fill the cap).
    const waiting = () => this.status === 'running' && (until === 'next' ? this.unread.length === 0 : this.unread.length < STATEFUL_LIMITS.maxUnread);
    while (waiting() && !signal.aborted && performance.now() < deadline) await this.news(deadline - performance.now(), signal);
    const taken: JobYield[] = [];
    let tokens = 0;
    while (this.unread.length > 0) {
      const next = this.unread[0]!;
      const size = estimateTokens(next.text);
      if (taken.length > 0 && tokens + size > this.room()) break;
      this.unread.shift();
      tokens += size;
      const { text: _text, ...shown } = next;
      taken.push(shown);
    }
    // Room again: the generator may run ahead.
    if (this.unread.length < STATEFUL_LIMITS.maxUnread) this.wakeRoom();
    this.updated();
    return this.report(taken);
  }

  /** A value for the generator: what one of its next `yield`s evaluates to, in order. */
  send(value: unknown): string | undefined {
    if (this.status !== 'running') return `${this.id} has ended (${this.status}); nothing was sent`;
    if (this.inbox.length >= STATEFUL_LIMITS.maxInbox) return `${this.id} already has ${STATEFUL_LIMITS.maxInbox} values waiting to be taken; nothing was sent`;
    this.inbox.push(value);
    return undefined;
  }

  /** Stops the job (the generator returns, its finally blocks run) and gives what it yielded that was not read. */
  async stop(why: 'stopped' | 'cancelled' | 'closed' = 'stopped'): Promise<JobReport> {
    if (this.status === 'running') await this.halt('stopped', why === 'stopped' ? undefined : { error: why === 'cancelled' ? `${this.tool.name} was cancelled` : 'the session ended', kind: 'cancelled' });
    return this.read(0, new AbortController().signal);
  }

  /** For job_status: where the job is, without reading it. */
  summary(): { job_id: string; tool: string; status: JobStatus; running_ms: number; yields: number; unread: number } {
    return { job_id: this.id, tool: this.tool.name, status: this.status, running_ms: Math.round((this.finishedAt ?? performance.now()) - this.startedAt), yields: this.yielded, unread: this.unread.length };
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        if (this.unread.length >= STATEFUL_LIMITS.maxUnread) await new Promise<void>((resolve) => (this.roomFreed = resolve));
        if (this.status !== 'running') return;
        const step = await this.stream.next(this.inbox.shift());
        if (this.status !== 'running') return;
        if (step.done) {
          this.finish('done', { result: this.shape(step.value) });
          return;
        }
        const item = { n: ++this.yielded, ...this.shape(step.value) };
        if (item.n === 1) {
          const { text: _text, ...shown } = item;
          this.first.resolve(shown);
        } else {
          this.unread.push(item);
        }
        this.updated(item.text);
        this.wakeReaders();
      }
    } catch (error) {
      // The tool failed (or yielded what JSON cannot hold): it is over, and whatever still runs of it stops.
      if (this.status === 'running') await this.halt('failed', { error: this.failure(error), kind: 'tool_error' });
    }
  }

  /** Ends the job from outside (stop, time limit, the session's end): the generator is stopped. */
  private async halt(status: 'stopped' | 'failed', end?: { error: string; kind: ErrorKind }): Promise<void> {
    if (this.status !== 'running') return;
    this.finish(status, end);
    this.controller.abort(new Error(end?.error ?? `${this.id} was stopped`));
    try {
      await this.stream.stop();
    } catch {
      // stopping is best effort: the job is over either way
    }
  }

  private finish(status: Exclude<JobStatus, 'running'>, end?: { result: Shaped } | { error: string; kind: ErrorKind }): void {
    this.status = status;
    this.finishedAt = performance.now();
    this.end = end;
    clearTimeout(this.timer);
    this.first.resolve(undefined);
    this.wakeRoom();
    this.wakeReaders();
    this.updated(end && 'result' in end ? end.result.text : end?.error);
  }

  private report(yields: JobYield[]): JobReport {
    const report: JobReport = { job_id: this.id, tool: this.tool.name, status: this.status, yields };
    if (this.unread.length > 0) {
      report.more = this.unread.length;
      report.note = `${this.unread.length} more waiting: call job_next again`;
      return report;
    }
    if (this.end && 'result' in this.end) {
      report.result = this.end.result.value;
      if (this.end.result.truncated) report.note = `the result was truncated (${this.end.result.original_tokens} tokens)`;
    } else if (this.end) {
      report.error = this.end.error;
      report.error_kind = this.end.kind;
    } else if (this.status === 'running') {
      report.note = yields.length ? `${this.tool.name} is still running: call job_next for what comes next, job_stop to stop it` : `nothing new yet; ${this.tool.name} is still running: call job_next again, or job_stop to stop it`;
    }
    return report;
  }

  /**
   * A value as the model gets it: redacted, then cut to the tool's limit with its truncation; JSON
   * stays JSON where the cut keeps it so. A yield is never summarised (`summarize` cuts with
   * `smart`): a job may yield many times, and a side-model call per yield would cost the turn more
   * than the reading saves.
   */
  private shape(value: unknown): Shaped {
    const serialised = serialise(value);
    if (!serialised.ok) throw new ToolFailure(`${this.tool.name} yielded a value that is not JSON: ${serialised.reason}`);
    const redacted = this.shaping.secrets.redact(serialised.text);
    const cut = truncateResult(redacted, this.room(), cutStrategy(this.tool.truncation));
    const text = cut.text;
    let shown: unknown = text;
    if (typeof value !== 'string') {
      try {
        shown = JSON.parse(text);
      } catch {
        shown = text;
      }
    }
    return { value: shown, text, ...(cut.truncated ? { truncated: true as const, original_tokens: cut.originalTokens } : {}) };
  }

  /** Tokens the yields of one answer may take: the tool's limit less the envelope (at least 16). */
  private room(): number {
    return Math.max(16, this.shaping.maxTokens - ENVELOPE_TOKENS);
  }

  private failure(error: unknown): string {
    if (error instanceof ToolFailure) return this.shaping.secrets.redact(error.message);
    return this.shaping.secrets.redact(`${this.tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  private news(waitMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timerDelay(waitMs));
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  private wakeReaders(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private wakeRoom(): void {
    const freed = this.roomFreed;
    this.roomFreed = undefined;
    freed?.();
  }

  private updated(latest?: string): void {
    try {
      this.onUpdate({ job_id: this.id, tool: this.tool.name, status: this.status, yields: this.yielded, unread: this.unread.length, ...(latest !== undefined ? { latest: latest.length > 200 ? `${latest.slice(0, 199)}…` : latest } : {}) });
    } catch {
      // a display's failure must not break the job
    }
  }
}
