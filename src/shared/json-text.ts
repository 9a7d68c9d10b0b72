import { ErrorCode, ToolmanError } from './errors.js';
import { visibleText } from './plain-text.js';

/**
 * JSON from a file or an option, with an error that names where it came from. The parser's own
 * message quotes the start of the text (`"sk-live-…" is not valid JSON`), which may be a file the
 * user pointed at by mistake: that quote is dropped, the position kept. A leading byte-order mark
 * (Windows editors write one) is skipped.
 */
export function parseJsonText(text: string, label: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ToolmanError(ErrorCode.USAGE, `${label} is not valid JSON: ${jsonErrorReason(error)}`);
  }
}

/**
 * The parser's reason without its quote of the text: V8 writes `Unexpected token 's', "sk-live-ab"...
 * is not valid JSON` (the quote cut at ten characters, then `...`) or the whole text when it is
 * short. The offending character is shown as a visible escape when it is a control character.
 */
export function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return visibleText(message.replace(/, ".*"(?:\.\.\.)? is not valid JSON$/s, '').replace(/^Unexpected/, 'unexpected').replace(/^Expected/, 'expected'));
}
