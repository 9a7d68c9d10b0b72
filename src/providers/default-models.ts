import type { ProviderName } from './types.js';

/** The model each provider is budgeted and talked to with when none is named. */
export const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: 'gpt-4o',
  'openai-responses': 'gpt-4o',
  anthropic: 'claude-sonnet-5',
  gemini: 'gemini-2.5-flash',
};
