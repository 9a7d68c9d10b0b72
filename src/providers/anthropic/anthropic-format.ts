import type { Tool } from '../../catalog/types.js';
import { promptContributions } from '../prompt-contributions.js';
import { describe, nativeDefinition, placeOf, resultFor } from '../shared.js';
import { withoutFalseItems } from '../schema-rewrites.js';
import type { FormatInput, FormatResult } from '../types.js';
import { ANTHROPIC_STRICT_LIMITS, ANTHROPIC_TOOL_SEARCH } from './anthropic-facts.js';
import { fitsClosedObjects, toAnthropicStrict } from './anthropic-strict-schema.js';

/**
 * Anthropic Messages API tools: `{name, description, input_schema}` plus `input_examples` from the
 * catalog's examples, `strict` within the per-request limits, `cache_control` on the last loaded
 * tool on request, and native deferred loading (`defer_loading` plus the tool-search server tool) when
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
    const definition: Record<string, unknown> = { name: tool.name, ...(description ? { description } : {}), input_schema: withoutFalseItems(tool.parameters) };
    if (tool.examples.length) {
      definition.input_examples = tool.examples;
      change(tool, 'examples sent as input_examples');
    }
    if (input.options.strict) {
      const converted = toAnthropicStrict(tool.parameters);
      const over = !converted.strict
        ? undefined
        : budget.tools + 1 > ANTHROPIC_STRICT_LIMITS.tools
          ? `more than ${ANTHROPIC_STRICT_LIMITS.tools} strict tools in one request`
          : budget.optional + converted.optional > ANTHROPIC_STRICT_LIMITS.optionalParameters
            ? `more than ${ANTHROPIC_STRICT_LIMITS.optionalParameters} optional parameters across strict tools`
            : budget.unions + converted.unions > ANTHROPIC_STRICT_LIMITS.unions
              ? `more than ${ANTHROPIC_STRICT_LIMITS.unions} union-typed parameters across strict tools`
              : undefined;
      const reason = converted.strict ? over : `${converted.reason}${placeOf(converted.path)}`;
      if (reason || !converted.strict) {
        warn(`sent non-strict: ${reason}`, tool);
        change(tool, `non-strict: ${reason}`);
      } else {
        budget.tools++;
        budget.optional += converted.optional;
        budget.unions += converted.unions;
        definition.input_schema = converted.schema;
        definition.strict = true;
        for (const c of converted.changes) change(tool, `strict: ${c}`);
        // Examples with keys the closed objects no longer allow would contradict the schema.
        const examples = tool.examples.filter((example) => fitsClosedObjects(example, converted.schema));
        if (examples.length < tool.examples.length) {
          change(tool, `strict: ${tool.examples.length - examples.length} of ${tool.examples.length} input_examples dropped (keys the closed schema does not declare)`);
          if (examples.length) definition.input_examples = examples;
          else delete definition.input_examples;
        }
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
  // The cache breakpoint goes on the last tool that is loaded: a deferred tool with cache_control
  // is refused ("Tools with defer_loading cannot use prompt caching"; see docs/providers.md).
  const last = input.options.cacheControl ? tools.findLast((t) => t.defer_loading !== true) : undefined;
  if (last) {
    last.cache_control = { type: 'ephemeral' };
    const name = typeof last.name === 'string' ? last.name : undefined;
    if (name) change(name, 'cache_control on the last tool that is not deferred');
  }
  if (tools.length) result.payload.tools = tools;

  const choice = input.toolChoice;
  if (choice.type === 'tool') result.payload.tool_choice = { type: 'tool', name: choice.name };
  else if (choice.type === 'required') {
    result.payload.tool_choice = { type: 'any' };
    warn(`Anthropic cannot require a choice among some tools only; tool_choice "any" lets the model pick any tool (${choice.names.join(', ')} were forced)`);
  }

  result.prompts = promptContributions([...offered, ...(nativeSearch ? input.deferred : [])]);
  return result;
}
