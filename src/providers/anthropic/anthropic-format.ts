import type { JsonSchema, Tool } from '../../catalog/types.js';
import { walkSchema } from '../../catalog/json-schema.js';
import { promptContributions } from '../prompt-contributions.js';
import { describe, nativeDefinition, resultFor } from '../shared.js';
import type { FormatInput, FormatResult } from '../types.js';
import { ANTHROPIC_STRICT_LIMITS, ANTHROPIC_STRICT_UNSUPPORTED, ANTHROPIC_TOOL_SEARCH } from './anthropic-facts.js';

/** Why a schema cannot be strict for Anthropic, or its optional-parameter and union counts. */
function strictProfile(schema: JsonSchema): { reason?: string; optional: number; unions: number } {
  let optional = 0;
  let unions = 0;
  let reason: string | undefined;
  walkSchema(schema, ({ node }) => {
    for (const keyword of ANTHROPIC_STRICT_UNSUPPORTED) if (keyword in node) reason ??= `"${keyword}" is not supported in strict mode`;
    const ap = node.additionalProperties;
    if (ap === true || (ap !== null && typeof ap === 'object')) reason ??= 'an object allows arbitrary keys';
    if (node.properties && typeof node.properties === 'object') {
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      optional += Object.keys(node.properties).filter((name) => !required.has(name)).length;
    }
    if (Array.isArray(node.anyOf) || (Array.isArray(node.type) && node.type.length > 1)) unions++;
  });
  return { ...(reason ? { reason } : {}), optional, unions };
}

/** Closes every object (`additionalProperties: false`), as strict mode requires. */
function closeObjects(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema);
  walkSchema(copy, ({ node }) => {
    if (node.type === 'object' || (node.properties && typeof node.properties === 'object')) node.additionalProperties = false;
  });
  return copy;
}

/**
 * Anthropic Messages API tools: `{name, description, input_schema}` plus `input_examples` from the
 * catalog's examples, `strict` within the per-request limits, `cache_control` on the last tool on
 * request, and native deferred loading (`defer_loading` plus the tool-search server tool) when
 * asked. The search tool is never deferred, so at least one tool always stays loaded.
 */
export function formatAnthropic(input: FormatInput): FormatResult {
  const formatting = resultFor('anthropic');
  const { result, change, warn } = formatting;
  const nativeSearch = input.options.nativeToolSearch;
  const tools: Record<string, unknown>[] = [];
  const budget = { tools: 0, optional: 0, unions: 0 };

  const add = (tool: Tool, deferred: boolean) => {
    if (tool.native) {
      const definition = nativeDefinition(tool, 'anthropic', formatting);
      if (definition) tools.push(definition);
      return;
    }
    const description = describe(tool);
    const definition: Record<string, unknown> = { name: tool.name, ...(description ? { description } : {}), input_schema: tool.parameters };
    if (tool.examples.length) {
      definition.input_examples = tool.examples;
      change(tool, 'examples sent as input_examples');
    }
    if (input.options.strict) {
      const profile = strictProfile(tool.parameters);
      const over =
        budget.tools + 1 > ANTHROPIC_STRICT_LIMITS.tools
          ? `more than ${ANTHROPIC_STRICT_LIMITS.tools} strict tools in one request`
          : budget.optional + profile.optional > ANTHROPIC_STRICT_LIMITS.optionalParameters
            ? `more than ${ANTHROPIC_STRICT_LIMITS.optionalParameters} optional parameters across strict tools`
            : budget.unions + profile.unions > ANTHROPIC_STRICT_LIMITS.unions
              ? `more than ${ANTHROPIC_STRICT_LIMITS.unions} union-typed parameters across strict tools`
              : undefined;
      const reason = profile.reason ?? over;
      if (reason) {
        warn(`sent non-strict: ${reason}`, tool);
        change(tool, `non-strict: ${reason}`);
      } else {
        budget.tools++;
        budget.optional += profile.optional;
        budget.unions += profile.unions;
        definition.input_schema = closeObjects(tool.parameters);
        definition.strict = true;
        change(tool, 'strict: objects closed with additionalProperties: false');
      }
    }
    if (deferred) {
      definition.defer_loading = true;
      change(tool, `defer_loading: true (found by ${ANTHROPIC_TOOL_SEARCH[nativeSearch!].name})`);
    }
    tools.push(definition);
    result.sent[tool.name] = tool.name;
  };

  const offered = nativeSearch ? input.tools.filter((t) => t.source.kind !== 'meta') : input.tools;
  for (const tool of offered) add(tool, false);
  if (nativeSearch && input.deferred.length) {
    tools.push({ ...ANTHROPIC_TOOL_SEARCH[nativeSearch] });
    for (const tool of input.deferred) add(tool, true);
  }
  if (input.options.cacheControl && tools.length) {
    const last = tools[tools.length - 1]!;
    last.cache_control = { type: 'ephemeral' };
    const name = typeof last.name === 'string' ? last.name : undefined;
    if (name) change(name, 'cache_control on the last tool');
  }
  if (tools.length) result.payload.tools = tools;

  const choice = input.toolChoice;
  if (choice.type === 'tool') result.payload.tool_choice = { type: 'tool', name: choice.name };
  else if (choice.type === 'required') {
    result.payload.tool_choice = { type: 'any' };
    warn(`Anthropic cannot require a choice among some tools only; tool_choice "any" lets the model pick any tool (${choice.names.join(', ')} were forced)`);
  }

  result.prompts = promptContributions([...offered, ...(nativeSearch ? input.deferred : [])]);
  const system = result.prompts.system.join('\n\n');
  if (system) result.payload.system = system;
  return result;
}
