import type { Tool } from '../../catalog/types.js';
import { promptContributions } from '../prompt-contributions.js';
import { describe, nativeDefinition, placeOf, resultFor } from '../shared.js';
import { withoutFalseItems } from '../schema-rewrites.js';
import type { FormatInput, FormatResult } from '../types.js';
import { OPENAI_CHAT_MAX_TOOLS } from './openai-facts.js';
import { toOpenAiStrict } from './openai-strict-schema.js';

type Api = 'openai' | 'openai-responses';

/**
 * OpenAI Chat Completions (`openai`) and Responses (`openai-responses`) tool payloads.
 * Chat: `tools: [{type: "function", function: {name, description, parameters, strict?}}]`;
 * Responses: `tools: [{type: "function", name, description, parameters, strict}]`, with `strict`
 * always present (false for non-strict tools: Responses would otherwise normalise the schema). Forced tools
 * become `tool_choice` (one: that function; several: `allowed_tools` in required mode).
 * Responses can defer tools natively (`defer_loading` plus a `tool_search` tool, gpt-5.4+).
 */
export function formatOpenAi(input: FormatInput, api: Api): FormatResult {
  const formatting = resultFor(api);
  const { result, change, warn } = formatting;
  const native = api === 'openai-responses' && input.options.nativeToolSearch !== undefined;
  const tools: Record<string, unknown>[] = [];
  const add = (tool: Tool, deferred: boolean) => {
    if (tool.native) {
      const definition = nativeDefinition(tool, api, formatting);
      if (definition) tools.push(definition);
      return;
    }
    // Sent as JSON Schema unless made strict; never with `items: false`, which is not a schema.
    let parameters = withoutFalseItems(tool.parameters);
    let strict: boolean | undefined;
    if (input.options.strict) {
      const converted = toOpenAiStrict(tool.parameters);
      if (converted.strict) {
        parameters = converted.schema;
        strict = true;
        for (const c of converted.changes) change(tool, `strict: ${c}`);
      } else {
        strict = false;
        warn(`sent non-strict: ${converted.reason}${placeOf(converted.path)}`, tool, 'TM0402');
        change(tool, `non-strict: ${converted.reason}${placeOf(converted.path)}`);
      }
    }
    // Responses treats a missing `strict` as "make it strict if you can", rewriting optional
    // parameters as required (function calling guide, "Strict mode"): say false when it is not.
    if (api === 'openai-responses') strict ??= false;
    const description = describe(tool);
    const fields = { name: tool.name, ...(description ? { description } : {}), parameters, ...(strict !== undefined ? { strict } : {}) };
    const definition: Record<string, unknown> = api === 'openai' ? { type: 'function', function: fields } : { type: 'function', ...fields };
    if (deferred) {
      definition.defer_loading = true;
      change(tool, 'defer_loading: true (found by the native tool_search)');
    }
    tools.push(definition);
    result.sent[tool.name] = tool.name;
  };

  const offered = native ? input.tools.filter((t) => t.source.kind !== 'meta') : input.tools;
  for (const tool of offered) add(tool, false);
  if (native && input.deferred.length) {
    for (const tool of input.deferred) add(tool, true);
    tools.push({ type: 'tool_search' });
  }
  if (api === 'openai' && input.options.nativeToolSearch && input.deferred.length) {
    warn('Chat Completions has no native tool search; deferred tools stay behind toolman\'s tool_search meta-tool');
  }
  const functions = tools.filter((t) => t.type === 'function').length;
  if (api === 'openai' && functions > OPENAI_CHAT_MAX_TOOLS) warn(`${functions} functions in one request; Chat Completions takes at most ${OPENAI_CHAT_MAX_TOOLS} (defer some tools behind tool_search)`, undefined, 'TM0405');
  if (tools.length) result.payload.tools = tools;

  const choice = input.toolChoice;
  if (choice.type === 'tool') result.payload.tool_choice = api === 'openai' ? { type: 'function', function: { name: choice.name } } : { type: 'function', name: choice.name };
  else if (choice.type === 'required') {
    const allowed = choice.names.map((name) => (api === 'openai' ? { type: 'function', function: { name } } : { type: 'function', name }));
    result.payload.tool_choice = api === 'openai' ? { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: allowed } } : { type: 'allowed_tools', mode: 'required', tools: allowed };
  }

  const prompts = promptContributions([...offered, ...(native ? input.deferred : [])]);
  result.prompts = prompts;
  return result;
}
