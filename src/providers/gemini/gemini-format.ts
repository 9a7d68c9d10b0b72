import type { Tool } from '../../catalog/types.js';
import { promptContributions } from '../prompt-contributions.js';
import { describe, nativeDefinition, resultFor } from '../shared.js';
import type { FormatInput, FormatResult } from '../types.js';
import { toGeminiSchema } from './gemini-schema.js';
import { withoutFalseItems } from '../schema-rewrites.js';
import { isRecord } from '../../shared/is-record.js';
import { GEMINI_MAX_DECLARATIONS, geminiName } from './gemini-facts.js';


/**
 * Gemini `tools: [{functionDeclarations: [{name, description, parameters}]}]` with parameters in
 * Gemini's schema subset, or `parametersJsonSchema` on request. Forced tools become
 * `toolConfig.functionCallingConfig` (mode ANY with allowedFunctionNames). Native tools (e.g.
 * `googleSearch`) are their own entries in `tools`.
 */
export function formatGemini(input: FormatInput): FormatResult {
  const formatting = resultFor('gemini');
  const { result, change, warn } = formatting;
  const declarations: Record<string, unknown>[] = [];
  const nativeTools: Record<string, unknown>[] = [];
  const names = new Map<string, string>();
  const add = (tool: Tool) => {
    if (tool.native) {
      const definition = nativeDefinition(tool, 'gemini', formatting);
      if (definition) nativeTools.push(definition);
      return;
    }
    const name = geminiName(tool.name);
    if (name !== tool.name) change(tool, `sent as "${name}" (Gemini names start with a letter or _)`);
    const description = describe(tool);
    const declaration: Record<string, unknown> = { name, ...(description ? { description } : {}) };
    if (input.options.geminiJsonSchema) {
      declaration.parametersJsonSchema = withoutFalseItems(tool.parameters);
      change(tool, 'parameters sent as parametersJsonSchema');
    } else {
      const converted = toGeminiSchema(tool.parameters);
      if (!converted.ok) {
        warn(`not sent: ${converted.reason} (use --gemini-json-schema to send it as parametersJsonSchema)`, tool, 'TM0403');
        change(tool, `not sent: ${converted.reason}`);
        return;
      }
      for (const at of converted.openMaps) {
        warn(`${at.length > 1 ? `parameters.${at.slice(0, -1).filter((s) => s !== 'properties').join('.')}` : 'parameters'} allows any key (additionalProperties), which Gemini's schema subset cannot express: only its declared keys are sent (--gemini-json-schema keeps it)`, tool);
      }
      // No parameters: left out, as Gemini refuses an OBJECT without properties ("properties:
      // should be non-empty for OBJECT type").
      const props = converted.schema.properties;
      if (converted.schema.type !== 'OBJECT' || (isRecord(props) && Object.keys(props).length > 0)) declaration.parameters = converted.schema;
      for (const c of converted.changes) change(tool, c);
    }
    declarations.push(declaration);
    names.set(tool.name, name);
    result.sent[tool.name] = name;
  };
  for (const tool of input.tools) add(tool);
  if (input.options.nativeToolSearch && input.deferred.length) warn('Gemini has no native tool search; deferred tools stay behind toolman\'s tool_search meta-tool');

  if (declarations.length > GEMINI_MAX_DECLARATIONS) warn(`${declarations.length} function declarations in one request; Gemini takes at most ${GEMINI_MAX_DECLARATIONS} (defer some tools behind tool_search)`, undefined, 'TM0405');
  const tools: Record<string, unknown>[] = [];
  if (declarations.length) tools.push({ functionDeclarations: declarations });
  tools.push(...nativeTools);
  if (tools.length) result.payload.tools = tools;

  const choice = input.toolChoice;
  const forced = choice.type === 'tool' ? [choice.name] : choice.type === 'required' ? choice.names : [];
  if (forced.length) result.payload.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: forced.map((n) => names.get(n) ?? geminiName(n)) } };

  result.prompts = promptContributions(input.tools);
  return result;
}
