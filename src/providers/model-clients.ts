import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { ClientConnection, ModelClient } from './model-client.js';
import type { ProviderName } from './types.js';

/** Providers the live loop can talk to. */
export const CHAT_PROVIDERS = ['openai', 'openai-responses', 'anthropic', 'gemini'] as const;
export type ChatProvider = (typeof CHAT_PROVIDERS)[number];

/**
 * The client for a provider, its SDK loaded only now (a one-shot chat with OpenAI never loads
 * Anthropic's SDK, and no other command loads either).
 */
export async function createModelClient(provider: ProviderName, model: string, connection: ClientConnection): Promise<ModelClient> {
  switch (provider) {
    case 'openai': {
      const { OpenAiChatClient } = await import('./openai/openai-chat-client.js');
      return new OpenAiChatClient(model, connection);
    }
    case 'openai-responses': {
      const { OpenAiResponsesClient } = await import('./openai/openai-responses-client.js');
      return new OpenAiResponsesClient(model, connection);
    }
    case 'anthropic': {
      const { AnthropicClient } = await import('./anthropic/anthropic-client.js');
      return new AnthropicClient(model, connection);
    }
    case 'gemini': {
      const { GeminiChatClient } = await import('./gemini/gemini-chat-client.js');
      return new GeminiChatClient(model, connection);
    }
    default:
      throw new ToolmanError(ErrorCode.USAGE, `toolman chat does not talk to ${provider} yet`, {
        hint: `providers: ${CHAT_PROVIDERS.join(', ')} (and any OpenAI-compatible server with --provider openai --base-url URL)`,
      });
  }
}
