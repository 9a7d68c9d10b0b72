import { spawnSync } from 'node:child_process';
import { BIN, ROOT } from '../helpers/paths.js';

/**
 * The built binary in a real pseudo-terminal: a tmux server of its own (one socket per test
 * process), a session per run. tmux is required (CI installs it); TOOLMAN_SKIP_TMUX=1 skips the
 * tests that use it instead.
 */
export const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
export const skipTmux = !hasTmux && process.env.TOOLMAN_SKIP_TMUX === '1';

export class TmuxTerminal {
  private readonly socket = `toolman-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private sessions = 0;

  tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  }

  /**
   * Runs `toolman ARGS` in a new session `width` columns wide, with `env` (CI=true as on a CI
   * machine: the REPL must still draw). The shell prints the exit status after it: tmux's own
   * pane_dead_status was seen to miss an exit on a busy machine.
   */
  start(args: string[], env: Record<string, string>, options: { width?: number; height?: number; cwd?: string } = {}): TmuxSession {
    const name = `s${++this.sessions}`;
    const command = `${[process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}; echo "toolman-exit=$?"`;
    this.tmux(
      'new-session', '-d', '-s', name, '-x', String(options.width ?? 100), '-y', String(options.height ?? 40), '-c', options.cwd ?? ROOT,
      ...Object.entries({ CI: 'true', TOOLMAN_CACHE_DIR: 'off', ...env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      command, ';', 'set-option', '-t', name, 'remain-on-exit', 'on',
    );
    return new TmuxSession(this, name);
  }

  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}

export class TmuxSession {
  constructor(
    private readonly terminal: TmuxTerminal,
    readonly name: string,
  ) {}

  /** The pane as text, with its scrollback; wrapped lines joined. */
  screen(): string {
    return this.terminal.tmux('capture-pane', '-p', '-J', '-S', '-400', '-t', this.name);
  }

  /** The pane as drawn, each row as wide as it is on the screen (no joining). */
  rows(): string[] {
    return this.terminal.tmux('capture-pane', '-p', '-S', '-400', '-t', this.name).split('\n');
  }

  async waitFor(test: string | RegExp | ((text: string) => boolean), what = String(test), timeoutMs = 15_000): Promise<string> {
    const check = typeof test === 'string' ? (t: string) => t.includes(test) : test instanceof RegExp ? (t: string) => test.test(t) : test;
    const started = Date.now();
    for (;;) {
      const text = this.screen();
      if (check(text)) return text;
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; the pane:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Types text as it is (no key names). */
  type(text: string): void {
    this.terminal.tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** Presses keys by tmux's names: Enter, Tab, M-Enter, C-c, BTab. */
  keys(...names: string[]): void {
    this.terminal.tmux('send-keys', '-t', this.name, ...names);
  }

  /** Pastes `text` as a terminal does: bracketed when the application asked for it (tmux paste-buffer -p). */
  paste(text: string): void {
    this.terminal.tmux('set-buffer', '-b', `paste-${this.name}`, text);
    this.terminal.tmux('paste-buffer', '-p', '-d', '-b', `paste-${this.name}`, '-t', this.name);
  }

  /** Types a line and presses Enter. */
  async send(line: string): Promise<void> {
    this.type(line);
    // A moment, as a person takes: tmux may deliver the text and Enter in one read otherwise.
    await new Promise((resolve) => setTimeout(resolve, 30));
    this.keys('Enter');
  }

  /** /exit, then the exit code the shell printed. */
  async exit(): Promise<number> {
    await this.send('/exit');
    const text = await this.waitFor(/toolman-exit=\d+/, 'toolman to exit', 10_000);
    return Number(/toolman-exit=(\d+)/.exec(text)![1]);
  }
}
