import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastTranscript, MAX_HISTORY_MESSAGES, readTranscriptFile, readTranscriptHistory } from '../../src/conversation/transcript-history.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const CATALOG = 'test/fixtures/catalogs/chat.yaml';
const env = () => ({ OPENAI_API_KEY: 'sk-resume-test-key', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: 'sk-ant-resume-key', ANTHROPIC_BASE_URL: server.url });
const dir = () => mkdtempSync(join(tmpdir(), 'toolman-resume-'));
const open = () => ToolManager.open({ catalogs: [CATALOG], cwd: ROOT, env: env(), requireValid: 'all' });

/** A session with a tool call, its result and an answer, written to a transcript. */
async function recordSession(file: string, header: Record<string, unknown> = {}) {
  const manager = await open();
  try {
    const conversation = await manager.conversation({ model: 'gpt-test', transcript: { file, header } });
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'It is 3 °C; I did not delete e1.' }]);
    await conversation.run('Weather in Oslo, and delete e1');
    server.script([{ text: 'You are welcome.' }]);
    await conversation.run('thanks');
    conversation.close();
  } finally {
    await manager.close();
  }
}

describe('a conversation rebuilt from its transcript', () => {
  it('holds what was said, the calls and their results (a declined one too), in order', async () => {
    const file = join(dir(), 't.jsonl');
    await recordSession(file, { cwd: '/some/folder' });
    const history = readTranscriptFile(file, ROOT);
    expect(history).toMatchObject({ provider: 'openai', model: 'gpt-test', cwd: '/some/folder', turns: 2, notices: [] });
    expect(history.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(history.messages[0]).toEqual({ role: 'user', text: 'Weather in Oslo, and delete e1' });
    expect(history.messages[1]).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }, { name: 'delete_event', arguments: '{"id":"e1"}' }] });
    expect(history.messages[2]).toMatchObject({ role: 'tool', results: [{ name: 'get_weather', isError: false, content: expect.stringContaining('"temp_c":3') }, { name: 'delete_event', isError: true, content: expect.stringContaining('the user declined') }] });
    expect(history.messages[3]).toEqual({ role: 'assistant', text: 'It is 3 °C; I did not delete e1.', toolCalls: [] });
  });

  it('a resumed conversation sends it all with the next message, on another provider too; its own transcript starts with it', async () => {
    const folder = dir();
    await recordSession(join(folder, 'first.jsonl'));
    const resume = readTranscriptFile(join(folder, 'first.jsonl'), ROOT);
    const manager = await open();
    try {
      const conversation = await manager.conversation({ provider: 'anthropic', model: 'claude-test', resume, transcript: { file: join(folder, 'second.jsonl') } });
      server.script([{ text: 'Welcome back.' }]);
      await conversation.run('where were we?');
      const messages = server.requests.at(-1)!.body.messages as { role: string; content: { type: string }[] }[];
      expect(messages).toHaveLength(7);
      expect(JSON.stringify(messages)).toContain('Weather in Oslo, and delete e1');
      expect(messages[1]!.content.map((b) => b.type)).toEqual(['tool_use', 'tool_use']);
      expect(messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result']);
      conversation.close();
      // Continued again from the second transcript: the whole conversation, both sessions.
      const again = readTranscriptFile(join(folder, 'second.jsonl'), ROOT);
      expect(again).toMatchObject({ provider: 'anthropic', model: 'claude-test', turns: 3 });
      expect(again.messages.slice(0, 6)).toEqual(resume.messages);
      expect(again.messages.slice(6)).toEqual([{ role: 'user', text: 'where were we?' }, { role: 'assistant', text: 'Welcome back.', toolCalls: [] }]);
    } finally {
      await manager.close();
    }
  });

  it('a reset forgets what came before; the last session of a file used twice counts', () => {
    const header = (model: string) => JSON.stringify({ type: 'session', version: 1, provider: 'openai', model });
    const turn = (text: string, answer: string) => [JSON.stringify({ type: 'turn_start', text }), JSON.stringify({ type: 'assistant_text', round: 1, text: answer }), JSON.stringify({ type: 'done', stop: 'done' })];
    const text = [header('a'), ...turn('one', 'A'), JSON.stringify({ type: 'reset' }), ...turn('two', 'B'), header('b'), ...turn('three', 'C'), ''].join('\n');
    const history = readTranscriptHistory(text, 't.jsonl');
    expect(history).toMatchObject({ model: 'b', turns: 1, messages: [{ role: 'user', text: 'three' }, { role: 'assistant', text: 'C' }] });
    const reset = readTranscriptHistory([header('a'), ...turn('one', 'A'), JSON.stringify({ type: 'reset' }), ...turn('two', 'B')].join('\n'), 't.jsonl');
    expect(reset.messages.map((m) => (m.role === 'user' ? m.text : ''))).toEqual(['two', '']);
  });

  it('a call whose session ended before its result gets a result saying so (the APIs refuse a call left unanswered)', () => {
    const text = [
      JSON.stringify({ type: 'session', version: 1, provider: 'openai', model: 'm' }),
      JSON.stringify({ type: 'turn_start', text: 'go' }),
      JSON.stringify({ type: 'tool_calls', round: 1, calls: [{ id: 'c1', name: 'slow', tool: 'slow', arguments: {} }] }),
      '',
    ].join('\n');
    expect(readTranscriptHistory(text, 't.jsonl').messages.at(-1)).toEqual({ role: 'tool', results: [{ id: 'c1', name: 'slow', content: 'no result: the session ended before this call answered', isError: true }] });
  });
});

