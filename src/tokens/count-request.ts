import type { ProviderName } from '../providers/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { counterFor } from './count-payload.js';
import { ANTHROPIC_ESTIMATE, anthropicToolOverhead, estimateAnthropicDefinition, estimateAnthropicText, estimateGemini } from './estimates.js';
import { functionNamespaceText, type FunctionLike } from './openai-function-text.js';
import { countOpenAiMessages, countOpenAiTools, legacyFunctionsMeasured, openAiEncodingFor, unmeasuredModelReason, type ChatMessageLike, type OpenAiFunction } from './openai-tokens.js';
import { requestShapeRefusal } from './request-shape.js';
import { isRecord } from '../shared/is-record.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';

export interface RequestCount {
  provider: ProviderName;
  model: string;
  estimate: boolean;
  /** Why the count is an estimate (empty when exact). */
  reasons: string[];
  tokens: number;
  method: string;
  breakdown: Record<string, number>;
}

type Body = Record<string, unknown>;

/**
 * Counts a whole request body as the provider bills its input: messages, system, tools and tool
 * choice. OpenAI Chat Completions is exact where every part follows rules measured against the
 * API's prompt_tokens (docs/providers.md: the cookbook's for messages and tools, hmarr's for
 * legacy functions on cl100k models), with the model's real tokenizer; everything else is counted
 * too and marked an estimate, with the reasons. Anthropic and Gemini are estimates.
 */
export async function countRequest(provider: ProviderName, body: unknown, model?: string): Promise<RequestCount> {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new ToolmanError(ErrorCode.USAGE, `the request body nests deeper than ${MAX_JSON_DEPTH} levels; no real request does`);
  if (!isRecord(body)) throw new ToolmanError(ErrorCode.USAGE, 'the request must be a JSON object (a request body)');
  const refusal = requestShapeRefusal(provider, body);
  if (refusal) throw new ToolmanError(ErrorCode.USAGE, `the request ${refusal.message}`, { hint: refusal.hint });
  const chosen = model ?? (typeof body.model === 'string' ? body.model : DEFAULT_MODELS[provider]);
  const count = await counterFor(provider, chosen);
  const breakdown: Record<string, number> = {};

  if (provider === 'openai' || provider === 'openai-responses') {
    const encoding = openAiEncodingFor(chosen);
    const messages: ChatMessageLike[] = provider === 'openai' ? rawMessages(body.messages) : responsesInput(body);
    const reasons = new Set<string>();
    if (provider === 'openai-responses') reasons.add('Responses API: Chat Completions rules applied (--exact asks the API)');
    const unmeasured = unmeasuredModelReason(chosen);
    if (unmeasured) reasons.add(unmeasured);
    const legacy = Array.isArray(body.functions) && body.functions.length > 0;
    // With legacy `functions`, the first system message carries the definitions (measured: a
    // newline is added to it, and 4 tokens are saved when there is one).
    let padded = false;
    const counted = countOpenAiMessages(
      messages.map((m) => {
        if (!legacy || padded || m.role !== 'system' || typeof m.content !== 'string') return m;
        padded = true;
        return { ...m, content: m.content + '\n' };
      }),
      count,
    );
    breakdown.messages = counted.tokens;
    for (const reason of counted.reasons) reasons.add(reason);
    if (legacy) {
      const functions = (body.functions as unknown[]).filter(isRecord) as unknown as FunctionLike[];
      breakdown.functions = count(functionNamespaceText(functions)) + LEGACY_FUNCTIONS.perRequest - (messages.some((m) => m.role === 'system') ? LEGACY_FUNCTIONS.withSystem : 0);
      const choice = body.function_call;
      if (choice === 'none') breakdown.function_call = LEGACY_FUNCTIONS.callNone;
      else if (isRecord(choice) && typeof choice.name === 'string') breakdown.function_call = count(choice.name) + LEGACY_FUNCTIONS.callNamed;
      if (!legacyFunctionsMeasured(chosen)) reasons.add('legacy functions: rules measured on gpt-3.5-turbo (cl100k_base) only');
    }
    const tools: OpenAiFunction[] = [];
    for (const entry of Array.isArray(body.tools) ? body.tools : []) {
      if (!isRecord(entry)) continue;
      const fn = isRecord(entry.function) ? entry.function : entry.type === 'function' || typeof entry.name === 'string' ? entry : undefined;
      if (fn && typeof fn.name === 'string') tools.push(fn as unknown as OpenAiFunction);
      else reasons.add('tools other than functions');
    }
    if (tools.length) {
      const counted = countOpenAiTools(tools, count, encoding);
      breakdown.tools = counted.total;
      for (const fn of counted.perFunction) for (const reason of fn.reasons) reasons.add(reason);
    }
    if (body.tool_choice !== undefined && body.tool_choice !== 'auto') reasons.add('tool_choice');
    // Structured output: its schema is in the prompt too, by no measured rule (counted as its JSON).
    const structured = provider === 'openai' ? body.response_format : isRecord(body.text) ? body.text.format : undefined;
    if (structured !== undefined && !(isRecord(structured) && structured.type === 'text')) {
      const name = provider === 'openai' ? 'response_format' : 'text.format';
      reasons.add(name);
      breakdown[name] = count(JSON.stringify(isRecord(structured) && isRecord(structured.json_schema) ? structured.json_schema : structured));
    }
    const tokens = Object.values(breakdown).reduce((a, b) => a + b, 0);
    const method = `${encoding}, ${legacy ? 'legacy functions rules (hmarr/openai-chat-tokens)' : 'OpenAI cookbook rules'}`;
    return { provider, model: chosen, estimate: reasons.size > 0, tokens, method, reasons: [...reasons], breakdown };
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
    return { provider, model: chosen, estimate: true, reasons: ['no public tokenizer for current Claude models'], tokens: Object.values(breakdown).reduce((a, b) => a + b, 0), method: 'estimate calibrated on Anthropic\'s documented count_tokens examples', breakdown };
  }

  breakdown.contents = estimateGemini(body.contents ?? '');
  breakdown.system = body.systemInstruction ? estimateGemini(body.systemInstruction) : 0;
  breakdown.tools = body.tools ? estimateGemini(body.tools) : 0;
  return { provider, model: chosen, estimate: true, reasons: ['no public tokenizer for Gemini models'], tokens: Object.values(breakdown).reduce((a, b) => a + b, 0), method: 'estimate: 4 characters per token', breakdown };
}

