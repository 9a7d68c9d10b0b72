import { linearRegExp, type LinearRegExp } from '../shared/linear-regexp.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';

/** Longest pattern accepted; a model (or a user) sending more is almost certainly wrong. */
export const MAX_PATTERN_LENGTH = 200;

/**
 * Compiles a search pattern with RE2 semantics (re2js, a port of Google's RE2): matching takes
 * time linear in the input whatever the pattern, so no pattern a model sends can hang toolman
 * (no backtracking, no look-around or back-references). Case-insensitive.
 */
export function compilePattern(pattern: string): LinearRegExp {
  if (pattern.length === 0) throw new ToolmanError(ErrorCode.INVALID_QUERY, 'the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new ToolmanError(ErrorCode.INVALID_QUERY, `the pattern is ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH} are accepted`);
  }
  try {
    return linearRegExp(pattern, { ignoreCase: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    throw new ToolmanError(ErrorCode.INVALID_QUERY, `invalid pattern ${JSON.stringify(pattern)}: ${message}`, {
      hint: 'patterns use RE2 syntax: no look-around (?=...) and no back-references \\1',
    });
  }
}
