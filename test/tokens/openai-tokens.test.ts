import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionCallingTestCases } from 'gpt-tokenizer/fixtures/functionCallingTestCases';
import { describe, expect, it } from 'vitest';
import { countRequest } from '../../src/tokens/count-request.js';
import { anthropicToolOverhead } from '../../src/tokens/estimates.js';
import { openAiEncodingFor } from '../../src/tokens/openai-tokens.js';
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
