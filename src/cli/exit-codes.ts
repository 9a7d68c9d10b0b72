import { ErrorCode, type ToolmanError } from '../shared/errors.js';

/**
 * toolman's exit codes, for every command (README, "Exit codes"):
 * 0 success (warnings allowed); 1 findings, or a command that ran and failed (a tool error, a
 * budget exceeded, a broken catalog refused); 2 usage errors, unreadable files, unknown tools or
 * profiles named on the command line, missing API keys, toolman's own runtime errors; 130 the
 * user interrupted a command that was running something (Ctrl-C, SIGTERM, SIGHUP).
 */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for each of toolman's own errors. */
const EXIT_FOR_ERROR: Record<ErrorCode, ExitCode> = {
  [ErrorCode.CATALOG_NOT_FOUND]: EXIT.USAGE,
  [ErrorCode.FILE_UNREADABLE]: EXIT.USAGE,
  [ErrorCode.CATALOG_INVALID]: EXIT.FAILURE,
  [ErrorCode.UNKNOWN_TOOL]: EXIT.USAGE,
  [ErrorCode.UNKNOWN_PROFILE]: EXIT.USAGE,
  [ErrorCode.INVALID_QUERY]: EXIT.USAGE,
  [ErrorCode.SELECTION]: EXIT.USAGE,
  [ErrorCode.PROVIDER]: EXIT.USAGE,
  [ErrorCode.BUDGET]: EXIT.FAILURE,
  [ErrorCode.USAGE]: EXIT.USAGE,
  [ErrorCode.MCP_SERVER]: EXIT.FAILURE,
};

export function exitCodeFor(error: ToolmanError): ExitCode {
  return EXIT_FOR_ERROR[error.code];
}
