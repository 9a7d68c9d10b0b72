import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { killMarkedProcesses, killProcessTree, runMarker } from '../execute/runners/process-tree.js';

/** How much of a server's stderr is kept for error messages (its end, where the reason usually is). */
const STDERR_TAIL_BYTES = 4096;
/** The largest single message a server may send before it is treated as broken (the SDK's buffer cap). */
const MAX_MESSAGE_BYTES = 16 << 20;
/** How long a closing server gets to exit after its stdin closes, before its tree is killed. */
export const EXIT_GRACE_MS = 300;
/** How long to wait for an exited server's pipes to close, so its last stderr lines are kept. */
const PIPE_GRACE_MS = 100;

/** How a server process ended, for messages: exit code or signal. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StdioProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

/** Every server process still running, so an exiting toolman can stop them (see `stopAllServers`). */
const running = new Set<StdioProcessTransport>();
/** Every server started and not yet closed by toolman: what they left behind is scanned for on exit. */
const started = new Set<StdioProcessTransport>();
let exitHookInstalled = false;

/**
 * The MCP stdio transport on a child process toolman controls itself, rather than the SDK's: the
 * tail of stderr and the exit status are kept for error messages (a server that dies at start says
 * why), and closing kills the whole process tree (`npx` starts the real server as a grandchild),
 * as exec handlers do. The server stays in toolman's process group, so a Ctrl-C at the terminal
 * reaches it too; a synchronous exit hook stops whatever is left when toolman exits.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  /** Why toolman stopped the server itself, when it did (said instead of its exit status). */
  stoppedBecause: string | undefined;
  private stderrTail = Buffer.alloc(0);
  private exitInfo: ProcessExit | undefined;
  private closed = false;
  private finished = false;
  private closing: Promise<void> | undefined;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  /** Resolves when the process itself has exited (and been reaped). */
  private readonly processGone: Promise<void>;
  private markGone!: () => void;

  /**
   * Put in the server's environment (`TOOLMAN_RUN`, as exec programs get): what it starts carries
   * it, so a daemon it detached into a session of its own is still found and stopped.
   */
  readonly marker: string;

  /**
   * How long `close` lets the server exit by itself after its stdin closes. A command that only
   * listed (`mcp tools`) sets it short: the server has nothing of the user's to save, and the
   * user should not wait for a slow exit after the listing is printed.
   */
  exitGraceMs = EXIT_GRACE_MS;

  constructor(private readonly options: StdioProcessOptions) {
    const [name, value] = runMarker();
    this.marker = `${name}=${value}`;
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.processGone = new Promise((resolve) => (this.markGone = resolve));
  }

  /** The end of what the server wrote to stderr, as text. */
  get stderr(): string {
    return this.stderrTail.toString('utf8').replace(/^\uFFFD/, '');
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    installExitHook();
    return new Promise((resolve, reject) => {
      const [markName, markValue] = this.marker.split('=') as [string, string];
      const child = spawn(this.options.command, [...this.options.args], { cwd: this.options.cwd, env: { ...this.options.env, [markName]: markValue }, shell: false, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
      this.child = child;
      running.add(this);
      started.add(this);
      child.once('spawn', () => resolve());
      child.once('error', (error: NodeJS.ErrnoException) => {
        const message = error.code === 'ENOENT' ? `program not found: ${this.options.command}` : error.code === 'EACCES' ? `not allowed to run ${this.options.command}` : error.message;
        const failure = new Error(message);
        if (!child.pid) {
          this.markGone();
          this.finish({ code: null, signal: null });
          reject(failure);
        } else this.onerror?.(failure);
      });
      child.once('exit', (code, signal) => {
        this.exitInfo ??= { code, signal };
        this.markGone();
        // Its last words on stderr may still be in the pipe: wait for it to close, briefly (a grandchild may hold it).
        const timer = setTimeout(() => this.finish({ code, signal }), PIPE_GRACE_MS);
        child.once('close', () => {
          clearTimeout(timer);
          this.finish({ code, signal });
        });
      });
      child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr!.on('data', (chunk: Buffer) => {
        const joined = Buffer.concat([this.stderrTail, chunk]);
        this.stderrTail = joined.length > STDERR_TAIL_BYTES ? joined.subarray(joined.length - STDERR_TAIL_BYTES) : joined;
      });
      // A server that exits while we write gives EPIPE: that is reported through its exit, not thrown.
      child.stdin!.on('error', () => undefined);
    });
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch {
      // A message past the cap cannot be read and the stream cannot be resynchronised: the server
      // is stopped (its calls fail with this reason), and started again for the next call.
      this.buffer.clear();
      this.stoppedBecause = `sent a message over ${MAX_MESSAGE_BYTES / (1 << 20)} MiB and was stopped`;
      this.onerror?.(new Error(`the server ${this.stoppedBecause}`));
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // One bad line (a log line on stdout, broken JSON) is reported, and reading goes on.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || this.exitInfo) {
        reject(new Error('the server is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Closes stdin (servers exit on end of input), then kills the tree if the server is still there. */
  close(): Promise<void> {
    // Every caller (the SDK's client, toolman) waits for the same stop.
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child && !this.exitInfo) {
      child.stdin?.end();
      const timer = new Promise<void>((resolve) => setTimeout(resolve, this.exitGraceMs).unref());
      await Promise.race([this.exited, timer]);
    }
    this.kill();
    // Waits for the kill to land, so nothing is left running (or unreaped) once close returns.
    if (child?.pid !== undefined) await Promise.race([this.processGone, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
    // What detached from the tree (a daemon in a session of its own) is found by the marker.
    if (child?.pid !== undefined) killMarkedProcesses(this.marker);
    started.delete(this);
    this.finish(this.exitInfo ?? { code: null, signal: 'SIGKILL' });
  }

  /** Kills the process and everything it started, at once (also what the exit hook does). */
  kill(): void {
    const pid = this.child?.pid;
    // Descendants are found through the parent while it lives, so the tree goes even after exit.
    if (pid !== undefined) killProcessTree(pid);
  }

  private finish(exit: ProcessExit): void {
    if (this.finished) return;
    this.finished = true;
    this.exitInfo ??= exit;
    running.delete(this);
    this.markExited();
    const onclose = this.onclose;
    this.onclose = undefined;
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    onclose?.();
  }
}

/** Kills every server process toolman still runs, and what they started (by marker): called on exit, synchronously. */
export function stopAllServers(): void {
  for (const transport of running) transport.kill();
  killMarkedProcesses([...started].map((t) => t.marker));
  running.clear();
  started.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', stopAllServers);
}

/** "exited with code 1", "was killed by SIGTERM": how a server ended, for messages. */
export function describeExit(exit: ProcessExit | undefined): string | undefined {
  if (!exit) return undefined;
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code !== null) return `exited with code ${exit.code}`;
  return undefined;
}
