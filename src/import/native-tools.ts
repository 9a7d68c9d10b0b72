import type { ProviderName } from '../providers/types.js';

type Raw = Record<string, unknown>;

/**
 * Tools a provider defines itself, which a tools file may carry beside custom functions: web
 * search, code execution, a text editor. They have no schema of their own in the file (the
 * provider knows it), so importing one as a function would send the model an empty custom tool
 * of the same name. Each becomes the catalog's `native:` form (passed to that provider as
 * written, to no other, never run by toolman), or is refused with the reason.
 *
 * Sources (read 2026-11-24):
 * - Anthropic: "Tool reference" (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference):
 *   server tools run on Anthropic's side (web_search_*, web_fetch_*, code_execution_*, advisor_*,
 *   tool_search_tool_*_*, mcp_toolset); client tools are defined by Anthropic and run by the
 *   application (memory_*, bash_*, text_editor_*, computer_*); and `ToolUnion` in
 *   @anthropic-ai/sdk 1.12.0 (`resources/messages/messages.d.ts`), which adds the
 *   browser_toolset_* and computer_toolset_* client toolsets. Every such `type` ends in a date.
 * - OpenAI: the Responses API's `Tool` union in openai 6.49.0 (`resources/responses/responses.d.ts`):
 *   besides `function`, the built-in types below, `custom` (free-form text input), `namespace`
 *   (a group of functions) and `tool_search`. Chat Completions' tools are `function` and `custom` only.
 * - Gemini: the `Tool` interface of @google/genai 2.32.0: besides `functionDeclarations`, the
 *   built-in keys below, each an object of settings.
 */

/** What one provider-defined tool entry becomes. */
export type NativeVerdict =
  | { kind: 'native'; provider: ProviderName; name: string; description: string; definition: Raw; note: string }
  | { kind: 'refused'; reason: string };

/** Anthropic's tools by the part of `type` before its date (`web_search_20250305` → `web_search`). */
const ANTHROPIC_TOOLS: Record<string, { label: string; runs: 'server' | 'client' } | { refuse: string }> = {
  web_search: { label: 'web search', runs: 'server' },
  web_fetch: { label: 'web fetch', runs: 'server' },
  code_execution: { label: 'code execution', runs: 'server' },
  advisor: { label: 'advisor', runs: 'server' },
  memory: { label: 'memory', runs: 'client' },
  bash: { label: 'bash', runs: 'client' },
  text_editor: { label: 'text editor', runs: 'client' },
  computer: { label: 'computer use', runs: 'client' },
  browser_toolset: { label: 'browser toolset', runs: 'client' },
  computer_toolset: { label: 'computer toolset', runs: 'client' },
  tool_search_tool_regex: { refuse: 'toolman adds Anthropic\'s tool search itself when tools are deferred: set format.native_tool_search: regex (or --native-search regex)' },
  tool_search_tool_bm25: { refuse: 'toolman adds Anthropic\'s tool search itself when tools are deferred: set format.native_tool_search: bm25 (or --native-search bm25)' },
};

/** `type` of an Anthropic-defined tool: a name and a date (`text_editor_20250728`), or the MCP connector's toolset. */
const ANTHROPIC_TYPE = /^([a-z][a-z0-9_]*?)_(\d{8})$/;

/** OpenAI Responses built-in tool types (dated variants like web_search_2025_08_26 included by prefix). */
const OPENAI_BUILT_INS: Record<string, string> = {
  web_search: 'web search',
  web_search_preview: 'web search (preview)',
  file_search: 'file search',
  code_interpreter: 'code interpreter',
  image_generation: 'image generation',
  computer: 'computer use',
  computer_use_preview: 'computer use (preview)',
  local_shell: 'local shell',
  shell: 'shell',
  apply_patch: 'apply patch',
  mcp: 'remote MCP server',
  programmatic_tool_calling: 'programmatic tool calling',
};
const OPENAI_REFUSED: Record<string, string> = {
  tool_search: 'toolman adds OpenAI\'s tool search itself when tools are deferred: set format.native_tool_search (or --native-search) and use -P openai-responses',
  custom: 'a custom tool takes free-form text, not JSON arguments; catalog tools take JSON arguments (write it as a function with a string parameter)',
  namespace: 'a namespace groups functions under one name, which the catalog has no form for; import its functions (its "tools" list) instead',
};

/** Gemini's built-in tools: keys of a `Tool` object other than functionDeclarations. */
const GEMINI_BUILT_INS: Record<string, string> = {
  googleSearch: 'Google Search',
  googleSearchRetrieval: 'Google Search retrieval',
  codeExecution: 'code execution',
  urlContext: 'URL context',
  googleMaps: 'Google Maps',
  fileSearch: 'file search',
  computerUse: 'computer use',
  retrieval: 'retrieval',
  enterpriseWebSearch: 'enterprise web search',
  exaAiSearch: 'Exa AI search',
  parallelAiSearch: 'Parallel AI search',
  mcpServers: 'MCP servers',
};

/** An OpenAI built-in's base type: `web_search_2025_08_26` → `web_search`. */
function openAiBase(type: string): string {
  return type.replace(/_\d{4}_\d{2}_\d{2}$/, '');
}

