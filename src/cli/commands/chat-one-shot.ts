import type { Conversation } from '../../conversation/conversation.js';
import type { LoopEvent, TurnSummary } from '../../loop/loop-events.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { ERROR_PREFIX } from '../output/error-prefix.js';
import { plainText } from '../output/terminal-text.js';
import type { ChatOptions } from './chat.js';

/*
 * `toolman chat` without the REPL: the prompts of a run, each turn printed as it happens (text on
 * stdout, calls and notes on stderr; or events as JSON lines), the one-shot JSON document, and
 * the exit code a turn gives.
 */

/**
 * The prompts of a one-shot run: --prompt, else a replay's recorded messages, else standard
 * input. Undefined when interrupted while reading.
 */
export async function promptsFor(options: ChatOptions, given: string[], recorded: readonly string[]): Promise<string[] | undefined> {
  if (given.length) return given;
  if (recorded.length) return [...recorded];
  if (options.stdinIsTerminal) {
    throw new ToolmanError(ErrorCode.USAGE, `${options.json ? '--json' : options.events ? '--events' : 'one turn'} needs a prompt: give it with --prompt "..." or pipe it in`, { hint: 'without --json and --events, toolman chat on a terminal starts the REPL' });
  }
  let piped = '';
  try {
    piped = (await options.readStdin?.())?.trim() ?? '';
  } catch (error) {
    if (options.signal?.aborted) return undefined;
    throw error;
  }
  if (!piped) throw new ToolmanError(ErrorCode.USAGE, 'no prompt: give one with --prompt "..." or pipe it in', { hint: 'or run toolman chat on a terminal for the interactive REPL' });
  return [piped];
}

/** One turn without a terminal: the answer as text, one JSON document, or events as JSON lines. Events come redacted. */
export async function oneShotTurn(conversation: Conversation, prompt: string, options: ChatOptions, io: CliIO): Promise<TurnSummary> {
  const c = palette(colorEnabled(io, io.stderr));
  const text = (s: string) => (io.stdout.isTTY ? plainText(s) : s);
  const name = (s: string) => plainText(s);
  let wroteText = false;
  const onEvent = (event: LoopEvent) => {
    if (options.events) {
      io.stdout.write(JSON.stringify(event) + '\n');
      return;
    }
    // --json: stdout is the one document at the end; warnings (a replay's differences, notices) still go to stderr.
    if (options.json) {
      if (event.type === 'warning') io.stderr.write(c.yellow(`warning: ${name(event.message)}\n`));
      return;
    }
    switch (event.type) {
      case 'text':
        io.stdout.write(text(event.delta));
        wroteText = true;
        return;
      case 'tool_calls':
        if (wroteText) io.stdout.write('\n');
        wroteText = false;
        for (const call of event.calls) io.stderr.write(c.dim(`→ ${name(call.tool)}(${name(preview(call.arguments))})\n`));
        return;
      case 'tool_status':
        if (event.status === 'awaiting_approval') io.stderr.write(c.yellow(`? ${name(event.name)} needs approval (${name(event.reason)}): ${options.yes ? 'approved by --yes' : 'declined (no terminal; --yes approves)'}\n`));
        return;
      case 'tool_result': {
        const r = event.response;
        // A decline says what decided it, in the user's terms: the error text is the sentence meant for the model.
        if (r.error_kind === 'declined') io.stderr.write(c.yellow(`⊘ ${name(r.tool)} declined: ${options.yes ? 'it was not run' : 'it needs approval and there is no terminal to ask; --yes approves'}\n`));
        else if (r.ok) {
          const notes = [r.summarized ? 'summarized' : r.truncated ? 'truncated' : '', r.references?.length ? `${r.references.length} source${r.references.length === 1 ? '' : 's'}` : ''].filter(Boolean);
          io.stderr.write(c.dim(`✓ ${name(r.tool)} ${r.duration_ms} ms${notes.length ? ` (${notes.join(', ')})` : ''}\n`));
        } else io.stderr.write(c.red(`✗ ${name(r.tool)}: ${name(r.error ?? '')}\n`));
        return;
      }
      case 'evaluations':
        for (const v of event.verdicts) {
          const subject = `evaluation ${name(v.name)}${v.on === 'result' ? ` on ${name(v.tools.join(', '))}'s result` : ''}`;
          const reason = v.reason ? `: ${name(v.reason)}` : '';
          io.stderr.write(v.verdict === 'pass' ? c.green(`✓ ${subject} passed\n`) : v.verdict === 'fail' ? c.red(`✗ ${subject} failed${reason}\n`) : c.yellow(`? ${subject} could not be decided${reason}\n`));
        }
        return;
      case 'search':
        io.stderr.write(c.dim(`tool search found: ${name(event.activated.join(', '))}\n`));
        return;
      case 'retry':
        io.stderr.write(c.yellow(`retrying in ${(event.wait_ms / 1000).toFixed(1)} s (attempt ${event.attempt}${event.status ? `, HTTP ${event.status}` : ''}): ${name(event.reason)}\n`));
        return;
      case 'warning':
        io.stderr.write(c.yellow(`warning: ${name(event.message)}\n`));
        return;
      case 'error':
        io.stderr.write(`${c.red(ERROR_PREFIX)} ${name(event.message)}\n${event.hint ? `  ${c.dim('hint:')} ${name(event.hint)}\n` : ''}`);
        return;
      case 'done':
        if (wroteText) io.stdout.write('\n');
        if (event.stop === 'took_control' && !wroteText && event.answer) io.stdout.write(text(event.answer) + '\n');
        // An error's message was printed with its `error` event: said once.
        if (event.stop === 'error') io.stderr.write(c.yellow('stopped (error)\n'));
        else if (event.stop !== 'done' && event.stop !== 'took_control' && event.message) io.stderr.write(c.yellow(`stopped (${event.stop}): ${name(event.message)}\n`));
        // What [n] in the answer points at: beside the answer, not in it (standard output stays the answer alone).
        if (event.references?.length) io.stderr.write(c.dim(`sources:\n${event.references.map((r) => `  [${r.n}] ${r.title ? `${name(r.title)} — ` : ''}${name(r.url)}`).join('\n')}\n`));
        return;
      default:
        return;
    }
  };
  return conversation.run(prompt, { ...(options.signal ? { signal: options.signal } : {}), onEvent });
}

/** The one-shot JSON document (README, "toolman chat"). */
export function summaryDocument(summary: TurnSummary, transcript: string | null): Record<string, unknown> {
  return {
    answer: summary.answer,
    stop: summary.stop,
    rounds: summary.rounds,
    calls: summary.calls,
    usage: summary.usage,
    took_control: summary.took_control,
    ...(summary.message ? { message: summary.message } : {}),
    references: summary.references,
    evaluations: summary.evaluations,
    transcript,
  };
}

export function exitFor(summary: TurnSummary, signal?: AbortSignal): ExitCode {
  if (summary.stop === 'cancelled' || signal?.aborted) return EXIT.INTERRUPTED;
  return summary.stop === 'done' || summary.stop === 'took_control' ? EXIT.OK : EXIT.FAILURE;
}

function preview(args: unknown): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
