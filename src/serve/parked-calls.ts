import { randomBytes } from 'node:crypto';
import type { CallAsker, ElicitAnswer, ElicitRequest } from '../manager/mcp-client.js';
import { QUESTION_TIMEOUT_MS } from './relayed-questions.js';

/** A question an upstream server asked during a call, waiting for its answer. */
export interface OpenQuestion {
  request: ElicitRequest;
  answer(answer: ElicitAnswer): void;
}

export type CallStep<T> = { kind: 'questions'; questions: OpenQuestion[] } | { kind: 'done'; value: T } | { kind: 'failed'; error: unknown };

/**
 * A call (a `tools/call`, `prompts/get` or `resources/read` that serve forwards) run in the
 * background, stopping when its upstream server asks something: `next()` gives the questions
 * asked (those asked together, in one round, come together) or the call's end. A 2026-07-28
 * client is answered `input_required` at a stop, and its retry answers the questions.
 */
export class AskingCall<T> {
  private readonly steps: CallStep<T>[] = [];
  private waiter: ((step: CallStep<T>) => void) | undefined;
  readonly controller = new AbortController();
  /** Questions declined because the client could not answer them: said in the call's error. */
  readonly unanswered: ElicitRequest[] = [];

  constructor(start: (asker: CallAsker, signal: AbortSignal) => Promise<T>) {
    const asker: CallAsker = (request, signal) =>
      new Promise<ElicitAnswer>((resolve) => {
        let settled = false;
        const settle = (answer: ElicitAnswer) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        };
        const onAbort = () => settle({ action: 'cancel' });
        if (signal.aborted) return settle({ action: 'cancel' });
        signal.addEventListener('abort', onAbort, { once: true });
        this.push({ request, answer: settle });
      });
    start(asker, this.controller.signal).then(
      (value) => this.deliver({ kind: 'done', value }),
      (error: unknown) => this.deliver({ kind: 'failed', error }),
    );
  }

  /** The next stop: questions, or the end. Questions asked in the same round are gathered first. */
  async next(): Promise<CallStep<T>> {
    const step = this.steps.shift() ?? (await new Promise<CallStep<T>>((resolve) => (this.waiter = resolve)));
    if (step.kind !== 'questions') return step;
    // A server that asks several things in one round has them asked at once: let them arrive.
    await new Promise((resolve) => setImmediate(resolve));
    const more = this.steps[0]?.kind === 'questions' ? (this.steps.shift() as { questions: OpenQuestion[] }).questions : [];
    return { kind: 'questions', questions: [...step.questions, ...more] };
  }

  private push(question: OpenQuestion): void {
    const last = this.steps.at(-1);
    if (last?.kind === 'questions') last.questions.push(question);
    else this.deliver({ kind: 'questions', questions: [question] });
  }

  private deliver(step: CallStep<T>): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(step);
    else this.steps.push(step);
  }
}

interface Parked {
  principal: string;
  call: AskingCall<unknown>;
  questions: OpenQuestion[];
  timer: ReturnType<typeof setTimeout>;
}

export interface ParkedLimits {
  /** Calls waiting for answers at once, over all clients. */
  max: number;
  /** ...and per principal. */
  perPrincipal: number;
  timeoutMs: number;
}

export const DEFAULT_PARKED_LIMITS: ParkedLimits = { max: 256, perPrincipal: 16, timeoutMs: QUESTION_TIMEOUT_MS };

/**
 * Calls of 2026-07-28 clients waiting for the answer to an upstream server's question, by an id
 * of 16 random bytes that only the sealed `requestState` carries. A call waits at most
 * `timeoutMs`: then its questions are cancelled, the call is stopped and forgotten, and a retry
 * is told it is gone. A full table (or a principal's full share) parks nothing: the caller
 * declines the questions instead, so no client can hold more of serve than its share.
 */
export class ParkedCalls {
  private readonly parked = new Map<string, Parked>();

  constructor(
    private readonly limits: ParkedLimits = DEFAULT_PARKED_LIMITS,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  park(principal: string, call: AskingCall<unknown>, questions: OpenQuestion[]): string | undefined {
    let mine = 0;
    for (const entry of this.parked.values()) if (entry.principal === principal) mine++;
    if (this.parked.size >= this.limits.max || mine >= this.limits.perPrincipal) return undefined;
    const id = randomBytes(16).toString('base64url');
    const timer = setTimeout(() => {
      if (!this.parked.delete(id)) return;
      this.log(`a call waited ${Math.round(this.limits.timeoutMs / 1000)} s for the client's answer to an MCP server's question; cancelled`);
      for (const question of questions) question.answer({ action: 'cancel' });
      call.controller.abort(new Error('the client did not answer the MCP server\'s question in time'));
    }, this.limits.timeoutMs);
    timer.unref();
    this.parked.set(id, { principal, call, questions, timer });
    return id;
  }

  /** The waiting call with this id, when it is the principal's; it is no longer parked. */
  take(id: string, principal: string): { call: AskingCall<unknown>; questions: OpenQuestion[] } | undefined {
    const entry = this.parked.get(id);
    if (!entry || entry.principal !== principal) return undefined;
    this.parked.delete(id);
    clearTimeout(entry.timer);
    return { call: entry.call, questions: entry.questions };
  }

  get size(): number {
    return this.parked.size;
  }

  /** Serve stops: every waiting call is cancelled. */
  close(): void {
    for (const entry of this.parked.values()) {
      clearTimeout(entry.timer);
      for (const question of entry.questions) question.answer({ action: 'cancel' });
      entry.call.controller.abort(new Error('toolman serve is shutting down'));
    }
    this.parked.clear();
  }
}
