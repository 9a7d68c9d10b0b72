import { spawn } from 'node:child_process';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { BIN, ROOT } from './paths.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `toolman` as a child process, as a user would. */
export function runBin(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs toolman in-process with a fake terminal; fast enough for property-based tests. */
export async function runMain(args: string[], options: { cwd?: string; env?: Record<string, string>; tty?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty ?? false },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.tty ?? false },
    cwd: options.cwd ?? ROOT,
    env: options.env ?? {},
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
