import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionCallingTestCases } from 'gpt-tokenizer/fixtures/functionCallingTestCases';
import { describe, expect, it } from 'vitest';
import { countRequest } from '../../src/tokens/count-request.js';
import { anthropicToolOverhead } from '../../src/tokens/estimates.js';
import { openAiEncodingFor } from '../../src/tokens/openai-tokens.js';
import { requestShapeRefusal } from '../../src/tokens/request-shape.js';
import { ROOT } from '../helpers/paths.js';

const TOKENS = join(ROOT, '..', 'shared', 'data', 'tokens');
// Copied into test/fixtures so the tests run without ../shared; the originals are the source.
const cookbook = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'tokens', 'openai_cookbook_tool_token_examples.json'), 'utf8'));
const anthropicFacts = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'tokens', 'anthropic_doc_token_facts.json'), 'utf8'));
void TOKENS;

describe('OpenAI token counts', () => {
  it('picks the encoding by model family', () => {
    expect(openAiEncodingFor('gpt-4o-mini')).toBe('o200k_base');
    expect(openAiEncodingFor('gpt-4.1')).toBe('o200k_base');
    expect(openAiEncodingFor('gpt-5')).toBe('o200k_base');
    expect(openAiEncodingFor('o3-mini')).toBe('o200k_base');
    expect(openAiEncodingFor('gpt-4')).toBe('cl100k_base');
    expect(openAiEncodingFor('gpt-4-0613')).toBe('cl100k_base');
    expect(openAiEncodingFor('gpt-3.5-turbo')).toBe('cl100k_base');
  });

  for (const example of cookbook.examples) {
    for (const [model, expected] of Object.entries(example.api_prompt_tokens as Record<string, number>)) {
      it(`reproduces the API's ${expected} prompt tokens for ${example.id} on ${model}`, async () => {
        const body = { model, messages: example.messages, ...(example.tools.length ? { tools: example.tools } : {}) };
        const result = await countRequest('openai', body);
        expect(result.tokens).toBe(expected);
        expect(result.estimate).toBe(false);
      });
    }
  }

  it('reproduces all 36 prompt_tokens the API reported in hmarr/openai-chat-tokens\' cases (gpt-3.5-turbo): exact', async () => {
    const { cases } = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'tokens', 'openai-chat-tokens-cases.json'), 'utf8'));
    expect(cases).toHaveLength(36);
    for (const { prompt_tokens: expected, ...request } of cases) {
      const result = await countRequest('openai', { model: 'gpt-3.5-turbo', ...request });
      expect(result.tokens, JSON.stringify(request).slice(0, 200)).toBe(expected);
      expect(result.estimate, JSON.stringify(request).slice(0, 200)).toBe(false);
    }
  });

  it('counts the same legacy requests on gpt-4o as an estimate, and agrees with gpt-tokenizer\'s count of them', async () => {
    let agree = 0;
    for (const { tokens, ...request } of functionCallingTestCases) {
      const result = await countRequest('openai', { model: 'gpt-4o', ...request });
      if (result.tokens === tokens) agree++;
      if (request.functions) expect(result).toMatchObject({ estimate: true, reasons: expect.arrayContaining(['legacy functions: rules measured on gpt-3.5-turbo (cl100k_base) only']) });
    }
    // gpt-tokenizer implements the same published rules (not measured on o200k either).
    expect(agree).toBeGreaterThanOrEqual(functionCallingTestCases.length - 4);
  });

  it('counts text inside anyOf branches, and says a count with such constructs is an estimate', async () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const tool = (description: string) => ({ type: 'function', function: { name: 'pick', description: 'Pick one.', parameters: { type: 'object', properties: { v: { anyOf: [{ type: 'string', description }, { type: 'number' }] } } } } });
    const short = await countRequest('openai', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools: [tool('A name.')] });
    const long = await countRequest('openai', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools: [tool(words)] });
    expect(long.tokens - short.tokens).toBeGreaterThan(400);
    expect(long).toMatchObject({ estimate: true, reasons: expect.arrayContaining(['nested schemas (anyOf)']) });
  });

  it('marks tool_calls and tool results as estimates, without counting ids and wrappers as text', async () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'How much is 2 plus 2?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'calculator', arguments: '{"a":2,"b":2}' } }] },
        { role: 'tool', tool_call_id: 'call_abc123', content: '4' },
      ],
    };
    const result = await countRequest('openai', body);
    expect(result).toMatchObject({ estimate: true, reasons: expect.arrayContaining(['assistant tool_calls', 'tool results']) });
    // Before: every field's JSON was counted, ids and wrappers included.
    expect(result.tokens).toBeLessThan(45);
  });
});

