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

/** Starts the built `toolman` and lets the test watch its stderr and signal it. */
export function spawnBin(args: string[], options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env } as NodeJS.ProcessEnv,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let stdout = '';
  let stderr = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...watchers]) if (w.pattern.test(stderr) || w.pattern.test(stdout)) (watchers.splice(watchers.indexOf(w), 1), w.resolve());
  };
  child.stdout!.on('data', (chunk: Buffer) => ((stdout += chunk), check()));
  child.stderr!.on('data', (chunk: Buffer) => ((stderr += chunk), check()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr }));
  });
  return {
    child,
    done,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    /** Resolves when stdout or stderr matches; fails after 10 s with what was seen. */
    waitFor: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; stderr: ${stderr}`)), 10_000);
        watchers.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) });
        check();
      }),
  };
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
