import type { JsonSchema } from '../catalog/types.js';

/** A tokenizer: text -> number of tokens. */
export type CountText = (text: string) => number;

export type OpenAiEncoding = 'o200k_base' | 'cl100k_base';

/** gpt-4o, 4.1, 4.5, 5 and the o-series use o200k_base; gpt-4 and gpt-3.5-turbo cl100k_base. */
export function openAiEncodingFor(model: string): OpenAiEncoding {
  if (/^gpt-3\.5/.test(model)) return 'cl100k_base';
  if (/^gpt-4/.test(model) && !/^gpt-4(o|\.)/.test(model)) return 'cl100k_base';
  return 'o200k_base';
}

/** Loads a tokenizer only when a command needs one (the BPE tables are large). */
export async function loadOpenAiCounter(encoding: OpenAiEncoding): Promise<CountText> {
  const module = encoding === 'o200k_base' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base');
  return (text: string) => module.countTokens(text);
}

/**
 * The OpenAI cookbook's `num_tokens_for_tools` constants ("How to count tokens with tiktoken",
 * section 7; ../shared/data/tokens/openai_cookbook_tool_token_examples.json), which reproduce the
 * API's prompt_tokens for the cookbook's examples (101 on gpt-4o, 105 on gpt-4).
 */
export const COOKBOOK_TOOL_CONSTANTS = {
  o200k_base: { funcInit: 7, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12 },
  cl100k_base: { funcInit: 10, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12 },
} as const;
export const COOKBOOK_MESSAGE_CONSTANTS = { perMessage: 3, perName: 1, replyPriming: 3 } as const;

export interface OpenAiFunction {
  name: string;
  description?: string;
  parameters?: JsonSchema;
}

const stripPeriod = (text: string) => (text.endsWith('.') ? text.slice(0, -1) : text);

/**
 * One function's tokens by the cookbook's rule: func_init, "name:description", and per top-level
 * property prop_key plus "name:type:description" and its enum items. (The cookbook counts top-level
 * properties only; nested schemas are counted by the same rule one level down, an extension that
 * is not verified against the API.) Returns the function's own share; `funcEnd` is added once per
 * request by `countOpenAiTools`.
 */
export function countOpenAiFunction(fn: OpenAiFunction, count: CountText, encoding: OpenAiEncoding): number {
  const k = COOKBOOK_TOOL_CONSTANTS[encoding];
  let tokens = k.funcInit + count(`${fn.name}:${stripPeriod(fn.description ?? '')}`);
  tokens += countProperties(fn.parameters, count, encoding, 0);
  return tokens;
}

function countProperties(schema: JsonSchema | undefined, count: CountText, encoding: OpenAiEncoding, depth: number): number {
  const k = COOKBOOK_TOOL_CONSTANTS[encoding];
  const properties = schema?.properties as Record<string, JsonSchema> | undefined;
  if (!properties || typeof properties !== 'object' || Object.keys(properties).length === 0) return 0;
  let tokens = k.propInit;
  for (const [name, raw] of Object.entries(properties)) {
    const property = raw && typeof raw === 'object' ? raw : {};
    tokens += k.propKey;
    if (Array.isArray(property.enum)) {
      tokens += k.enumInit;
      for (const item of property.enum) tokens += k.enumItem + count(String(item));
    }
    const type = Array.isArray(property.type) ? property.type.join('|') : String(property.type ?? 'any');
    tokens += count(`${name}:${type}:${stripPeriod(String(property.description ?? ''))}`);
    if (depth < 4) {
      tokens += countProperties(property, count, encoding, depth + 1);
      if (property.items && typeof property.items === 'object') tokens += countProperties(property.items as JsonSchema, count, encoding, depth + 1);
    }
  }
  return tokens;
}

/** All functions of a request: each function's share plus func_end once. */
export function countOpenAiTools(functions: readonly OpenAiFunction[], count: CountText, encoding: OpenAiEncoding): { total: number; perFunction: number[]; overhead: number } {
  const perFunction = functions.map((fn) => countOpenAiFunction(fn, count, encoding));
  const overhead = functions.length ? COOKBOOK_TOOL_CONSTANTS[encoding].funcEnd : 0;
  return { total: perFunction.reduce((a, b) => a + b, 0) + overhead, perFunction, overhead };
}

export interface ChatMessageLike {
  role?: string;
  name?: string;
  content?: unknown;
  [key: string]: unknown;
}

/** Messages by the cookbook's `num_tokens_from_messages`: 3 per message, 1 per name, 3 to prime the reply. */
export function countOpenAiMessages(messages: readonly ChatMessageLike[], count: CountText): number {
  const k = COOKBOOK_MESSAGE_CONSTANTS;
  let tokens = 0;
  for (const message of messages) {
    tokens += k.perMessage;
    for (const [key, value] of Object.entries(message)) {
      if (value === undefined || value === null) continue;
      tokens += count(typeof value === 'string' ? value : JSON.stringify(value));
      if (key === 'name') tokens += k.perName;
    }
  }
  return tokens + k.replyPriming;
}
