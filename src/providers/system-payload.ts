import type { ProviderName } from './types.js';

/**
 * A system prompt in a provider's request shape: Chat Completions takes it as the first message,
 * Responses as `instructions`, Anthropic as `system`, Gemini as `systemInstruction` (sources in
 * docs/providers.md). Empty text gives no keys.
 */
export function systemPayloadFor(provider: ProviderName, text: string): Record<string, unknown> {
  if (!text) return {};
  switch (provider) {
    case 'openai':
      return { messages: [{ role: 'system', content: text }] };
    case 'openai-responses':
      return { instructions: text };
    case 'anthropic':
      return { system: text };
    case 'gemini':
      return { systemInstruction: { parts: [{ text }] } };
  }
}