/**
 * Legacy function calling's request-level constants, measured against gpt-3.5-turbo's
 * prompt_tokens by hmarr/openai-chat-tokens (MIT, tests/token-counts.test.ts): the definitions
 * cost their text plus 9, 4 fewer when there is a system message; `function_call: "none"` adds 1,
 * naming a function adds its name plus 4.
 */
const LEGACY_FUNCTIONS = { perRequest: 9, withSystem: 4, callNone: 1, callNamed: 4 } as const;

/** Chat messages as sent: content kept as it is (parts counted part by part). */
function rawMessages(value: unknown): ChatMessageLike[] {
  return Array.isArray(value) ? (value.filter(isRecord) as ChatMessageLike[]) : [];
}

function asMessages(value: unknown): ChatMessageLike[] {
  return Array.isArray(value) ? value.filter(isRecord).map((m) => ({ ...m, content: typeof m.content === 'string' ? m.content : contentText(m.content) })) : [];
}

function responsesInput(body: Body): ChatMessageLike[] {
  const messages: ChatMessageLike[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) {
    for (const item of body.input.filter(isRecord)) {
      // Input items other than messages (function calls and their outputs): their fields as text.
      if (typeof item.role === 'string') messages.push(...asMessages([item]));
      else {
        const { type, id: _id, call_id: _call, ...rest } = item;
        messages.push({ role: String(type ?? 'item'), content: JSON.stringify(rest) });
      }
    }
  }
  return messages;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isRecord(part) ? String(part.text ?? (part.type === 'tool_result' ? contentText(part.content) : JSON.stringify(part.input ?? ''))) : String(part))).join('\n');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}
