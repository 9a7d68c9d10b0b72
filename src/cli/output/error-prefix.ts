/**
 * How every error toolman itself reports begins on standard error: its own failures, commander's
 * usage errors (rewritten from commander's bare `error:`) and a failed call's error, so a script
 * or a person can tell toolman's errors from a tool's output by one prefix.
 */
export const ERROR_PREFIX = 'toolman: error:';
