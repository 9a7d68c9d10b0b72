import { anthropicCountTokens } from './anthropic/anthropic-count-tokens.js';
import { credentialsFor } from './credentials.js';
import { geminiCountTokens } from './gemini/gemini-count-tokens.js';
import { openAiResponsesCountTokens } from './openai/openai-count-tokens.js';
import type { SecretSet } from '../shared/secrets.js';
import type { ProviderName } from './types.js';

/** A request body's input tokens as the provider counts them (its counting endpoint). */
export type ProviderCounter = (payload: Record<string, unknown>) => Promise<number>;

/**
 * The provider's own token counter for `model`: Anthropic's count_tokens, Gemini's countTokens,
 * the Responses API's input_tokens. Chat Completions has no counting endpoint (undefined: toolman's
 * count is what there is). Needs the provider's key; a missing key is a usage error.
 */
export function exactCounter(provider: ProviderName, model: string, env: Record<string, string | undefined>, secrets?: SecretSet): ProviderCounter | undefined {
  if (provider === 'openai') return undefined;
  const credentials = credentialsFor(provider, env, { purpose: (label) => `--exact asks ${label} for the count`, ...(secrets ? { secrets } : {}) });
  if (provider === 'openai-responses') return (payload) => openAiResponsesCountTokens(model, payload, credentials);
  return provider === 'anthropic' ? (payload) => anthropicCountTokens({ ...payload, model }, credentials) : (payload) => geminiCountTokens(model, payload, credentials);
}

/**
 * Why a provider's own count cannot be had, when it cannot: OpenAI counts input tokens only for
 * Responses requests (`POST /v1/responses/input_tokens`, openai-node `responses.inputTokens.count`),
 * and Chat Completions has no counting endpoint (docs/providers.md, "Token counts").
 */
export function exactUnavailable(provider: ProviderName): string | undefined {
  return provider === 'openai'
    ? 'OpenAI has no token count for Chat Completions requests: its counting endpoint (POST /v1/responses/input_tokens) takes Responses requests, so nothing was asked; -P openai-responses --exact asks it'
    : undefined;
}
