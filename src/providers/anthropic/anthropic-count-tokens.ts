import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { postJson, type ApiCredentials } from '../http-json.js';

/**
 * Anthropic's token counting endpoint (POST /v1/messages/count_tokens): the provider's own count
 * of a Messages request. Free, rate limited; needs ANTHROPIC_API_KEY.
 */
export async function anthropicCountTokens(body: Record<string, unknown>, credentials: ApiCredentials): Promise<number> {
  const base = (credentials.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  const request = { ...body, messages: Array.isArray(body.messages) && body.messages.length ? body.messages : [{ role: 'user', content: '.' }] };
  const reply = await postJson(`${base}/v1/messages/count_tokens`, request, { 'x-api-key': credentials.apiKey, 'anthropic-version': '2023-06-01' }, 'Anthropic token counting', credentials.timeoutMs);
  if (typeof reply.input_tokens !== 'number') throw new ToolmanError(ErrorCode.PROVIDER, 'Anthropic token counting answered without input_tokens');
  return reply.input_tokens;
}
