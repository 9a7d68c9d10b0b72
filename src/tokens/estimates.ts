import type { CountText } from './openai-tokens.js';

/**
 * Anthropic's documented tool-use system prompt, added once when tools are sent (Anthropic docs,
 * "Tool use with Claude", Pricing; ../shared/data/tokens/anthropic_doc_token_facts.json). A
 * versioned table: the values differ between revisions of the docs.
 */
export const ANTHROPIC_TOOL_OVERHEAD = {
  version: '2026-11 (tool use overview page)',
  table: [
    { match: /claude-(opus|sonnet)-4|claude-haiku-4|claude-(3-7|3\.7)-sonnet|claude-sonnet-3-7/, label: 'Claude 4.x, Sonnet 3.7', auto: 346, any: 313 },
    { match: /claude-3-5-haiku|claude-haiku-3-5/, label: 'Claude Haiku 3.5', auto: 264, any: 340 },
    { match: /claude-3-opus/, label: 'Claude Opus 3', auto: 530, any: 281 },
    { match: /claude-3-sonnet/, label: 'Claude Sonnet 3', auto: 159, any: 235 },
    { match: /claude-3-haiku/, label: 'Claude Haiku 3', auto: 264, any: 340 },
  ],
} as const;

/** Models from Claude Opus 4.7 on use a tokenizer that counts about 30% more (Anthropic token-counting docs). */
const NEW_TOKENIZER = /claude-opus-4-(7|[89])|claude-(opus|sonnet|haiku)-[5-9]/;

export function anthropicToolOverhead(model: string, choice: 'auto' | 'any'): { tokens: number; label: string } {
  const row = ANTHROPIC_TOOL_OVERHEAD.table.find((r) => r.match.test(model)) ?? ANTHROPIC_TOOL_OVERHEAD.table[0];
  return { tokens: choice === 'any' ? row.any : row.auto, label: row.label };
}

/**
 * Anthropic has no public tokenizer for current models. Estimate: o200k_base tokens of the tool's
 * JSON definition × 0.79, plus 4 per request and 3 per message. Calibrated so that the token
 * counting endpoint's two documented examples come out exactly (14, and 403 with one tool); expect
 * ±15% elsewhere, and about 30% more on models with the newer tokenizer.
 */
export const ANTHROPIC_ESTIMATE = { definitionFactor: 0.79, perRequest: 4, perMessage: 3 } as const;

export function anthropicScale(model: string): number {
  return NEW_TOKENIZER.test(model) ? 1.3 : 1;
}

export function estimateAnthropicDefinition(definition: unknown, count: CountText, model: string): number {
  return Math.round(count(JSON.stringify(definition)) * ANTHROPIC_ESTIMATE.definitionFactor * anthropicScale(model));
}

export function estimateAnthropicText(text: string, count: CountText, model: string): number {
  return Math.round(count(text) * anthropicScale(model));
}

/** Gemini: about 4 characters per token (Google AI docs, "Understand and count tokens"). */
export const GEMINI_CHARS_PER_TOKEN = 4;

export function estimateGemini(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Math.ceil(text.length / GEMINI_CHARS_PER_TOKEN);
}
