import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionCallingTestCases } from 'gpt-tokenizer/fixtures/functionCallingTestCases';
import { describe, expect, it } from 'vitest';
import { countRequest } from '../../src/tokens/count-request.js';
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

  it('matches every function-calling case gpt-tokenizer records for gpt-4o', async () => {
    for (const { tokens, ...request } of functionCallingTestCases) {
      const result = await countRequest('openai', { model: 'gpt-4o', ...request });
      expect(result.tokens, JSON.stringify(request).slice(0, 200)).toBe(tokens);
    }
  });
});

describe('Anthropic estimate', () => {
  it('reproduces the token counting endpoint\'s documented examples', async () => {
    for (const example of anthropicFacts.count_tokens_endpoint_examples.examples) {
      const { input_tokens: expected, tool_choice: _choice, ...body } = example;
      const result = await countRequest('anthropic', { model: 'claude-sonnet-4-5', ...body });
      expect(result.tokens).toBe(expected);
      expect(result.estimate).toBe(true);
    }
  });
});
