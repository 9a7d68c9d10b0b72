import type { LoopEvent, TurnSummary } from '../loop/loop-events.js';
import { RedactingStream, redactValue, type SecretSet } from '../shared/secrets.js';

/**
 * The one redacted stream of a conversation's events: every driver (the REPL, one-shot chat,
 * `--events`, transcripts, the test runner, sub-agents) gets what this passes on. Streamed text
 * is held back just enough that a secret cut between two deltas is still caught; what is held is
 * let out before the next event of the round and at the end of the turn, so text and events keep
 * their order.
 */
export class RedactedEvents {
  private readonly text: RedactingStream;

  constructor(
    private readonly secrets: SecretSet,
    private readonly deliver: (event: LoopEvent) => void,
  ) {
    this.text = new RedactingStream(secrets);
  }

  push(event: LoopEvent): void {
    if (event.type === 'text') {
      const delta = this.text.push(event.delta);
      if (delta) this.deliver({ ...event, delta });
      return;
    }
    const round = event.type === 'done' ? event.rounds : 'round' in event && typeof event.round === 'number' ? event.round : undefined;
    if (round !== undefined) this.flush(round);
    this.deliver(redactValue(event, this.secrets, { type: 'warning', message: 'an event was not shown: it held a secret' }));
  }

  /** Text still held back (a turn that ended without its done event). */
  flush(round: number): void {
    const rest = this.text.end();
    if (rest) this.deliver({ type: 'text', round, delta: rest });
  }
}

/** A turn's summary as drivers report it (answer, calls' arguments and results): redacted like its events. */
export function redactSummary(summary: TurnSummary, secrets: SecretSet): TurnSummary {
  return redactValue(summary, secrets, { ...summary, answer: '[redacted]', calls: [], message: 'the summary held a secret' });
}
