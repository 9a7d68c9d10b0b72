import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { processSecrets, type SecretSet } from '../shared/secrets.js';
import type { ApiCredentials } from './http-json.js';
import type { ProviderName } from './types.js';

/** The environment variables each provider's key and base URL come from. */
export const PROVIDER_ENV: Record<ProviderName, { key: readonly string[]; baseUrl: string; label: string }> = {
  openai: { key: ['OPENAI_API_KEY'], baseUrl: 'OPENAI_BASE_URL', label: 'OpenAI' },
  'openai-responses': { key: ['OPENAI_API_KEY'], baseUrl: 'OPENAI_BASE_URL', label: 'OpenAI' },
  anthropic: { key: ['ANTHROPIC_API_KEY'], baseUrl: 'ANTHROPIC_BASE_URL', label: 'Anthropic' },
  gemini: { key: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], baseUrl: 'GEMINI_BASE_URL', label: 'Gemini' },
};

/** The shortest value treated as a real key (and so as a secret). */
export const MIN_KEY_LENGTH = 8;

export interface CredentialsRequest {
  /** Completes the message for a missing key: "`purpose(label)` and needs OPENAI_API_KEY". */
  purpose: (label: string) => string;
  /** How to go on without a key (the message's hint); default: set the variable. */
  hint?: (keyVariable: string) => string;
  /** A base URL given explicitly (a flag, a catalog entry); else the provider's variable. */
  baseUrl?: string;
  /**
   * A base URL is enough: local servers (Ollama, vLLM, llama.cpp, LM Studio) take any key, so
   * one is sent as a placeholder. Default false (the provider's own endpoints need the key).
   */
  keyOptionalWithBaseUrl?: boolean;
  /** Where the key is registered as a secret the moment it is read, so no output ever shows it. */
  secrets?: SecretSet;
}

/**
 * The one lookup of a provider's key and base URL. The key is a secret from the moment it is
 * read (`secrets`, and the process's own `processSecrets`): an API or proxy that echoes it back
 * (an error quoting the Authorization header) never gets it into events, transcripts,
 * recordings, reports or errors. A missing key is a usage
 * error that names the variable to set.
 */
export function credentialsFor(provider: ProviderName, env: Record<string, string | undefined>, request: CredentialsRequest): ApiCredentials {
  const spec = PROVIDER_ENV[provider];
  const apiKey = spec.key.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  const baseUrl = request.baseUrl ?? (env[spec.baseUrl] || undefined);
  // Real keys are long (OpenAI, Anthropic and Gemini keys run to 39 characters and more); a few
  // letters are a placeholder a local server takes (`ollama`, `EMPTY`), and redacting them would
  // blank ordinary words in every output.
  if (apiKey && apiKey.length >= MIN_KEY_LENGTH) {
    request.secrets?.add(apiKey);
    processSecrets.add(apiKey);
  }
  if (!apiKey && !(baseUrl && request.keyOptionalWithBaseUrl)) {
    throw new ToolmanError(ErrorCode.USAGE, `${request.purpose(spec.label)} and needs ${spec.key[0]}`, { hint: request.hint?.(spec.key[0]!) ?? `set ${spec.key[0]} in the environment` });
  }
  return { apiKey: apiKey ?? 'local', ...(baseUrl ? { baseUrl } : {}) };
}
