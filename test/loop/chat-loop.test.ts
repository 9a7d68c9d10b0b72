import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDecision } from '../../src/execute/types.js';
import { ChatLoop, type EstimateMode } from '../../src/loop/chat-loop.js';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { createModelClient } from '../../src/providers/model-clients.js';
import type { ProviderName } from '../../src/providers/types.js';
import { startModelServer, type ModelServer, type ScriptedReply } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

let server: ModelServer;
let manager: ToolManager;
beforeAll(async () => {
  server = await startModelServer();
  manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/chat.yaml'], cwd: ROOT });
});
afterAll(async () => {
  await server.close();
  await manager.close();
});

const providers: ProviderName[] = ['openai', 'openai-responses', 'anthropic', 'gemini'];

async function chat(provider: ProviderName, script: ScriptedReply[], options: { profile?: string; stream?: boolean; approve?: ApprovalDecision; text?: string; nativeSearch?: boolean; estimate?: EstimateMode } = {}) {
  server.script(script);
  server.requests.length = 0;
  // Anthropic and Gemini clients take the API's base (Gemini's OpenAI-compatible endpoint is under it).
  const client = await createModelClient(provider, 'test-model', { apiKey: 'test', baseUrl: provider === 'anthropic' || provider === 'gemini' ? server.url : `${server.url}/v1` });
  const session = await manager.session(options.profile ? { profile: options.profile } : {});
  const format = options.nativeSearch ? { nativeToolSearch: 'bm25' as const } : {};
  const loop = new ChatLoop({ client, session, format, stream: options.stream ?? true, ...(options.approve ? { approve: async () => options.approve! } : {}), ...(options.estimate ? { estimate: options.estimate } : {}) });
  const events: LoopEvent[] = [];
  const summary = await loop.run(options.text ?? 'hello', { onEvent: (e) => events.push(e) });
  return { summary, events, loop, requests: server.requests, session };
}

const kinds = (events: LoopEvent[]) => events.map((e) => e.type);

