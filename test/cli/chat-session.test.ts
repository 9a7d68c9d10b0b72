import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const catalog = ['-c', 'test/fixtures/catalogs/chat.yaml'];
const openai = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1` });
const dir = () => mkdtempSync(join(tmpdir(), 'toolman-chat-session-'));

describe('one-shot chat shows the user their own words', () => {
  it('a declined call says why in the user\'s terms, not the sentence meant for the model', async () => {
    server.script([{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Not deleted.' }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'delete e1', '--no-transcript'], { env: openai() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('⊘ delete_event declined: it needs approval and there is no terminal to ask; --yes approves\n');
    expect(run.stderr).not.toContain('the user declined');
    // The model is still told, in its own terms.
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('the user declined to run delete_event');
  });
});

describe('toolman chat --continue and --resume', () => {
  const withData = (data: string) => ({ ...openai(), ANTHROPIC_API_KEY: 'sk-ant-cli-resume', ANTHROPIC_BASE_URL: server.url, XDG_DATA_HOME: data });

  it('--continue goes on with the last conversation of a chat in this folder, tool calls and results included', async () => {
    const data = dir();
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const first = await runBin([...catalog, 'chat', '--prompt', 'Weather in Oslo?'], { env: withData(data) });
    expect(first.code, first.stderr).toBe(0);
    const transcript = /transcript: (\S+)/.exec(first.stderr)![1]!;
    server.script([{ text: 'Tomorrow it is 5 °C.' }]);
    const second = await runBin([...catalog, 'chat', '--continue', '--prompt', 'And tomorrow?', '--json'], { env: withData(data) });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`resuming ${transcript}: 1 turn (4 messages) with openai gpt-4o`);
    expect(JSON.parse(second.stdout)).toMatchObject({ answer: 'Tomorrow it is 5 °C.' });
    const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown; tool_calls?: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(JSON.stringify(messages[2]!.tool_calls)).toContain('get_weather');
    expect(String(messages[3]!.content)).toContain('"temp_c":3');
  });

  it('--resume FILE with another provider: the conversation goes on as Anthropic blocks', async () => {
    const data = dir();
    const file = join(data, 'chat.jsonl');
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }]);
    expect((await runBin([...catalog, 'chat', '--prompt', 'Weather?', '--transcript', file], { env: withData(data) })).code).toBe(0);
    server.script([{ text: 'Warmer tomorrow.' }]);
    const run = await runBin([...catalog, 'chat', '--resume', file, '-P', 'anthropic', '--prompt', 'tomorrow?', '--no-transcript'], { env: withData(data) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Warmer tomorrow.\n');
    const request = server.requests.at(-1)!;
    expect(request.api).toBe('messages');
    expect((request.body.messages as { content: { type: string }[] }[])[1]!.content.map((b) => b.type)).toEqual(['tool_use']);
  });

  it('says what is wrong: no transcript here, a damaged one (with its line), flags that exclude each other', async () => {
    const data = dir();
    const none = await runBin([...catalog, 'chat', '--continue', '--prompt', 'x'], { env: withData(data) });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no transcript of a chat in');
    expect(none.stderr).toContain('--resume FILE');
    const bad = join(data, 'bad.jsonl');
    writeFileSync(bad, '{"type":"session","version":1}\n{"type":"turn_start"}\n{"type":"done"}\n');
    const damaged = await runBin([...catalog, 'chat', '--resume', bad, '--prompt', 'x'], { env: withData(data) });
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain(`${bad}:2: cannot resume from this transcript: a turn without its text`);
    expect(damaged.stderr).not.toMatch(/\n\s+at /);
    const both = await runBin([...catalog, 'chat', '--resume', bad, '--replay', 'catalogs/recordings/assistant.jsonl', '--prompt', 'x'], { env: withData(data) });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume and --replay');
    const missing = await runBin([...catalog, 'chat', '--resume', join(data, 'nope.jsonl'), '--prompt', 'x'], { env: withData(data) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read transcript');
  });
});