describe('Anthropic estimate', () => {
  it('reproduces the token counting endpoint\'s documented examples (14; 403 with the tool-use prompt of its revision, 346)', async () => {
    for (const example of anthropicFacts.count_tokens_endpoint_examples.examples) {
      const { input_tokens: expected, tool_choice: _choice, ...body } = example;
      const result = await countRequest('anthropic', { model: 'claude-opus-4-20250514', ...body });
      const overhead = result.breakdown.tool_use_system_prompt ?? 0;
      expect(result.tokens - overhead + (overhead ? 346 : 0)).toBe(expected);
      expect(result.estimate).toBe(true);
    }
  });

  it('takes the tool-use system prompt per model and per tool choice from the versioned table', () => {
    const cases: [string, 'auto' | 'any', number][] = [
      ['claude-opus-4-20250514', 'auto', 313],
      ['claude-sonnet-4-0', 'any', 315],
      ['claude-opus-4-1-20250805', 'auto', 313],
      ['claude-sonnet-4-5-20250929', 'auto', 496],
      ['claude-haiku-4-5', 'any', 588],
      ['claude-sonnet-4-6', 'auto', 497],
      ['claude-opus-4-7', 'any', 804],
      ['claude-opus-4-8', 'auto', 290],
      ['claude-opus-5', 'any', 406],
      ['claude-sonnet-5', 'auto', 354],
      ['claude-3-5-haiku-20241022', 'any', 355],
    ];
    for (const [model, choice, tokens] of cases) expect(anthropicToolOverhead(model, choice).tokens, model).toBe(tokens);
    expect(anthropicToolOverhead('claude-future-9', 'auto').label).toMatch(/assumed for claude-future-9/);
  });
});

