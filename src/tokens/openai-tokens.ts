import { walkSchema } from '../catalog/json-schema.js';
import type { JsonSchema } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { typeText } from './openai-function-text.js';

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

/** A function's tokens, and whether that count follows rules measured against the API. */
export interface FunctionTokens {
  tokens: number;
  exact: boolean;
  /** Why not exact: the schema constructs no measured rule covers. */
  reasons: string[];
}

/**
 * Keys the cookbook's rule was measured on: a root object of flat properties, each a type, a
 * description, an enum. `additionalProperties: false` at the root adds nothing (hmarr's measured
 * cases have it); any other value of it is text the rule does not cover.
 */
const MEASURED_ROOT_KEYS = new Set(['type', 'properties', 'required']);
const MEASURED_PROPERTY_KEYS = new Set(['type', 'description', 'enum']);
const MEASURED_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * One function's tokens by the cookbook's rule: func_init, "name:description", and per top-level
 * property prop_key plus "name:type:description" and its enum items. The cookbook's rule (measured
 * against the API on gpt-4o and gpt-4) covers flat properties with a type, a description and an
 * enum only. Anything else is counted too, never left out, and the count is then an estimate
 * with the reason: a property's nested object, array, union or other keywords become its type text
 * as the model sees it (TypeScript-like, see openai-function-text.ts), with the descriptions and
 * keywords inside it. Returns the function's own share; `funcEnd` is added once per request.
 */
export function countOpenAiFunction(fn: OpenAiFunction, count: CountText, encoding: OpenAiEncoding): FunctionTokens {
  const k = COOKBOOK_TOOL_CONSTANTS[encoding];
  const reasons = new Set<string>();
  let tokens = k.funcInit + count(`${fn.name}:${stripPeriod(fn.description ?? '')}`);
  const parameters = fn.parameters ?? {};
  // Root keys beyond the measured ones are sent too: counted as their text, and the count is an estimate.
  for (const [key, value] of Object.entries(parameters)) {
    if (MEASURED_ROOT_KEYS.has(key) || (key === 'additionalProperties' && value === false)) continue;
    reasons.add(`the schema keyword "${key}" at the root`);
    tokens += count(rootKeyText(key, value));
  }
  const properties = isRecord(parameters.properties) ? parameters.properties : {};
  const names = Object.keys(properties);
  if (names.length) tokens += k.propInit;
  for (const name of names) {
    const raw = properties[name];
    const property = isRecord(raw) ? raw : {};
    tokens += k.propKey;
    if (Array.isArray(property.enum)) {
      tokens += k.enumInit;
      for (const item of property.enum) tokens += k.enumItem + count(String(item));
    }
    const simple = typeof property.type === 'string' && MEASURED_TYPES.has(property.type) && Object.keys(property).every((key) => MEASURED_PROPERTY_KEYS.has(key)) && (!Array.isArray(property.enum) || property.enum.every((v) => typeof v === 'string' || typeof v === 'number'));
    let type = typeof property.type === 'string' ? property.type : 'any';
    if (!simple) {
      for (const key of Object.keys(property)) if (!MEASURED_PROPERTY_KEYS.has(key)) reasons.add(key === 'items' || key === 'properties' || key === 'anyOf' || key === 'oneOf' ? `nested schemas (${key})` : `the schema keyword "${key}"`);
      if (typeof property.type !== 'string') reasons.add(Array.isArray(property.type) ? 'type unions' : 'properties without a type');
      else if (!MEASURED_TYPES.has(property.type)) reasons.add(`${property.type} properties`);
      type = typeText(property, 0) + extraText(property);
    }
    tokens += count(`${name}:${type}:${stripPeriod(String(property.description ?? ''))}`);
  }
  return { tokens, exact: reasons.size === 0, reasons: [...reasons] };
}

/** A root keyword's content as text: a description as it is, schemas as their type text and keywords, definitions by name. */
function rootKeyText(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  const schemaText = (schema: unknown) => (isRecord(schema) ? [typeof schema.description === 'string' ? schema.description : '', typeText(schema, 0), extraText(schema)].join(' ').trim() : JSON.stringify(schema));
  if (Array.isArray(value)) return value.map(schemaText).join(' | ');
  if (isRecord(value)) {
    if (['$defs', 'definitions', 'patternProperties', 'dependentSchemas'].includes(key)) return Object.entries(value).map(([name, schema]) => `${name}: ${schemaText(schema)}`).join('\n');
    return schemaText(value);
  }
  return `${key}: ${JSON.stringify(value)}`;
}