describe.each(providers)('the loop with %s', (provider) => {
  it.each([true, false])('answers in plain text (stream: %s)', async (stream) => {
    const { summary, events } = await chat(provider, [{ text: 'Hello there!', usage: { input: 50, output: 4 } }], { stream });
    expect(summary).toMatchObject({ answer: 'Hello there!', stop: 'done', rounds: 1, calls: [] });
    expect(summary.usage).toMatchObject({ input: 50, output: 4 });
    expect(summary.usage.estimated_input).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello there!');
    expect(kinds(events)[0]).toBe('turn_start');
    expect(kinds(events).at(-1)).toBe('done');
  });

  it('runs one tool call and sends the result back in the provider\'s format', async () => {
    const { summary, requests } = await chat(provider, [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    expect(summary).toMatchObject({ stop: 'done', rounds: 2, answer: 'It is 3 °C in Oslo.' });
    expect(summary.calls).toEqual([expect.objectContaining({ round: 1, name: 'get_weather', arguments: { city: 'Oslo' }, ok: true, approval: null })]);
    const second = JSON.stringify(requests[1]!.body);
    expect(second).toContain('temp_c');
    // The tools' system prompt contribution is in every request.
    expect(JSON.stringify(requests[0]!.body)).toContain('Weather figures are in Celsius.');
  });

  it('runs parallel calls in one round', async () => {
    const { summary } = await chat(provider, [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'Cold and warm.' }]);
    expect(summary.calls.map((c) => [c.round, (c.arguments as { city: string }).city, c.ok])).toEqual([
      [1, 'Oslo', true],
      [1, 'Rome', true],
    ]);
  });

  it('tells the model its arguments were bad, and the model fixes them', async () => {
    const { summary, requests } = await chat(provider, [{ toolCalls: [{ name: 'get_weather', arguments: { town: 'Oslo' } }] }, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Done.' }]);
    expect(summary.calls.map((c) => c.ok)).toEqual([false, true]);
    expect(summary.calls[0]!.error).toContain('missing required argument "city"');
    expect(JSON.stringify(requests[1]!.body)).toContain('missing required argument');
    if (provider === 'anthropic') expect(JSON.stringify(requests[1]!.body)).toContain('"is_error":true');
  });

  it('finds a deferred tool through tool_search and calls it in a later round', async () => {
    const { summary, events, requests } = await chat(provider, [
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'flights' } }] },
      { toolCalls: [{ name: 'find_flights', arguments: { from: 'OSL', to: 'ROM' } }] },
      { text: 'TM101 for 99.' },
    ]);
    expect(summary.calls.map((c) => [c.name, c.ok])).toEqual([
      ['tool_search', true],
      ['find_flights', true],
    ]);
    expect(events).toContainEqual({ type: 'search', round: 1, activated: ['find_flights'] });
    const offered = (i: number) => JSON.stringify(requests[i]!.body.tools);
    expect(offered(0)).not.toContain('find_flights');
    expect(offered(1)).toContain('find_flights');
  });

  it('ends the turn with a take-control tool\'s result as the answer', async () => {
    const { summary } = await chat(provider, [{ toolCalls: [{ name: 'deep_research', arguments: { question: 'tides' } }] }]);
    expect(summary).toMatchObject({ stop: 'took_control', rounds: 1, answer: expect.stringContaining('Report on tides') });
  });

  it('forces the profile\'s tool in round one only', async () => {
    const { requests } = await chat(provider, [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }], { profile: 'forced' });
    expect(requests[0]!.body.tool_choice).toBeTruthy();
    expect(requests[1]!.body.tool_choice).toBeUndefined();
  });

  it('stops at the round limit and keeps what was said', async () => {
    const again = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const { summary, loop } = await chat(provider, [{ ...again, text: 'Checking.' }, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] }]);
    expect(summary).toMatchObject({ stop: 'max_rounds', rounds: 4, answer: 'Checking.' });
    expect(summary.message).toContain('limits.max_rounds');
    expect(loop.messages.at(-1)!.role).toBe('tool');
  });

  it('tells the model it is looping, and ends the turn if it goes on', async () => {
    const same = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const { summary, requests } = await chat(provider, [same, same, same, same]);
    expect(summary.stop).toBe('repeats');
    expect(summary.calls.map((c) => c.ok)).toEqual([true, true, false, false]);
    expect(JSON.stringify(requests[3]!.body)).toContain('looks like a loop');
  });

  it('retries a 429 and says so', async () => {
    const { summary, events } = await chat(provider, [{ status: 429, retryAfter: 0.01 }, { text: 'Fine now.' }]);
    expect(summary).toMatchObject({ stop: 'done', answer: 'Fine now.' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', attempt: 1, status: 429 }));
  });

  // Events until the first text delta has arrived, per wire format (see test/helpers/model-server.ts).
  const afterFirstText = { openai: 3, 'openai-responses': 6, anthropic: 4, gemini: 3 }[provider as 'openai'];

  it('ends the turn cleanly when the stream is cut mid-answer, keeping what arrived', async () => {
    const { summary, events, loop } = await chat(provider, [{ text: 'The first part of a long answer that never ends', cutAfterEvents: afterFirstText }]);
    expect(summary.stop).toBe('error');
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', kind: 'stream_dropped' }));
    expect(summary.answer.length).toBeGreaterThan(0);
    expect(loop.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('retries a stream cut before anything arrived', async () => {
    const { summary, events } = await chat(provider, [{ text: 'lost', cutAfterEvents: 1 }, { text: 'Second try.' }]);
    expect(summary).toMatchObject({ stop: 'done', answer: 'Second try.' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', attempt: 1 }));
  });

  it.each<[ApprovalDecision, boolean]>([
    ['approve', true],
    ['decline', false],
  ])('asks before a destructive tool (%s)', async (decision, ok) => {
    const { summary, events } = await chat(provider, [{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Done.' }], { approve: decision });
    expect(summary.calls[0]).toMatchObject({ name: 'delete_event', ok, approval: ok ? 'approved' : 'declined' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_status', status: 'awaiting_approval', round: 1 }));
  });
});

describe('OpenAI-compatible servers', () => {
  it.each(['indexless-fragments', 'repeated-names'] as const)('stitches tool-call fragments with the %s quirk', async (quirk) => {
    const { summary } = await chat('openai', [{ quirk, toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'ok' }]);
    expect(summary.calls.map((c) => [c.name, (c.arguments as { city: string }).city, c.ok])).toEqual([
      ['get_weather', 'Oslo', true],
      ['get_weather', 'Rome', true],
    ]);
  });

  it("keeps a call's extra_content (a compatible server's own fields) and sends it back", async () => {
    const { requests } = await chat('openai', [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, extra: { vendor: { token: 't1' } } }] }, { text: 'ok' }]);
    expect(requests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant').tool_calls[0].extra_content).toEqual({ vendor: { token: 't1' } });
    const plain = await chat('openai', [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'ok' }]);
    expect(plain.requests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant').tool_calls[0]).not.toHaveProperty('extra_content');
  });

  it('falls back to non-streaming once when a server cannot stream tool calls, with a warning', async () => {
    const { summary, events, requests } = await chat('openai', [{ refuseStreamingTools: true }, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }]);
    expect(summary.stop).toBe('done');
    expect(events).toContainEqual(expect.objectContaining({ type: 'warning', message: expect.stringContaining('cannot stream tool calls') }));
    expect(requests.map((r) => r.stream)).toEqual([true, false, false]);
  });
});

describe('Gemini through its OpenAI-compatible endpoint', () => {
  it("sends the Gemini formatter's declarations in Chat Completions' shape, to /v1beta/openai", async () => {
    const { requests } = await chat('gemini', [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }], { profile: 'forced' });
    expect(requests[0]!.path).toBe('/v1beta/openai/chat/completions');
    const weather = requests[0]!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'get_weather');
    // Gemini's schema subset, exactly as `format --provider gemini` shows it: no additionalProperties.
    expect(weather).toEqual({
      type: 'function',
      function: { name: 'get_weather', description: expect.stringContaining('Current weather'), parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', description: 'City name, e.g. Oslo.' } }, required: ['city'] } },
    });
    expect(requests[0]!.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(requests[0]!.body).not.toHaveProperty('toolConfig');
    expect(requests[0]!.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Weather figures are in Celsius.') });
  });

  it.each([true, false])("sends each call's thought signature back as it came (stream: %s)", async (stream) => {
    const signed = (city: string, signature: string) => ({ name: 'get_weather', arguments: { city }, extra: { google: { thought_signature: signature } } });
    const { summary, requests } = await chat('gemini', [{ toolCalls: [signed('Oslo', 'sig-A'), signed('Rome', 'sig-B')] }, { text: 'Cold and warm.' }], { stream });
    expect(summary.stop).toBe('done');
    const assistant = requests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.tool_calls.map((c: { extra_content: unknown }) => c.extra_content)).toEqual([{ google: { thought_signature: 'sig-A' } }, { google: { thought_signature: 'sig-B' } }]);
  });

  it('counts the request as Gemini, as budget does', async () => {
    const { summary } = await chat('gemini', [{ text: 'Hi.' }]);
    expect(summary.usage.estimated_input).toBeGreaterThan(0);
  });
});

describe('toolman\'s own count of a request', () => {
  it('counts only the requests the API reported no usage for, with estimate: unreported', async () => {
    // Round 1 reported, round 2 reported zeros (a server that does not count): only round 2 is counted.
    const script: ScriptedReply[] = [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 80, output: 5 } }, { text: 'Cold.', usage: { input: 0, output: 0 } }];
    const always = await chat('openai', script);
    const unreported = await chat('openai', script, { estimate: 'unreported' });
    const counts = (events: LoopEvent[]) => events.flatMap((e) => (e.type === 'usage' ? [e.estimated_input] : []));
    const [first, second] = counts(always.events);
    expect(first).toBeGreaterThan(0);
    expect(counts(unreported.events)).toEqual([null, second]);
    expect(unreported.summary.usage.estimated_input).toBe(second);
    const never = await chat('openai', script, { estimate: 'never' });
    expect(counts(never.events)).toEqual([null, null]);
    expect(never.summary.usage.estimated_input).toBeNull();
  });

});

describe('a turn\'s estimate remembered by request', () => {
  it('is the count made without the cache, read back once remembered; a damaged entry is counted again', async () => {
    const entries = new Map<string, unknown>();
    let hits = 0;
    const counts = { get: (key: string) => (entries.has(key) ? (hits++, entries.get(key)) : undefined), set: (key: string, value: unknown) => void entries.set(key, value) };
    const client = await createModelClient('openai', 'gpt-4o', { apiKey: 'test', baseUrl: `${server.url}/v1` });
    const session = await manager.session({});
    const plain = await new ChatLoop({ client, session }).estimateTurn('What is the weather in Oslo?');
    const loop = new ChatLoop({ client, session, counts });
    expect(plain).toBeGreaterThan(0);
    expect(await loop.estimateTurn('What is the weather in Oslo?')).toBe(plain);
    expect(entries.size).toBe(1);
    expect(await loop.estimateTurn('What is the weather in Oslo?')).toBe(plain);
    expect(hits).toBe(1);
    for (const damaged of ['12', -1, 1.5, null]) {
      entries.set([...entries.keys()][0]!, damaged);
      expect(await loop.estimateTurn('What is the weather in Oslo?')).toBe(plain);
    }
  });
});

describe('a request\'s estimate per model', () => {
  it('counts the tools again for another model of the provider, though sessions share the formatted tools', async () => {
    // Sessions of one selection share its fragments (session/tool-session.ts): each run of a suite
    // with `providers: [openai:gpt-4o, openai:gpt-4]` gets the same fragment, and gpt-4 counts
    // with another tokenizer and other per-tool constants than gpt-4o.
    const [gpt4o, gpt4] = await Promise.all(['gpt-4o', 'gpt-4'].map((model) => createModelClient('openai', model, { apiKey: 'test', baseUrl: `${server.url}/v1` })));
    const text = 'What is the weather in Oslo?';
    const alone = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/chat.yaml'], cwd: ROOT });
    try {
      const expected = await new ChatLoop({ client: gpt4!, session: await alone.session({}) }).estimateTurn(text);
      const first = await new ChatLoop({ client: gpt4o!, session: await manager.session({}) }).estimateTurn(text);
      expect(first).not.toBe(expected);
      const second = await manager.session({});
      expect(await new ChatLoop({ client: gpt4!, session: second }).estimateTurn(text)).toBe(expected);
    } finally {
      await alone.close();
    }
  });
});

describe('native tool search', () => {
  it('Anthropic: sends the server tool, echoes its blocks back, and runs the tool it found', async () => {
    const found = [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'flights' } },
      { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'find_flights' }] } },
    ];
    const { summary, requests } = await chat('anthropic', [{ raw: found, toolCalls: [{ name: 'find_flights', arguments: { from: 'OSL', to: 'ROM' } }] }, { text: 'TM101.' }], { nativeSearch: true });
    expect(summary.calls).toEqual([expect.objectContaining({ name: 'find_flights', ok: true })]);
    const first = JSON.stringify(requests[0]!.body.tools);
    expect(first).toContain('tool_search_tool_bm25');
    expect(first).toContain('"defer_loading":true');
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('srvtoolu_1');
  });
});
