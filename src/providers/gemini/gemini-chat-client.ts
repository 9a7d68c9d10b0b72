import { isRecord } from '../../shared/is-record.js';
import { systemPayloadFor } from '../system-payload.js';
import type { ClientConnection, ModelRequest } from '../model-client.js';
import { OpenAiChatClient } from '../openai/openai-chat-client.js';
import type { FormatOptions } from '../types.js';

/** The Gemini API's own base; the OpenAI-compatible endpoint is under it (docs/providers.md). */
export const GEMINI_API_BASE = 'https://generativelanguage.googleapis.com';
const COMPATIBLE_PATH = '/v1beta/openai';

/**
 * Gemini through its OpenAI-compatible endpoint (`/v1beta/openai/chat/completions`), with the
 * official `openai` SDK: the only Gemini SDK (@google/genai 2) needs Node 22, toolman supports
 * Node 20. The wire is Chat Completions; what differs is Gemini's:
 * - the endpoint turns each tool's `parameters` into Gemini's Schema and refuses keywords it has
 *   not (400 "Unknown name"), so the tools are the Gemini formatter's declarations (Gemini's
 *   subset, names Gemini takes), put in Chat Completions' shape;
 * - forced tools (the formatter's `functionCallingConfig` mode ANY) become `tool_choice`;
 * - Gemini 3 signs its tool calls (`extra_content.google.thought_signature`) and refuses a
 *   history that drops the signature: the Chat Completions client keeps each call's
 *   `extra_content` and sends it back.
 * `connection.baseUrl` is the Gemini API's base (GEMINI_BASE_URL, as `budget --exact` uses it).
 */
export class GeminiChatClient extends OpenAiChatClient {
  override readonly provider = 'gemini' as const;

  constructor(model: string, connection: ClientConnection) {
    super(model, { ...connection, baseUrl: `${(connection.baseUrl ?? GEMINI_API_BASE).replace(/\/+$/, '')}${COMPATIBLE_PATH}` });
  }

  /**
   * Gemini's OpenAI-compatible endpoint takes parameters in Gemini's schema subset only, not as
   * parametersJsonSchema: the subset is what is sent.
   */
  adaptFormat(options: FormatOptions): FormatOptions {
    return options.geminiJsonSchema ? { ...options, geminiJsonSchema: false } : options;
  }

  /** Counted as Gemini's own request: the conversation, the system instruction and the declarations the formatter made. */
  countBody(request: ModelRequest): Record<string, unknown> {
    const { messages } = this.body(request) as { messages: { role: string }[] };
    const tools = request.tools.payload.tools;
    return {
      contents: messages.filter((m) => m.role !== 'system'),
      ...systemPayloadFor('gemini', request.system),
      ...(tools !== undefined ? { tools } : {}),
    };
  }

  protected override toolsFor(request: ModelRequest): Record<string, unknown> {
    const payload = request.tools.payload;
    const declarations = (Array.isArray(payload.tools) ? payload.tools : []).flatMap((entry) => (isRecord(entry) && Array.isArray(entry.functionDeclarations) ? (entry.functionDeclarations as Record<string, unknown>[]) : []));
    if (declarations.length === 0) return {};
    const tools = declarations.map((d) => ({
      type: 'function',
      function: { name: d.name, ...(d.description !== undefined ? { description: d.description } : {}), ...(d.parameters !== undefined ? { parameters: d.parameters } : {}) },
    }));
    const config = isRecord(payload.toolConfig) && isRecord(payload.toolConfig.functionCallingConfig) ? payload.toolConfig.functionCallingConfig : undefined;
    const forced = config?.mode === 'ANY' && Array.isArray(config.allowedFunctionNames) ? (config.allowedFunctionNames as string[]) : [];
    // One forced tool is named; several can only be "some tool" on this wire.
    const toolChoice = forced.length === 1 ? { type: 'function', function: { name: forced[0] } } : forced.length > 1 ? 'required' : undefined;
    return { tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) };
  }
}