/**
 * Model families the counting rules were measured on: the cookbook's gpt-4o and gpt-4o-mini
 * (o200k_base), gpt-4 and gpt-3.5-turbo (cl100k_base), each with its dated snapshots (hmarr's
 * legacy-function cases are gpt-3.5-turbo). On any other model a count is an estimate.
 */
const MEASURED_MODELS = /^(gpt-4o(-mini)?(-\d{4}-\d{2}-\d{2})?|gpt-4(-\d{4})?|gpt-3\.5-turbo(-\d{4})?)$/;

/** Why a count on `model` cannot be exact, or undefined for a measured model family. */
export function unmeasuredModelReason(model: string): string | undefined {
  return MEASURED_MODELS.test(model) ? undefined : `model ${model} is not one the counting rules were measured on`;
}

/** Models hmarr's legacy `functions` rules were measured on (gpt-3.5-turbo). */
export function legacyFunctionsMeasured(model: string): boolean {
  return /^gpt-3\.5-turbo(-\d{4})?$/.test(model);
}

/** Everything a property says beyond its type text: nested descriptions and other keywords, as text. */
function extraText(schema: JsonSchema): string {
  const parts: string[] = [];
  walkSchema(schema, ({ node, path }) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'description' && path.length > 0 && typeof value === 'string') parts.push(value);
      else if (!['type', 'description', 'enum', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', 'required', 'additionalProperties', '$defs', 'definitions'].includes(key)) parts.push(`${key}: ${JSON.stringify(value)}`);
    }
  });
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/** All functions of a request: each function's share plus func_end once. */
export function countOpenAiTools(functions: readonly OpenAiFunction[], count: CountText, encoding: OpenAiEncoding): { total: number; perFunction: FunctionTokens[]; overhead: number } {
  const perFunction = functions.map((fn) => countOpenAiFunction(fn, count, encoding));
  const overhead = functions.length ? COOKBOOK_TOOL_CONSTANTS[encoding].funcEnd : 0;
  return { total: perFunction.reduce((a, b) => a + b.tokens, 0) + overhead, perFunction, overhead };
}

export interface ChatMessageLike {
  role?: string;
  name?: string;
  content?: unknown;
  [key: string]: unknown;
}

/**
 * Chat messages by rules measured against the API: the cookbook's `num_tokens_from_messages` (3
 * per message, the role, the content, 1 more with a name) and, for the legacy function-calling
 * fields, hmarr/openai-chat-tokens' (an assistant's `function_call` adds its name, its arguments
 * and 3; a function result is 2 fewer). Assistant `tool_calls`, `tool` results, content parts other
 * than text and fields the rules do not know are counted as their text too, and named in
 * `reasons`: no published rule for them was measured against the API. 3 more prime the reply.
 */
export function countOpenAiMessages(messages: readonly ChatMessageLike[], count: CountText): { tokens: number; reasons: string[] } {
  const k = COOKBOOK_MESSAGE_CONSTANTS;
  const reasons = new Set<string>();
  let tokens = 0;
  for (const message of messages) {
    tokens += k.perMessage;
    for (const [key, value] of Object.entries(message)) {
      if (value === undefined || value === null) continue;
      if (key === 'role' || key === 'name') {
        tokens += count(String(value)) + (key === 'name' ? k.perName : 0);
      } else if (key === 'content') {
        if (typeof value === 'string') tokens += count(value);
        else if (Array.isArray(value)) {
          for (const part of value) {
            if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') tokens += count(part.text);
            else {
              tokens += count(JSON.stringify(part));
              reasons.add('content parts other than text');
            }
          }
          if (value.length > 1) reasons.add('content given as several parts');
        } else tokens += count(JSON.stringify(value));
      } else if (key === 'function_call' && isRecord(value)) {
        tokens += count(String(value.name ?? '')) + count(String(value.arguments ?? '')) + 3;
      } else if (key === 'tool_calls' && Array.isArray(value)) {
        // Counted like function_call, once per call (the closest measured rule).
        for (const call of value) {
          const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
          tokens += count(String(fn.name ?? '')) + count(String(fn.arguments ?? '')) + 3;
        }
        reasons.add('assistant tool_calls');
      } else if (key === 'tool_call_id') {
        reasons.add('tool results');
      } else {
        tokens += count(typeof value === 'string' ? value : JSON.stringify(value));
        reasons.add(`message field "${key}"`);
      }
    }
    if (message.role === 'function') tokens -= 2;
  }
  return { tokens: tokens + k.replyPriming, reasons: [...reasons] };
}
