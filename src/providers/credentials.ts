import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { ApiCredentials } from './http-json.js';
import type { ProviderName } from './types.js';

/** The environment variables each provider's key and base URL come from. */
export const PROVIDER_ENV: Record<ProviderName, { key: readonly string[]; baseUrl: string; label: string }> = {
  openai: { key: ['OPENAI_API_KEY'], baseUrl: 'OPENAI_BASE_URL', label: 'OpenAI' },
  'openai-responses': { key: ['OPENAI_API_KEY'], baseUrl: 'OPENAI_BASE_URL', label: 'OpenAI' },
  anthropic: { key: ['ANTHROPIC_API_KEY'], baseUrl: 'ANTHROPIC_BASE_URL', label: 'Anthropic' },
  gemini: { key: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], baseUrl: 'GEMINI_BASE_URL', label: 'Gemini' },
};

/**
 * A provider's key and base URL from the environment; a missing key is a usage error naming the
 * variable to set. `purpose` completes the message: "`purpose` and needs OPENAI_API_KEY".
 */
export function credentialsFor(provider: ProviderName, env: Record<string, string | undefined>, purpose: (label: string) => string): ApiCredentials {
  const spec = PROVIDER_ENV[provider];
  const apiKey = spec.key.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  if (!apiKey) {
    throw new ToolmanError(ErrorCode.USAGE, `${purpose(spec.label)} and needs ${spec.key[0]}`, { hint: `set ${spec.key[0]} in the environment` });
  }
  const baseUrl = env[spec.baseUrl];
  return { apiKey, ...(baseUrl ? { baseUrl } : {}) };
}
