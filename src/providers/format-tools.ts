import { formatAnthropic } from './anthropic/anthropic-format.js';
import { formatGemini } from './gemini/gemini-format.js';
import { formatOpenAi } from './openai/openai-format.js';
import type { FormatInput, FormatResult, ProviderName } from './types.js';

/** One provider's request fragment for the given tools. Pure; never throws for a tool it cannot express. */
export function formatTools(provider: ProviderName, input: FormatInput): FormatResult {
  switch (provider) {
    case 'openai':
    case 'openai-responses':
      return formatOpenAi(input, provider);
    case 'anthropic':
      return formatAnthropic(input);
    case 'gemini':
      return formatGemini(input);
  }
}
