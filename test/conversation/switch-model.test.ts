import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carryMessages } from '../../src/conversation/carry-messages.js';
import { readRecording } from '../../src/loop/recording.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ChatMessage } from '../../src/providers/model-client.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const CATALOG = 'test/fixtures/catalogs/chat.yaml';
const env = () => ({ OPENAI_API_KEY: 'sk-switch-openai-key', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: 'sk-ant-switch-key', ANTHROPIC_BASE_URL: server.url, GEMINI_API_KEY: 'gemini-switch-key', GEMINI_BASE_URL: server.url });
const open = (extra: Record<string, string | undefined> = {}) => ToolManager.open({ catalogs: [CATALOG], cwd: ROOT, env: { ...env(), ...extra }, requireValid: 'all' });
const weatherTurn = (extra?: Record<string, unknown>) => [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, ...(extra ? { extra } : {}) }] }, { text: 'It is 3 °C in Oslo.' }];

describe('switching the model mid-conversation', () => {
  it('OpenAI to Anthropic: the next request carries the whole conversation, calls and results as Anthropic blocks', async () => {
    const manager = await open();
    const folder = mkdtempSync(join(tmpdir(), 'toolman-switch-'));
    try {
      const conversation = await manager.conversation({ model: 'gpt-test', transcript: { file: join(folder, 't.jsonl') } });
      server.script(weatherTurn());
      await conversation.run('Weather in Oslo?');
      const switched = await conversation.switchModel({ provider: 'anthropic' });
      expect(switched).toMatchObject({ from: { provider: 'openai', model: 'gpt-test' }, to: { provider: 'anthropic', model: 'claude-sonnet-5' }, kept: 4 });
      expect(conversation.provider).toBe('anthropic');
      expect(conversation.model).toBe('claude-sonnet-5');
      server.script([{ text: 'Still cold.' }]);
      const summary = await conversation.run('And tomorrow?');
      expect(summary).toMatchObject({ stop: 'done', answer: 'Still cold.' });
      const request = server.requests.at(-1)!;
      expect(request.api).toBe('messages');
      expect(request.body.model).toBe('claude-sonnet-5');
      const messages = request.body.messages as { role: string; content: { type: string; id?: string; tool_use_id?: string; text?: string }[] }[];
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      const use = messages[1]!.content.find((b) => b.type === 'tool_use')!;
      expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Oslo' } });
      expect(messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: use.id });
      expect(JSON.stringify(messages[3])).toContain('It is 3 °C in Oslo.');
      conversation.close();
      const lines = readFileSync(join(folder, 't.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.type === 'model')).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-5', kept: 4 });
    } finally {
      await manager.close();
    }
  });

  it('/model keeps the provider; Gemini to OpenAI drops the thought signatures, which OpenAI does not know', async () => {
    const manager = await open();
    try {
      const conversation = await manager.conversation({ provider: 'gemini', model: 'gemini-test' });
      server.script(weatherTurn({ google: { thought_signature: 'c2lnbmVk' } }));
      await conversation.run('Weather in Oslo?');
      const other = await conversation.switchModel({ model: 'gemini-other' });
      expect(other).toMatchObject({ to: { provider: 'gemini', model: 'gemini-other' } });
      expect(other.notes.join(' ')).toContain("lost Gemini's thought signature");
      const switched = await conversation.switchModel({ provider: 'openai', model: 'gpt-test' });
      expect(switched.to).toEqual({ provider: 'openai', model: 'gpt-test' });
      server.script([{ text: 'ok' }]);
      await conversation.run('thanks');
      const body = JSON.stringify(server.requests.at(-1)!.body);
      expect(server.requests.at(-1)!.path).toBe('/v1/chat/completions');
      expect(body).toContain('get_weather');
      expect(body).not.toContain('extra_content');
      conversation.close();
    } finally {
      await manager.close();
    }
  });

  it('Anthropic to OpenAI Responses: a native tool search\'s blocks stay behind, said so; the text and calls go along', async () => {
    const manager = await open();
    try {
      const conversation = await manager.conversation({ provider: 'anthropic', model: 'claude-test' });
      server.script([
        { raw: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'weather' } }], toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { text: 'Cold.' },
      ]);
      await conversation.run('Weather?');
      const switched = await conversation.switchModel({ provider: 'openai-responses', model: 'gpt-test' });
      expect(switched.notes.join(' ')).toContain("held its native tool search's own blocks");
      server.script([{ text: 'ok' }]);
      await conversation.run('and?');
      const input = JSON.stringify(server.requests.at(-1)!.body.input);
      expect(input).not.toContain('server_tool_use');
      expect(input).toContain('"type":"function_call"');
      expect(input).toContain('"type":"function_call_output"');
      conversation.close();
    } finally {
      await manager.close();
    }
  });

  it('a provider without its key is the usual error, and the conversation goes on as it was', async () => {
    const manager = await open({ ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' });
    try {
      const conversation = await manager.conversation({ model: 'gpt-test' });
      await expect(conversation.switchModel({ provider: 'anthropic' })).rejects.toThrow(/needs ANTHROPIC_API_KEY/);
      expect(conversation.provider).toBe('openai');
      server.script([{ text: 'still here' }]);
      expect((await conversation.run('hi')).answer).toBe('still here');
      expect(server.requests.at(-1)!.path).toBe('/v1/chat/completions');
      conversation.close();
    } finally {
      await manager.close();
    }
  });

  it('a replay or a recording cannot switch, and says why', async () => {
    const manager = await open();
    const folder = mkdtempSync(join(tmpdir(), 'toolman-switch-'));
    try {
      const recording = await manager.conversation({ model: 'gpt-test', connection: { mode: 'record', file: join(folder, 'r.jsonl') } });
      await expect(recording.switchModel({ model: 'other' })).rejects.toThrow(/a recording holds one provider and model/);
      server.script([{ text: 'recorded' }]);
      await recording.run('hello');
      recording.close();
      const replay = await manager.conversation({ connection: { mode: 'replay', recording: readRecording(readFileSync(join(folder, 'r.jsonl'), 'utf8'), 'r.jsonl') } });
      await expect(replay.switchModel({ provider: 'anthropic' })).rejects.toThrow(/a replay answers from its recording, made with openai gpt-test/);
      replay.close();
    } finally {
      await manager.close();
    }
  });
});