/** Whether an entry is an Anthropic-defined tool (a dated `type` other than custom). */
export function isAnthropicNative(entry: Raw): boolean {
  return typeof entry.type === 'string' && (ANTHROPIC_TYPE.test(entry.type) || entry.type === 'mcp_toolset');
}

/** Whether an entry is an OpenAI tool of another type than `function`. */
export function isOpenAiNonFunction(entry: Raw): boolean {
  if (typeof entry.type !== 'string' || entry.type === 'function') return false;
  const base = openAiBase(entry.type);
  return base in OPENAI_BUILT_INS || base in OPENAI_REFUSED;
}

/** The Gemini built-in key of a `Tool` object (camelCase or the REST API's snake_case), if it is one. */
export function geminiBuiltInKey(key: string): string | undefined {
  const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return camel in GEMINI_BUILT_INS ? camel : undefined;
}

/** Whether an entry of a Gemini `tools` array is a built-in tool (one key, a built-in's). */
export function isGeminiNative(entry: Raw): boolean {
  const keys = Object.keys(entry);
  return keys.length === 1 && geminiBuiltInKey(keys[0]!) !== undefined;
}

/** A provider-defined tool entry as a native catalog tool, or refused with why; undefined when it is not one. */
export function nativeVerdict(entry: Raw, format: string): NativeVerdict | undefined {
  if ((format === 'anthropic' || format === 'openai-functions') && isAnthropicNative(entry)) return anthropicVerdict(entry);
  if ((format === 'openai-responses' || format === 'openai') && isOpenAiNonFunction(entry)) return openAiVerdict(entry, format);
  if (format === 'openai' && entry.type === 'custom') return { kind: 'refused', reason: OPENAI_REFUSED.custom! };
  if (format === 'gemini' && isGeminiNative(entry)) return geminiVerdict(entry);
  return undefined;
}

function anthropicVerdict(entry: Raw): NativeVerdict {
  const type = entry.type as string;
  if (type === 'mcp_toolset') {
    return { kind: 'refused', reason: 'Anthropic\'s MCP connector (mcp_toolset) needs the request\'s mcp_servers, which toolman does not send; list the server under mcp_servers in the catalog instead' };
  }
  const base = ANTHROPIC_TYPE.exec(type)![1]!;
  const known = ANTHROPIC_TOOLS[base];
  if (known && 'refuse' in known) return { kind: 'refused', reason: known.refuse };
  const name = typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name.trim() : base;
  const runs = known?.runs;
  const label = known ? `Anthropic's ${known.label} ${runs} tool` : 'an Anthropic-defined tool';
  const description =
    runs === 'client'
      ? `${label} (${type}): Anthropic defines it and the application runs its calls; sent only to Anthropic.`
      : `${label} (${type}): runs on Anthropic's side; sent only to Anthropic.`;
  const note =
    runs === 'client'
      ? `Anthropic client tool ${type} became native: {anthropic: ...}, sent to Anthropic as written and to no other provider; Claude's calls to it are the application's to run, and toolman cannot (they get an error)`
      : runs === 'server'
        ? `Anthropic server tool ${type} became native: {anthropic: ...}, sent to Anthropic as written (its settings kept) and to no other provider`
        : `type ${type} is not a tool toolman knows (Anthropic SDK 1.12.0); passed through as native: {anthropic: ...}, as written`;
  return { kind: 'native', provider: 'anthropic', name, description, definition: entry, note };
}

function openAiVerdict(entry: Raw, format: string): NativeVerdict {
  const type = entry.type as string;
  const base = openAiBase(type);
  const refused = OPENAI_REFUSED[base];
  if (refused) return { kind: 'refused', reason: refused };
  if (format === 'openai') return { kind: 'refused', reason: `OpenAI's ${OPENAI_BUILT_INS[base]} tool (${type}) is a Responses API tool; Chat Completions takes none (import the file with --from openai-responses)` };
  const label = OPENAI_BUILT_INS[base]!;
  const serverLabel = base === 'mcp' && typeof entry.server_label === 'string' ? entry.server_label : undefined;
  const name = serverLabel ? `mcp_${serverLabel}` : base;
  return {
    kind: 'native',
    provider: 'openai-responses',
    name,
    description: `OpenAI's built-in ${label} tool (${type}${serverLabel ? `, server ${serverLabel}` : ''}): runs on OpenAI's side; sent only to the Responses API.`,
    definition: entry,
    note: `OpenAI built-in tool ${type} became native: {openai-responses: ...}, sent to the Responses API as written and to no other provider (Chat Completions has no built-in tools)`,
  };
}

function geminiVerdict(entry: Raw): NativeVerdict {
  const [key] = Object.keys(entry) as [string];
  const builtIn = geminiBuiltInKey(key)!;
  const label = GEMINI_BUILT_INS[builtIn]!;
  const name = builtIn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return {
    kind: 'native',
    provider: 'gemini',
    name,
    description: `Gemini's built-in ${label} tool (${builtIn}): runs on Google's side; sent only to Gemini.`,
    definition: entry,
    note: `Gemini built-in tool ${builtIn} became native: {gemini: ...}, sent to Gemini as written and to no other provider`,
  };
}
