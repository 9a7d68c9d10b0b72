import type { FormatOptions, FormatResult, ProviderName } from './types.js';

/**
 * What the live loop says to a model and hears back, the same for every provider: each provider's
 * client (in its folder, on the official SDK) turns these into its wire format and back.
 */

/** A tool call as the model made it: arguments are its raw JSON text (validated later, by the executor). */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * What the provider attached to the call that must go back with it as it came: Gemini's
   * thought signature, in `extra_content` on the OpenAI-compatible wire (Gemini 3 answers a
   * history without it with a 400).
   */
  extra?: Record<string, unknown>;
}

export interface ModelToolResult {
  /** The call id it answers. */
  id: string;
  name: string;
  content: string;
  /** The call failed: sent as `is_error` to Anthropic, in words to the others. */
  isError: boolean;
}

export type ChatMessage =
  | { role: 'user'; text: string }
  /**
   * `native` is the provider's own form of the reply (content blocks, output items) when it holds
   * more than text and calls (a native tool search's blocks): sent back as it came.
   */
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[]; native?: unknown }
  | { role: 'tool'; results: ModelToolResult[] };

export interface ModelRequest {
  model: string;
  /** The system prompt: the user's, then the tools' contributions. */
  system: string;
  messages: readonly ChatMessage[];
  /** The formatter's fragment for this round (tools, tool choice). */
  tools: FormatResult;
  stream: boolean;
  maxTokens: number;
  /**
   * Send `maxTokens` as the API's output cap on every provider (an MCP sampling request must be
   * held to it). Otherwise only Anthropic, whose API requires one, gets it.
   */
  capOutput?: boolean;
}

export interface ModelUsage {
  input: number;
  output: number;
  /** Input tokens read from the provider's prompt cache. */
  cached: number;
}

export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
  usage?: ModelUsage;
  /** The provider's own word for why it stopped (stop, end_turn, tool_use, length...). */
  stopReason: string;
  native?: unknown;
}

export interface RetryNotice {
  attempt: number;
  status?: number;
  waitMs: number;
  reason: string;
}

export interface ModelCallHooks {
  signal: AbortSignal;
  onText?(delta: string): void;
  onRetry?(notice: RetryNotice): void;
  onWarning?(message: string): void;
}

export interface ModelClient {
  readonly provider: ProviderName;
  readonly model: string;
  /** The request body this client would send, for estimates, recordings and tests. */
  body(request: ModelRequest): Record<string, unknown>;
  /**
   * The body toolman counts the request's tokens from, when the wire is not the provider's own
   * (Gemini through its OpenAI-compatible endpoint is counted as Gemini, as `budget` counts it).
   */
  countBody?(request: ModelRequest): Record<string, unknown>;
  send(request: ModelRequest, hooks: ModelCallHooks): Promise<ModelReply>;
  /** The format options as this client's wire takes them (what it cannot send, it changes here, once). */
  adaptFormat?(options: FormatOptions): FormatOptions;
}

/** How a client reaches its API: key, base URL, and the fetch it sends through (recording and replay swap it). */
export interface ClientConnection {
  apiKey: string;
  baseUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The options the official SDKs (openai, @anthropic-ai/sdk) take for a connection: the same for both. */
export function sdkOptions(connection: ClientConnection): { apiKey: string; baseURL?: string; fetch?: typeof fetch; timeout: number; maxRetries: number } {
  return {
    apiKey: connection.apiKey,
    ...(connection.baseUrl ? { baseURL: connection.baseUrl } : {}),
    ...(connection.fetch ? { fetch: connection.fetch } : {}),
    timeout: connection.timeoutMs ?? 600_000,
    // toolman retries itself (model-errors.ts withRetries), so each retry can be announced.
    maxRetries: 0,
  };
}
