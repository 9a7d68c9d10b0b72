import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { postJson, type ApiCredentials } from '../http-json.js';

/** Gemini's countTokens (POST /v1beta/models/{model}:countTokens); needs GEMINI_API_KEY. */
export async function geminiCountTokens(model: string, body: Record<string, unknown>, credentials: ApiCredentials): Promise<number> {
  const base = (credentials.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '');
  const request = { generateContentRequest: { model: `models/${model}`, contents: body.contents ?? [{ role: 'user', parts: [{ text: '.' }] }], ...(body.tools ? { tools: body.tools } : {}), ...(body.systemInstruction ? { systemInstruction: body.systemInstruction } : {}) } };
  const reply = await postJson(`${base}/v1beta/models/${encodeURIComponent(model)}:countTokens`, request, { 'x-goog-api-key': credentials.apiKey }, 'Gemini countTokens', credentials.timeoutMs);
  if (typeof reply.totalTokens !== 'number') throw new ToolmanError(ErrorCode.PROVIDER, 'Gemini countTokens answered without totalTokens');
  return reply.totalTokens;
}
