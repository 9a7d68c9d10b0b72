import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { ApiCredentials } from '../http-json.js';

/**
 * The Responses API's own input-token count (POST /v1/responses/input_tokens, openai-node's
 * `responses.inputTokens.count`, read 2026-11-22): exact for a Responses request. The SDK is
 * loaded only when a count is asked for.
 */
export async function openAiResponsesCountTokens(model: string, body: Record<string, unknown>, credentials: ApiCredentials): Promise<number> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: credentials.apiKey, ...(credentials.baseUrl ? { baseURL: credentials.baseUrl } : {}), timeout: credentials.timeoutMs ?? 30_000, maxRetries: 2 });
  try {
    const reply = await client.responses.inputTokens.count({ ...body, model } as never);
    if (typeof reply.input_tokens !== 'number') throw new ToolmanError(ErrorCode.PROVIDER, 'OpenAI input-token counting answered without input_tokens');
    return reply.input_tokens;
  } catch (error) {
    if (error instanceof ToolmanError) throw error;
    const status = (error as { status?: number }).status;
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolmanError(ErrorCode.PROVIDER, `OpenAI input-token counting failed: ${status ? `HTTP ${status}: ` : ''}${message}`, {
      hint: status === 401 || status === 403 ? 'check the API key' : 'check the network and OPENAI_BASE_URL',
    });
  }
}
