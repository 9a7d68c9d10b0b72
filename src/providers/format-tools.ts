import { formatAnthropic } from './anthropic/anthropic-format.js';
import { formatGemini } from './gemini/gemini-format.js';
import { formatOpenAi } from './openai/openai-format.js';
import { systemPayloadFor } from './system-payload.js';
import type { FormatInput, FormatResult, ProviderName } from './types.js';

/** One provider's request fragment for the given tools. Pure; never throws for a tool it cannot express. */
export function formatTools(provider: ProviderName, input: FormatInput): FormatResult {
  const result = formatFor(provider, input);
  result.toolChoice = input.toolChoice;
  result.systemPayload = systemPayloadFor(provider, result.prompts.system.join('\n\n'));
  return result;
}

function formatFor(provider: ProviderName, input: FormatInput): FormatResult {
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

/** What the provider receives from the tools: their keys and their system-prompt contributions, as `format` shows and `budget` counts them. */
export function requestFragment(result: Pick<FormatResult, 'payload' | 'systemPayload'>): Record<string, unknown> {
  return { ...result.payload, ...result.systemPayload };
}
