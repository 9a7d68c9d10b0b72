import type { JsonSchema, Tool } from '../catalog/types.js';
import type { ToolChoice } from '../select/tool-choice.js';
import type { PromptContributions } from './prompt-contributions.js';

export const PROVIDERS = ['openai', 'openai-responses', 'anthropic', 'gemini'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** How each provider's API is named to users. */
export const PROVIDER_LABELS: Record<ProviderName, string> = {
  openai: 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  anthropic: 'Anthropic Messages',
  gemini: 'Gemini',
};

/** What a formatter needs: the offered tools, the deferred ones, the tool choice, options. */
export interface FormatInput {
  /** Tools offered this round (active, found, meta-tools), in order. */
  tools: Tool[];
  /** Deferred tools: sent with the provider's native deferral when asked, else left out. */
  deferred: Tool[];
  toolChoice: ToolChoice;
  options: FormatOptions;
}

export interface FormatOptions {
  /** OpenAI and Anthropic strict schemas. */
  strict?: boolean;
  /** Anthropic: cache_control on the last tool. */
  cacheControl?: boolean;
  /**
   * Provider-native deferred loading instead of toolman's tool_search meta-tool: Anthropic's
   * tool-search server tool ('bm25' or 'regex'), OpenAI Responses' tool_search ('bm25' or 'regex'
   * both mean "on").
   */
  nativeToolSearch?: 'bm25' | 'regex';
  /** Gemini: send `parametersJsonSchema` (full JSON Schema) instead of the OpenAPI subset. */
  geminiJsonSchema?: boolean;
}

export interface FormatWarning {
  tool?: string;
  message: string;
  /** The diagnostic code `validate` gives the same finding (TM0402, TM0403, TM0405), when there is one. */
  code?: 'TM0402' | 'TM0403' | 'TM0405';
}

/** The request fragment a provider's API takes, and what the formatter had to do. */
export interface FormatResult {
  provider: ProviderName;
  /** The tools' keys of the request body (tools, tool choice): what a client sends as they are. */
  payload: Record<string, unknown>;
  /**
   * The tools' system-prompt contributions in this provider's request shape (`messages`,
   * `instructions`, `system`, `systemInstruction`). Kept apart from `payload`: a live client
   * writes the whole system prompt (the user's, then these) itself; `format`, `budget` and the
   * token counts show and count the two together (`requestFragment`).
   */
  systemPayload: Record<string, unknown>;
  /** The tool choice of this fragment in toolman's own terms (what `payload` says in the provider's). */
  toolChoice: ToolChoice;
  warnings: FormatWarning[];
  /** Per tool (by catalog name), what this provider's formatter changed. */
  changes: Record<string, string[]>;
  /** Tools sent, by catalog name -> name the provider sees. */
  sent: Record<string, string>;
  /** Prompt contributions of the tools sent; user texts and reminders go into turns, not here. */
  prompts: PromptContributions;
}

/** A schema conversion's result for one tool. */
export interface SchemaConversion {
  schema: JsonSchema;
  changes: string[];
}
