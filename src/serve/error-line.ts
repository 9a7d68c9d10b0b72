import { oneLine } from '../shared/plain-text.js';

/** How much of an error's message one log line keeps. */
export const MOST_LOGGED_CHARACTERS = 300;

/**
 * An error met while serving, as one bounded line for the operator's log. Its message may carry
 * a client's input (the SDK reports a malformed JSON-RPC message with every zod issue, the client's
 * keys quoted: about 70 lines for one unknown key), and a client can send such messages as fast as
 * it likes: unbounded, they would flood standard error. Control characters go, whitespace runs
 * (newlines too) become one space, and what passes the bound is counted, not shown.
 */
export function errorLine(what: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const chars = Array.from(oneLine(message));
  const shown = chars.length <= MOST_LOGGED_CHARACTERS ? chars.join('') : `${chars.slice(0, MOST_LOGGED_CHARACTERS).join('')}… (${chars.length - MOST_LOGGED_CHARACTERS} more characters)`;
  return `${what}: ${shown}`;
}
