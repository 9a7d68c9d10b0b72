import { anthropicCountTokens } from './anthropic/anthropic-count-tokens.js';
import { credentialsFor } from './credentials.js';
import { geminiCountTokens } from './gemini/gemini-count-tokens.js';
import type { ProviderName } from './types.js';

/** A request body's input tokens as the provider counts them (its counting endpoint). */
export type ProviderCounter = (payload: Record<string, unknown>) => Promise<number>;

/**
 * The provider's own token counter for `model`, or undefined where toolman's count is already the
 * provider's rule (OpenAI). Needs the provider's key; a missing key is a usage error.
 */
export function exactCounter(provider: ProviderName, model: string, env: Record<string, string | undefined>): ProviderCounter | undefined {
  if (provider === 'openai' || provider === 'openai-responses') return undefined;
  const credentials = credentialsFor(provider, env, (label) => `--exact asks ${label} for the count`);
  return provider === 'anthropic' ? (payload) => anthropicCountTokens({ ...payload, model }, credentials) : (payload) => geminiCountTokens(model, payload, credentials);
}
