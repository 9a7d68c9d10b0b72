import type { CountText } from './openai-tokens.js';

/**
 * Anthropic's documented tool-use system prompt, added once when tools are sent, per model and
 * per tool choice (`auto`/`none` vs `any`/`tool`). A versioned table: the docs revise these values
 * (tool use overview page, Pricing: older revisions listed 346/313 for every Claude 4 model).
 * Source of the current revision: platform.claude.com/docs/en/agents-and-tools/tool-use/overview,
 * a copy dated 2026-09-20, read 2026-11-22 (docs/providers.md). The first matching row wins.
 */
export const ANTHROPIC_TOOL_OVERHEAD = {
  revision: '2026-09-20',
  table: [
    { match: /claude-opus-5/, label: 'Claude Opus 5', auto: 286, any: 406 },
    { match: /claude-opus-4-8/, label: 'Claude Opus 4.8', auto: 290, any: 410 },
    { match: /claude-opus-4-7/, label: 'Claude Opus 4.7', auto: 675, any: 804 },
    { match: /claude-(opus|sonnet)-4-6/, label: 'Claude Opus / Sonnet 4.6', auto: 497, any: 589 },
    { match: /claude-(opus|sonnet|haiku)-4-5/, label: 'Claude Opus / Sonnet / Haiku 4.5', auto: 496, any: 588 },
    { match: /claude-sonnet-5/, label: 'Claude Sonnet 5', auto: 354, any: 474 },
    { match: /claude-(opus|sonnet)-4(-[01])?(-\d{8})?$|claude-opus-4-1/, label: 'Claude Opus 4.1 / Opus 4 / Sonnet 4', auto: 313, any: 315 },
    { match: /claude-3-5-haiku|claude-haiku-3-5/, label: 'Claude Haiku 3.5', auto: 264, any: 355 },
  ],
  /** Models the current revision no longer lists, from the 2025 revision. */
  earlier: [
    { match: /claude-3-7-sonnet|claude-sonnet-3-7/, label: 'Claude Sonnet 3.7 (2025 revision)', auto: 346, any: 313 },
    { match: /claude-3-opus/, label: 'Claude Opus 3 (2025 revision)', auto: 530, any: 281 },
    { match: /claude-3-sonnet/, label: 'Claude Sonnet 3 (2025 revision)', auto: 159, any: 235 },
    { match: /claude-3-haiku/, label: 'Claude Haiku 3 (2025 revision)', auto: 264, any: 340 },
  ],
} as const;

/** Models from Claude Opus 4.7 on use a tokenizer that counts about 30% more (Anthropic token-counting docs). */
const NEW_TOKENIZER = /claude-opus-4-(7|[89])|claude-(opus|sonnet|haiku)-[5-9]/;

/** The tool-use system prompt for a model and tool choice; an unknown model gets the newest Sonnet row, said in the label. */
export function anthropicToolOverhead(model: string, choice: 'auto' | 'any'): { tokens: number; label: string } {
  const row = [...ANTHROPIC_TOOL_OVERHEAD.table, ...ANTHROPIC_TOOL_OVERHEAD.earlier].find((r) => r.match.test(model));
  const used = row ?? ANTHROPIC_TOOL_OVERHEAD.table.find((r) => r.label === 'Claude Sonnet 5')!;
  return { tokens: choice === 'any' ? used.any : used.auto, label: row ? used.label : `${used.label}, assumed for ${model}` };
}

/**
 * Anthropic has no public tokenizer for current models. Estimate: o200k_base tokens of the tool's
 * JSON definition × 0.79, plus 4 per request and 3 per message. Calibrated so that the token
 * counting endpoint's two documented examples come out exactly (14, and 403 with one tool, whose
 * tool-use prompt was 346 tokens in the revision the example belongs to); expect ±15% elsewhere,
 * and about 30% more on models with the newer tokenizer.
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