describe('a transcript is untrusted input', () => {
  const header = JSON.stringify({ type: 'session', version: 1, provider: 'openai', model: 'm' });

  it('a damaged line is an error naming its line; a last line cut short is left out with a notice', () => {
    expect(() => readTranscriptHistory([header, '{"type": "turn_start", "text": "hi"}', 'not json', '{"type":"done"}'].join('\n'), 'bad.jsonl')).toThrow(/^bad\.jsonl:3: cannot resume from this transcript: a line that is not JSON$/);
    expect(() => readTranscriptHistory([header, '{"type": "turn_start", "text": 42}', ''].join('\n'), 'bad.jsonl')).toThrow('bad.jsonl:2: cannot resume from this transcript: a turn without its text');
    expect(() => readTranscriptHistory([header, '{"type":"tool_calls","round":1,"calls":[{"id":"x"}]}'].join('\n'), 'bad.jsonl')).toThrow('bad.jsonl:2: cannot resume from this transcript: call 1: no name');
    expect(() => readTranscriptHistory([header, '[1,2]', ''].join('\n'), 'bad.jsonl')).toThrow('a line that is not an object with a "type"');
    expect(() => readTranscriptHistory('{"type":"recording","version":1}\n', 'rec.jsonl')).toThrow('rec.jsonl is not a toolman transcript');
    expect(() => readTranscriptHistory(JSON.stringify({ type: 'session', version: 2 }), 'new.jsonl')).toThrow('a transcript of version 2');
    const cut = readTranscriptHistory([header, '{"type": "turn_start", "text": "hi"}', '{"type": "assistant_te'].join('\n'), 'cut.jsonl');
    expect(cut.messages).toEqual([{ role: 'user', text: 'hi' }]);
    expect(cut.notices).toEqual(['cut.jsonl:3: the last line was cut short (the session ended while it was written); left out']);
  });

  it('names it holds are checked: an unknown provider is ignored, a model with control sequences cleaned', () => {
    const history = readTranscriptHistory(JSON.stringify({ type: 'session', version: 1, provider: 'evil-provider', model: 'gpt\u001b]0;x\u0007-4o', profile: 'a\nb', catalog: ['/etc/passwd'] }), 't.jsonl');
    expect(history.provider).toBeUndefined();
    expect(history.model).toBe('gpt-4o');
    expect(history.profile).toBeUndefined();
    expect(history.notices[0]).toContain('provider "evil-provider" is not one toolman talks to; ignored');
    // The catalog it names is not read, not kept, not returned.
    expect(JSON.stringify(history)).not.toContain('passwd');
  });

  it('a history line brings the neutral form only: nothing a provider sent natively, no signatures', () => {
    const history = readTranscriptHistory(
      [header, JSON.stringify({ type: 'history', messages: [{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'x', toolCalls: [{ id: 'c', name: 'n', arguments: '{}', extra: { google: { thought_signature: 's' } } }], native: [{ type: 'server_tool_use', evil: true }] }] })].join('\n'),
      't.jsonl',
    );
    expect(history.messages).toEqual([{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'x', toolCalls: [{ id: 'c', name: 'n', arguments: '{}' }] }]);
  });

  it('is bounded: more messages than a chat holds is refused', () => {
    const many = Array.from({ length: MAX_HISTORY_MESSAGES + 1 }, () => ({ role: 'user', text: 'x' }));
    expect(() => readTranscriptHistory([header, JSON.stringify({ type: 'history', messages: many })].join('\n'), 'big.jsonl')).toThrow(`more than ${MAX_HISTORY_MESSAGES} messages`);
    // One line of 300,000 calls: a located error, not a stack overflow.
    const calls = Array.from({ length: 300_000 }, (_, i) => ({ id: `c${i}`, name: 'n' }));
    expect(() => readTranscriptHistory([header, '{"type": "turn_start", "text": "hi"}', JSON.stringify({ type: 'tool_calls', round: 1, calls })].join('\n'), 'calls.jsonl')).toThrow(`calls.jsonl:3: cannot resume from this transcript: more than ${MAX_HISTORY_MESSAGES} calls in one round`);
  });
});

describe('--continue: the last transcript of a chat in this folder', () => {
  it('is the newest one made in this folder with something said in it', () => {
    const data = dir();
    const folder = join(data, 'toolman', 'transcripts');
    mkdirSync(folder, { recursive: true });
    const line = (o: unknown) => JSON.stringify(o);
    const session = (cwd: string, said: boolean) => [line({ type: 'session', version: 1, provider: 'openai', model: 'm', cwd }), ...(said ? [line({ type: 'turn_start', text: 'hi' }), line({ type: 'done' })] : []), ''].join('\n');
    writeFileSync(join(folder, '2026-11-20T10-00-00-000-1.jsonl'), session('/work/a', true));
    writeFileSync(join(folder, '2026-11-21T10-00-00-000-2.jsonl'), session('/work/a', true));
    writeFileSync(join(folder, '2026-11-22T10-00-00-000-3.jsonl'), session('/work/b', true));
    writeFileSync(join(folder, '2026-11-23T10-00-00-000-4.jsonl'), session('/work/a', false));
    writeFileSync(join(folder, '2026-11-24T10-00-00-000-5.jsonl'), 'garbage\n');
    const env = { XDG_DATA_HOME: data };
    expect(lastTranscript(env, '/work/a')).toBe(join(folder, '2026-11-21T10-00-00-000-2.jsonl'));
    expect(lastTranscript(env, '/work/b')).toBe(join(folder, '2026-11-22T10-00-00-000-3.jsonl'));
    expect(lastTranscript(env, '/work/c')).toBeUndefined();
    expect(lastTranscript({ XDG_DATA_HOME: join(data, 'none') }, '/work/a')).toBeUndefined();
    expect(readFileSync(join(folder, '2026-11-21T10-00-00-000-2.jsonl'), 'utf8')).toContain('/work/a');
  });
});