describe('what goes along', () => {
  const history: ChatMessage[] = [
    { role: 'user', text: 'hi' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'functions.get_weather:0', name: 'get_weather', arguments: '{"city":"Oslo"}' }, { id: 'functions.get_weather:1', name: 'get_weather', arguments: '{}' }] },
    { role: 'tool', results: [{ id: 'functions.get_weather:0', name: 'get_weather', content: '3', isError: false }, { id: 'functions.get_weather:1', name: 'get_weather', content: 'no', isError: true }] },
  ];

  it('ids Anthropic refuses are rewritten the same way in the call and its result, never two onto one', () => {
    const { messages, notes } = carryMessages(history, { provider: 'openai', model: 'a' }, { provider: 'anthropic', model: 'b' });
    const calls = (messages[1] as Extract<ChatMessage, { role: 'assistant' }>).toolCalls.map((c) => c.id);
    const results = (messages[2] as Extract<ChatMessage, { role: 'tool' }>).results.map((r) => r.id);
    expect(calls).toEqual(results);
    expect(new Set(calls).size).toBe(2);
    for (const id of calls) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(notes).toEqual(['2 tool call ids rewritten for Anthropic, which takes letters, digits, _ and - only']);
  });

  it('the same model: everything as it was; the same provider: its native blocks kept', () => {
    expect(carryMessages(history, { provider: 'openai', model: 'a' }, { provider: 'openai', model: 'a' })).toEqual({ messages: history, notes: [] });
    const native: ChatMessage[] = [{ role: 'assistant', text: 'x', toolCalls: [], native: [{ type: 'server_tool_use' }] }];
    expect(carryMessages(native, { provider: 'anthropic', model: 'a' }, { provider: 'anthropic', model: 'b' }).messages).toEqual(native);
  });
});
