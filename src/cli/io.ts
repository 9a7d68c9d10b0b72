/** What a command may touch of the outside world; tests pass a fake. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  cwd: string;
  env: Record<string, string | undefined>;
}

export const EXIT = {
  OK: 0,
  /** Findings (validate errors), or a command that ran and failed. */
  FAILURE: 1,
  /** Bad usage, unreadable files, or toolman's own runtime error. */
  USAGE: 2,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
}
