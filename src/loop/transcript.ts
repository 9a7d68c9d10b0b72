import { join } from 'node:path';
import { appendToOutputFile, prepareOutputFile } from '../shared/output-file.js';
import type { SecretSet } from '../shared/secrets.js';
import type { LoopEvent } from './loop-events.js';

/**
 * A session's transcript: one JSON line per event, appended as it happens (synchronously, so a
 * process that dies keeps everything up to that moment). Streamed text is written once per reply,
 * not per delta. Every line passes through the session's secret redaction.
 */
export class TranscriptWriter {
  private text = '';
  private round = 0;

  constructor(
    readonly file: string,
    private readonly secrets: SecretSet,
    header: Record<string, unknown>,
  ) {
    prepareOutputFile(file, '--transcript', 'append');
    this.line({ type: 'session', version: 1, started: new Date().toISOString(), ...header });
  }

  write(event: LoopEvent): void {
    if (event.type === 'text') {
      this.text += event.delta;
      this.round = event.round;
      return;
    }
    // The reply's text goes in before what follows it.
    if (this.text) this.flush();
    this.line(event);
  }

  /** A line of the driver's own (a slash command, a note). */
  note(entry: Record<string, unknown>): void {
    this.flush();
    this.line(entry);
  }

  private flush(): void {
    if (!this.text) return;
    this.line({ type: 'assistant_text', round: this.round, text: this.text });
    this.text = '';
  }

  private line(value: unknown): void {
    appendToOutputFile(this.file, this.secrets.redact(JSON.stringify({ at: Date.now(), ...(value as object) })) + '\n');
  }
}

/**
 * Where transcripts go by default: $XDG_DATA_HOME/toolman/transcripts, else
 * ~/.local/share/toolman/transcripts, from the environment given; none when neither is set.
 */
export function defaultTranscriptPath(env: Record<string, string | undefined>, now = new Date()): string | undefined {
  const base = env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'toolman') : env.HOME ? join(env.HOME, '.local', 'share', 'toolman') : undefined;
  if (!base) return undefined;
  const stamp = now.toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  return join(base, 'transcripts', `${stamp}-${process.pid}.jsonl`);
}
