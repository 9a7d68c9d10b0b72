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
 * short, or only the quote (`"NaN" is not valid JSON`). The offending character is shown as a
 * visible escape when it is a control character.
 */
export function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // The quote goes before the first line is taken: the text's own line breaks are in it
  // (`"sk\nSECRET"`), and its first line alone no longer looks like a quote.
  // A text that is only `NaN`, `Infinity` or `undefined` gets no reason but the quote: `"NaN" is not valid JSON`.
  const reason = message.replace(/(?:^|, )".*"(?:\.\.\.)? is not valid JSON$/s, '').split('\n')[0]!.replace(/^Unexpected/, 'unexpected').replace(/^Expected/, 'expected');
  return visibleText(reason || 'not a JSON value');
}
