/** toolman's own failures (not a tool's): typed, with a stable code and a hint that says how to fix. */

export const ErrorCode = {
  CATALOG_NOT_FOUND: 'CATALOG_NOT_FOUND',
  FILE_UNREADABLE: 'FILE_UNREADABLE',
  CATALOG_INVALID: 'CATALOG_INVALID',
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  UNKNOWN_PROFILE: 'UNKNOWN_PROFILE',
  INVALID_QUERY: 'INVALID_QUERY',
  SELECTION: 'SELECTION',
  PROVIDER: 'PROVIDER',
  BUDGET: 'BUDGET',
  USAGE: 'USAGE',
  /** An MCP server could not be started, reached or used. */
  MCP_SERVER: 'MCP_SERVER',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export class ToolmanError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly location: SourceLocation | undefined;

  constructor(code: ErrorCode, message: string, options: { hint?: string; location?: SourceLocation; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolmanError';
    this.code = code;
    this.hint = options.hint;
    this.location = options.location;
  }
}

export function isToolmanError(value: unknown): value is ToolmanError {
  return value instanceof ToolmanError;
}
