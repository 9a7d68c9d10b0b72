import { isRecord } from '../shared/is-record.js';
import { geminiBuiltInKey, isAnthropicNative, isGeminiNative, isOpenAiNonFunction } from './native-tools.js';

/** Where tool definitions come from; `import` detects it or takes `--from`. */
export const IMPORT_FORMATS = ['openai', 'openai-responses', 'openai-functions', 'anthropic', 'gemini', 'mcp', 'bfcl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

type Raw = Record<string, unknown>;

/** Unwraps request bodies and replies to the list of tool entries. */
export function toolEntries(data: unknown): { entries: unknown[]; container: string } {
  if (Array.isArray(data)) {
    // A Gemini `tools` array: [{ functionDeclarations: [...] }, { googleSearch: {} }, ...]; each
    // built-in (one key of a Tool object) becomes an entry of its own, for the importer's `native:`.
    const geminiTool = (t: unknown) => isRecord(t) && (Array.isArray(t.functionDeclarations ?? t.function_declarations) || isGeminiNative(t));
    if (data.length > 0 && data.every(geminiTool)) {
      return { entries: data.flatMap((t) => geminiEntries(t as Raw)), container: 'tools[].functionDeclarations' };
    }
    return { entries: data, container: 'list' };
  }
  if (!isRecord(data)) return { entries: [], container: 'none' };
  if (isRecord(data.result) && Array.isArray(data.result.tools)) return { entries: data.result.tools, container: 'result.tools' };
  if (Array.isArray(data.functionDeclarations ?? data.function_declarations)) {
    return { entries: (data.functionDeclarations ?? data.function_declarations) as unknown[], container: 'functionDeclarations' };
  }
  if (Array.isArray(data.tools)) {
    const inner = toolEntries(data.tools);
    return { entries: inner.entries, container: inner.container === 'list' ? 'tools' : inner.container };
  }
  if (Array.isArray(data.functions)) return { entries: data.functions, container: 'functions' };
  return { entries: [], container: 'none' };
}

/** One Gemini `Tool` object's entries: its function declarations, then each built-in key as `{key: settings}`. */
function geminiEntries(tool: Raw): unknown[] {
  const declarations = (tool.functionDeclarations ?? tool.function_declarations) as unknown[] | undefined;
  const builtIns = Object.keys(tool).filter((key) => geminiBuiltInKey(key) !== undefined).map((key) => ({ [key]: tool[key] }));
  return [...(Array.isArray(declarations) ? declarations : []), ...builtIns];
}

const BFCL_TYPES = /^(dict|float|tuple|any|String|HashMap|ArrayList|long|Boolean|double|char|Array|Integer|Long|Double)$/;

function usesBfclDialect(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (typeof schema.type === 'string' && BFCL_TYPES.test(schema.type)) return true;
  if ('optional' in schema) return true;
  return Object.values(schema).some((v) => (Array.isArray(v) ? v.some(usesBfclDialect) : isRecord(v) && usesBfclDialect(v)));
}

/** Guesses the format from the shape of the first entries. */
export function detectFormat(data: unknown): ImportFormat | undefined {
  const { entries, container } = toolEntries(data);
  const sample = entries.filter(isRecord).slice(0, 20);
  if (sample.length === 0) return undefined;
  if (container.includes('functionDeclarations')) return 'gemini';
  if (sample.some((t) => t.type === 'function' && isRecord(t.function))) return 'openai';
  if (sample.some((t) => t.type === 'function' && typeof t.name === 'string')) return 'openai-responses';
  if (sample.some((t) => 'inputSchema' in t)) return 'mcp';
  // Anthropic's own tools (web_search_20250305, text_editor_20250728...) carry no schema, only a dated type.
  if (sample.some((t) => 'input_schema' in t || isAnthropicNative(t))) return 'anthropic';
  // OpenAI's built-in tools ({type: "web_search"}, file_search...) are Responses API tools.
  if (sample.some(isOpenAiNonFunction)) return 'openai-responses';
  if (sample.some((t) => 'parametersJsonSchema' in t || isUpperCaseTyped(t.parameters))) return 'gemini';
  if (sample.some((t) => usesBfclDialect(t.parameters))) return 'bfcl';
  if (sample.some((t) => typeof t.name === 'string')) return 'openai-functions';
  return undefined;
}

function isUpperCaseTyped(schema: unknown): boolean {
  return isRecord(schema) && typeof schema.type === 'string' && /^(OBJECT|STRING|NUMBER|INTEGER|BOOLEAN|ARRAY)$/.test(schema.type);
}
