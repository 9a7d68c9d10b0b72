import type { Prices } from './suite-types.js';

/**
 * List prices in US dollars per million tokens (input, output), standard tier, no batch or cache
 * discounts. Prices change: a suite's `prices:` or `toolman test --prices FILE` overrides any
 * row, and reports print PRICES_DATE. Sources, read on 2026-11-22:
 * - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing (the model pricing table).
 *   Claude Haiku 5.5 is priced in bands; the row is the band for prompts up to 100,000 tokens.
 * - OpenAI: the rates of OpenAI's pricing page (developers.openai.com/api/docs/pricing) as a
 *   March 2026 copy of it gives them (deploybase.ai/articles/openai-pricing): toolman's search
 *   tool held no copy of the page itself, so these rows are second-hand.
 */
export const PRICES_DATE = '2026-11-22';

export const DEFAULT_PRICES: Prices = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5.1': { input: 1.25, output: 10 },
  'gpt-5.4': { input: 2.5, output: 15 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-fable-5-1': { input: 10, output: 50 },
  'claude-opus-5-5': { input: 4, output: 20 },
  'claude-opus-5': { input: 5, output: 25 },
  'claude-opus-4-8': { input: 5, output: 25 },
  'claude-opus-4-7': { input: 5, output: 25 },
  'claude-opus-4-6': { input: 5, output: 25 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-sonnet-5-5': { input: 2, output: 10 },
  'claude-sonnet-5': { input: 2, output: 10 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-haiku-5-5': { input: 0.1, output: 0.5 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
};

/**
 * The price row for a model: an exact name, else the longest known name it starts with
 * (`claude-haiku-4-5-20251001` is priced as `claude-haiku-4-5`); undefined when unknown.
 */
export function priceOf(model: string, prices: Prices): Prices[string] | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  let best: string | undefined;
  for (const name of Object.keys(prices)) if (model.startsWith(name) && (!best || name.length > best.length)) best = name;
  return best ? prices[best] : undefined;
}

/**
 * Dollars for these token counts, or null when the model has no price. `cached` is the part of
 * `input` read from the provider's prompt cache: billed at the row's `cached_input` price when it
 * gives one (a suite's `prices:` or --prices), else at the input price like the rest (the built-in
 * rows carry no cache prices, so their costs are upper bounds when the cache is used).
 */
export function costOf(model: string, prices: Prices, input: number, output: number, cached = 0): number | null {
  const row = priceOf(model, prices);
  if (!row) return null;
  const reused = row.cached_input === undefined ? 0 : Math.min(cached, input);
  return ((input - reused) * row.input + reused * (row.cached_input ?? row.input) + output * row.output) / 1_000_000;
}