describe('exact only where measured: the shape and the model family', () => {
  const weather = cookbook.examples.find((e: { id: string }) => e.id === 'cookbook-tools-weather');
  const body = (model: string, parameters?: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const tools = structuredClone(weather.tools) as { function: { parameters: Record<string, unknown> } }[];
    if (parameters) Object.assign(tools[0]!.function.parameters, parameters);
    return { model, messages: weather.messages, tools, ...extra };
  };
  const measured = (model: string) => weather.api_prompt_tokens[model] as number;

  it('counts on the measured families exactly, snapshots included; any other model is an estimate that says why', async () => {
    expect(await countRequest('openai', body('gpt-4o-2024-08-06'))).toMatchObject({ tokens: measured('gpt-4o'), estimate: false });
    expect(await countRequest('openai', body('gpt-4-0613'))).toMatchObject({ tokens: measured('gpt-4'), estimate: false });
    for (const model of ['gpt-4.1', 'gpt-5', 'o3-mini', 'totally-unknown', 'claude-sonnet-4-5', 'gpt-4-32k']) {
      const result = await countRequest('openai', body(model));
      expect(result, model).toMatchObject({ estimate: true, reasons: [`model ${model} is not one the counting rules were measured on`] });
      expect(result.tokens, model).toBeGreaterThan(90);
    }
    // Legacy functions: hmarr measured gpt-3.5-turbo only, not gpt-4.
    const legacy = await countRequest('openai', { model: 'gpt-4', messages: [{ role: 'user', content: 'hi' }], functions: [{ name: 'f', parameters: { type: 'object', properties: {} } }] });
    expect(legacy).toMatchObject({ estimate: true, reasons: ['legacy functions: rules measured on gpt-3.5-turbo (cl100k_base) only'] });
  });

  it('counts a root description, $defs and an additionalProperties schema (never 0), as an estimate naming each', async () => {
    const base = (await countRequest('openai', body('gpt-4o'))).tokens;
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const cases: [Record<string, unknown>, string][] = [
      [{ description: words }, 'the schema keyword "description" at the root'],
      [{ $defs: { unit: { type: 'string', description: words } } }, 'the schema keyword "$defs" at the root'],
      [{ additionalProperties: { type: 'string', description: words } }, 'the schema keyword "additionalProperties" at the root'],
    ];
    for (const [parameters, reason] of cases) {
      const result = await countRequest('openai', body('gpt-4o', parameters));
      expect(result, reason).toMatchObject({ estimate: true, reasons: [reason] });
      expect(result.tokens - base, reason).toBeGreaterThan(200);
    }
    // additionalProperties: false adds nothing and is measured (hmarr's cases have it).
    expect(await countRequest('openai', body('gpt-4o', { additionalProperties: false }))).toMatchObject({ tokens: measured('gpt-4o'), estimate: false });
  });

  it('counts response_format (Chat) and text.format (Responses) as text, and says so', async () => {
    const schema = { name: 'weather', schema: { type: 'object', properties: { summary: { type: 'string', description: 'A long summary of the weather for the next seven days' } } } };
    const chat = await countRequest('openai', body('gpt-4o', undefined, { response_format: { type: 'json_schema', json_schema: schema } }));
    expect(chat).toMatchObject({ estimate: true, reasons: ['response_format'] });
    expect(chat.breakdown.response_format).toBeGreaterThan(20);
    expect(chat.tokens).toBe(measured('gpt-4o') + chat.breakdown.response_format!);
    expect(await countRequest('openai', body('gpt-4o', undefined, { response_format: { type: 'text' } }))).toMatchObject({ tokens: measured('gpt-4o'), estimate: false });
    const responses = await countRequest('openai-responses', { model: 'gpt-4o', input: 'hi', text: { format: { type: 'json_schema', ...schema } } });
    expect(responses.reasons).toContain('text.format');
    expect(responses.breakdown['text.format']).toBeGreaterThan(20);
  });

  it('counts Responses input items that are not messages', async () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'get_current_weather', arguments: JSON.stringify({ location: 'San Francisco, CA', unit: 'celsius' }) };
    const without = await countRequest('openai-responses', { model: 'gpt-4o', input: [{ role: 'user', content: 'Weather?' }] });
    const withCall = await countRequest('openai-responses', { model: 'gpt-4o', input: [{ role: 'user', content: 'Weather?' }, call, { type: 'function_call_output', call_id: 'c1', output: '18 degrees and sunny' }] });
    expect(withCall.tokens - without.tokens).toBeGreaterThan(20);
  });

  it('refuses bodies shaped for another API, or conversations in a field it does not read', async () => {
    await expect(countRequest('openai', { model: 'gpt-4o', input: 'hi', instructions: 'Be brief.' })).rejects.toThrow(/looks like an OpenAI Responses request \("input"\), not OpenAI Chat Completions/);
    await expect(countRequest('openai-responses', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/has "messages", which OpenAI Responses requests do not use/);
    await expect(countRequest('openai', { model: 'gpt-4o', messages: 'hi' })).rejects.toThrow(/has "messages" as text \("hi"\); OpenAI Chat Completions takes a list of messages/);
    await expect(countRequest('gemini', { messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/has "messages", which Gemini requests do not use \(they take "contents"\)/);
    expect(requestShapeRefusal('anthropic', { model: 'gpt-4o', messages: [{ role: 'system', content: 'x' }] })).toEqual({ message: 'looks like an OpenAI Chat Completions request (a "system" message), not Anthropic Messages', hint: 'pass --provider openai' });
    expect(requestShapeRefusal('openai', { model: 'gemini-2.5-flash', contents: [] })).toMatchObject({ message: 'looks like a Gemini request ("contents"), not OpenAI Chat Completions' });
    expect(requestShapeRefusal('gemini', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })).toBeUndefined();
  });
});
