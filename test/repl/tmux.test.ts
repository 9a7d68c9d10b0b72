import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/paths.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

/**
 * End to end in a real pseudo-terminal: the built binary in tmux, against the scripted model
 * server. tmux is required (CI installs it); TOOLMAN_SKIP_TMUX=1 skips this file instead.
 */
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const skip = !hasTmux && process.env.TOOLMAN_SKIP_TMUX === '1';
const socket = `toolman-test-${process.pid}`;
const session = 'repl';

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', session);

async function waitFor(test: (text: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = screen();
    if (test(text)) return text;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; the pane:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  await server.close();
});

describe.skipIf(skip)('the REPL in a terminal (tmux)', () => {
  it('asks before deleting, answers, and exits 0 on /exit', async () => {
    expect(hasTmux, 'tmux is not installed: install it (apt-get install tmux, brew install tmux) or set TOOLMAN_SKIP_TMUX=1 to skip this test').toBe(true);
    expect(existsSync(BIN), 'run npm run build first').toBe(true);
    server.script([{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Deleted event e1 for you.' }]);
    // The shell reaps toolman and prints its exit status: tmux's own pane_dead_status was seen
    // to miss an exit (the process left a zombie tmux never reaped) on a busy machine.
    const command = `${[process.execPath, BIN, '-c', 'test/fixtures/catalogs/chat.yaml', 'chat', '--no-transcript'].map((a) => `'${a}'`).join(' ')}; echo "toolman-exit=$?"`;
    tmux(
      'new-session', '-d', '-s', session, '-x', '100', '-y', '30', '-c', ROOT,
      // CI=true as on a CI machine: the REPL must still draw (ink alone would wait for exit).
      '-e', 'CI=true', '-e', 'OPENAI_API_KEY=test-key', '-e', `OPENAI_BASE_URL=${server.url}/v1`, '-e', 'TOOLMAN_CACHE_DIR=off',
      command, ';', 'set-option', '-t', session, 'remain-on-exit', 'on',
    );
    await waitFor((t) => t.includes('type a message, /help for commands'), 'the prompt');
    tmux('send-keys', '-t', session, '-l', 'please delete event e1');
    tmux('send-keys', '-t', session, 'Enter');
    await waitFor((t) => t.includes('[y] yes'), 'the approval prompt');
    expect(screen()).toContain('run delete_event? (delete_event is destructive)');
    tmux('send-keys', '-t', session, '-l', 'y');
    const answered = await waitFor((t) => t.includes('Deleted event e1 for you.') && t.includes('type a message'), 'the answer');
    expect(answered).toMatch(/✓ #1 delete_event \{"id":"e1"\}\n {2}done .*\[approved\] · \{"deleted":"e1"\}/);
    expect(answered).toContain('> please delete event e1');
    tmux('send-keys', '-t', session, '-l', '/exit');
    tmux('send-keys', '-t', session, 'Enter');
    const exited = await waitFor((t) => /toolman-exit=\d+/.test(t), 'toolman to exit', 10_000);
    expect(/toolman-exit=(\d+)/.exec(exited)![1], exited).toBe('0');
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body)).toContain('deleted');
  });
});
