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

export { EXIT, type ExitCode } from './exit-codes.js';
import { safeTerminal } from './output/terminal-text.js';

export function processIO(): CliIO {
  return { stdout: safeTerminal(process.stdout), stderr: safeTerminal(process.stderr), cwd: process.cwd(), env: process.env };
}
