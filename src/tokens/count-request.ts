import type { ProviderName } from '../providers/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { counterFor } from './count-payload.js';
import { ANTHROPIC_ESTIMATE, anthropicToolOverhead, estimateAnthropicDefinition, estimateAnthropicText, estimateGemini } from './estimates.js';
import { countOpenAiMessages, countOpenAiTools, openAiEncodingFor, type ChatMessageLike, type OpenAiFunction } from './openai-tokens.js';
import { isRecord } from '../shared/is-record.js';

export interface RequestCount {
  provider: ProviderName;
  model: string;
  estimate: boolean;
  tokens: number;
  method: string;
  breakdown: Record<string, number>;
}

type Body = Record<string, unknown>;

/**
 * Counts a whole request body as the provider bills its input: messages, system, tools and tool
 * choice. OpenAI Chat Completions is counted exactly (the cookbook's rules with the model's real
 * tokenizer; legacy `functions` on o200k models with gpt-tokenizer's own chat counter, which
 * matches the API); the others are estimates (see docs/providers.md).
 */
export async function countRequest(provider: ProviderName, body: unknown, model?: string): Promise<RequestCount> {
  if (!isRecord(body)) throw new ToolmanError(ErrorCode.USAGE, 'the request must be a JSON object (a request body)');
  const chosen = model ?? (typeof body.model === 'string' ? body.model : DEFAULT_MODELS[provider]);
  const count = await counterFor(provider, chosen);
  const breakdown: Record<string, number> = {};

  if (provider === 'openai' || provider === 'openai-responses') {
    const encoding = openAiEncodingFor(chosen);
    const messages: ChatMessageLike[] = provider === 'openai' ? asMessages(body.messages) : responsesInput(body);
    if (encoding === 'o200k_base') {
      // gpt-tokenizer's chat counter matches the API on o200k models, including legacy
      // `functions`, `function_call` and function-role messages (its recorded cases).
      const { default: gpt4o } = await import('gpt-tokenizer/model/gpt-4o');
      const legacy = provider === 'openai' && Array.isArray(body.functions) && body.functions.length > 0;
      const tokens = gpt4o.countChatCompletionTokens!({
        messages: messages as never,
        ...(legacy ? { functions: body.functions as never } : {}),
        ...(legacy && body.function_call !== undefined ? { function_call: body.function_call as never } : {}),
      });
      if (legacy) {
        return { provider, model: chosen, estimate: false, tokens, method: 'o200k_base, gpt-tokenizer countChatCompletionTokens (legacy functions)', breakdown: { messages_and_functions: tokens } };
      }
      breakdown.messages = tokens;
    } else {
      breakdown.messages = countOpenAiMessages(messages, count);
    }
    const functions: OpenAiFunction[] = [];
    for (const entry of [...(Array.isArray(body.tools) ? body.tools : []), ...(encoding === 'cl100k_base' && Array.isArray(body.functions) ? body.functions : [])]) {
      if (!isRecord(entry)) continue;
      const fn = isRecord(entry.function) ? entry.function : entry.type === 'function' || typeof entry.name === 'string' ? entry : undefined;
      if (fn && typeof fn.name === 'string') functions.push(fn as unknown as OpenAiFunction);
    }
    if (functions.length) breakdown.tools = countOpenAiTools(functions, count, encoding).total;
    const tokens = Object.values(breakdown).reduce((a, b) => a + b, 0);
    return { provider, model: chosen, estimate: provider === 'openai-responses', tokens, method: `${encoding}, OpenAI cookbook rules${provider === 'openai-responses' ? ' (Chat Completions rules applied to the Responses input: an estimate)' : ''}`, breakdown };
  }

  if (provider === 'anthropic') {
    const messages = asMessages(body.messages);
    const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
    const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? body.system.map((b) => (isRecord(b) ? String(b.text ?? '') : '')).join('\n') : '';
    breakdown.request = ANTHROPIC_ESTIMATE.perRequest;
    breakdown.system = system ? estimateAnthropicText(system, count, chosen) : 0;
    breakdown.messages = messages.reduce((sum, m) => sum + ANTHROPIC_ESTIMATE.perMessage + estimateAnthropicText(contentText(m.content), count, chosen), 0);
    breakdown.tools = tools.reduce((sum, t) => sum + (t.defer_loading === true ? 0 : estimateAnthropicDefinition(t, count, chosen)), 0);
    const choice = isRecord(body.tool_choice) ? String(body.tool_choice.type) : 'auto';
    breakdown.tool_use_system_prompt = tools.length ? anthropicToolOverhead(chosen, choice === 'any' || choice === 'tool' ? 'any' : 'auto').tokens : 0;
    return { provider, model: chosen, estimate: true, tokens: Object.values(breakdown).reduce((a, b) => a + b, 0), method: 'estimate calibrated on Anthropic\'s documented count_tokens examples', breakdown };
  }

  breakdown.contents = estimateGemini(body.contents ?? '');
  breakdown.system = body.systemInstruction ? estimateGemini(body.systemInstruction) : 0;
  breakdown.tools = body.tools ? estimateGemini(body.tools) : 0;
  return { provider, model: chosen, estimate: true, tokens: Object.values(breakdown).reduce((a, b) => a + b, 0), method: 'estimate: 4 characters per token', breakdown };
}

function asMessages(value: unknown): ChatMessageLike[] {
  return Array.isArray(value) ? value.filter(isRecord).map((m) => ({ ...m, content: typeof m.content === 'string' ? m.content : contentText(m.content) })) : [];
}

function responsesInput(body: Body): ChatMessageLike[] {
  const messages: ChatMessageLike[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else messages.push(...asMessages(body.input));
  return messages;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isRecord(part) ? String(part.text ?? (part.type === 'tool_result' ? contentText(part.content) : JSON.stringify(part.input ?? ''))) : String(part))).join('\n');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}
