import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer } from '../helpers/model-server.js';
import { limitProgress, MAX_PROGRESS_CHARS, PROGRESS_BURST } from '../../src/execute/progress-limit.js';
import type { CallEvent } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { catalogDir, scripted } from './helpers.js';

describe('progress from a source toolman does not control is bounded', () => {
  afterEach(() => vi.useRealTimers());

  it('each message is cut; past a burst, messages are coalesced into the latest, a few a second', () => {
    vi.useFakeTimers();
    const seen: string[] = [];
    const limited = limitProgress((message) => seen.push(message));
    for (let i = 1; i <= 300; i++) limited.progress(`${i} ${'x'.repeat(5000)}`);
    expect(seen).toHaveLength(PROGRESS_BURST);
    expect(seen.every((m) => m.length < MAX_PROGRESS_CHARS + 40)).toBe(true);
    expect(seen[0]).toMatch(/^1 x+… \(4002 more characters\)$/);
    // The rest waited as one message, the latest, sent when the next token came.
    vi.advanceTimersByTime(150);
    expect(seen).toHaveLength(PROGRESS_BURST + 1);
    expect(seen.at(-1)).toMatch(/^300 /);
    vi.advanceTimersByTime(1000);
    expect(seen).toHaveLength(PROGRESS_BURST + 1);
    // A message still waiting when the call ends is dropped.
    const short: string[] = [];
    const one = limitProgress((message) => short.push(message), 1, 10);
    one.progress('first');
    one.progress('waiting');
    one.close();
    vi.advanceTimersByTime(1000);
    expect(short).toEqual(['first']);
  });

  it('an MCP server sending 300 progress messages of 100 KB: a handful of short events, then the result', async () => {
    const { dir, file } = catalogDir(`toolman: 1\nname: flood\nmcp_servers:\n  loud:\n${scripted('progress')}`);
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { ...process.env, TOOLMAN_CACHE_DIR: 'off' } });
    try {
      const events: CallEvent[] = [];
      const session = await manager.session({ onEvent: (e) => events.push(e) });
      const started = Date.now();
      const turn = await session.runTurn([{ id: 'c1', name: 'flood_progress', arguments: {} }]);
      const elapsed = Date.now() - started;
      expect(turn.responses[0]).toMatchObject({ ok: true, content: 'flooded' });
      const progress = events.filter((e): e is Extract<CallEvent, { type: 'tool_progress' }> => e.type === 'tool_progress');
      expect(progress.length).toBeGreaterThan(0);
      // The burst, then at most 10 a second while the flood lasted (on a loaded machine it lasts longer).
      expect(progress.length).toBeLessThanOrEqual(PROGRESS_BURST + Math.ceil(elapsed / 100) + 1);
      expect(progress.length).toBeLessThan(100);
      expect(JSON.stringify(progress).length).toBeLessThan(40 * 1024);
      expect(progress[0]).toMatchObject({ progress: 1, total: 300 });
    } finally {
      await manager.close();
    }
  });

  it('chat --events and the transcript stay small (they were 30 MB)', async () => {
    const server = await startModelServer();
    try {
      server.script([{ toolCalls: [{ name: 'flood_progress', arguments: {} }] }, { text: 'Done.' }]);
      const { dir } = catalogDir(`toolman: 1\nname: flood\nmcp_servers:\n  loud:\n${scripted('progress')}`);
      const run = await runBin(['chat', '--prompt', 'flood it', '--events', '--yes'], { cwd: dir, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off', XDG_DATA_HOME: join(dir, 'data') } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('"tool_progress"');
      expect(run.stdout.length).toBeLessThan(100 * 1024);
      const folder = join(dir, 'data', 'toolman', 'transcripts');
      const [transcript] = readdirSync(folder);
      expect(statSync(join(folder, transcript!)).size).toBeLessThan(100 * 1024);
    } finally {
      await server.close();
    }
  });
});
