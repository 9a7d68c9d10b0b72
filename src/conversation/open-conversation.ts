import { dirname, relative } from 'node:path';
import { ChatLoop } from '../loop/chat-loop.js';
import { recordingFetch, replayFetch } from '../loop/recording.js';
import { TranscriptWriter } from '../loop/transcript.js';
import { credentialsFor } from '../providers/credentials.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { formatOptions } from '../providers/format-options.js';
import type { ClientConnection } from '../providers/model-client.js';
import { CHAT_PROVIDERS, createModelClient } from '../providers/model-clients.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { Conversation } from './conversation.js';
import type { ConversationHost, ConversationOptions } from './conversation-options.js';

/** Providers with a tool search of their own (`--search native`). */
const NATIVE_SEARCH: ReadonlySet<ProviderName> = new Set(['openai-responses', 'anthropic']);

/**
 * Opens a conversation: provider, model and connection (the key looked up once and made a secret;
 * a recording written or replayed), format options, the session, the loop and the transcript.
 * The one place any driver's conversation is put together.
 */
export async function openConversation(host: ConversationHost, options: ConversationOptions): Promise<Conversation> {
  const notices: string[] = [];
  const connection = options.connection ?? { mode: 'live' };
  const replay = connection.mode === 'replay' ? connection.recording : undefined;
  let differences: ((message: string) => void) | undefined;

  let provider: ProviderName;
  let model: string;
  let client: ClientConnection;
  if (replay) {
    const { header, exchanges } = replay;
    provider = chatProvider(header.provider);
    model = header.model;
    if (options.model && options.model !== header.model) notices.push(`replay: the recording was made with ${header.model}; --model ${options.model} is ignored`);
    if (options.provider && options.provider !== header.provider) notices.push(`replay: the recording was made with ${header.provider}; --provider ${options.provider} is ignored`);
    // No network: the recorded base URL only shapes the paths the SDK asks for.
    client = { apiKey: 'replay', ...(header.base_url ? { baseUrl: header.base_url } : {}), fetch: replayFetch(exchanges, (message) => differences?.(message)) };
  } else {
    provider = chatProvider(options.provider ?? 'openai');
    model = options.model ?? DEFAULT_MODELS[provider];
    const credentials = credentialsFor(provider, options.env ?? host.env, {
      purpose: options.purpose ?? ((label) => `a conversation with ${label}`),
      ...(options.missingKeyHint ? { hint: options.missingKeyHint } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      // Local servers (Ollama, vLLM, llama.cpp, LM Studio) take any key.
      keyOptionalWithBaseUrl: true,
      secrets: host.secrets,
    });
    client = { apiKey: credentials.apiKey, ...(credentials.baseUrl ? { baseUrl: credentials.baseUrl } : {}) };
  }
  const { search, format } = searchAndFormat(host, provider, options, notices);
  if (connection.mode === 'record') {
    const file = connection.file;
    const catalog = host.rootFiles.map((f) => relative(dirname(file), f).split('\\').join('/'));
    client.fetch = recordingFetch(file, { provider, model, base_url: client.baseUrl ?? null, catalog, profile: options.profile ?? null }, host.secrets, client.fetch, connection.replace ? { replace: true } : {});
  }

  const openSession = (profile: string | undefined, force: readonly string[] = options.force ?? []): Promise<ToolSession> =>
    host.session({ ...(profile ? { profile } : {}), force, provider, model, format, ...(options.wrapRunners ? { wrapRunners: options.wrapRunners } : {}) });
  const session = await openSession(options.profile);
  let transcript: TranscriptWriter | undefined;
  try {
    const modelClient = await createModelClient(provider, model, client);
    const loop = new ChatLoop({
      client: modelClient,
      session,
      format,
      ...(options.system ? { system: options.system } : {}),
      ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
      stream: options.stream !== false,
      ...(options.approve ? { approve: options.approve } : {}),
    });
    if (options.transcript) {
      transcript = new TranscriptWriter(options.transcript.file, host.secrets, { provider, model, catalog: host.catalog.files, profile: options.profile ?? null, search, ...options.transcript.header });
    }
    return new Conversation({
      host,
      provider,
      model,
      search,
      loop,
      openSession,
      ...(transcript ? { transcript } : {}),
      ...(connection.mode === 'record' ? { recordFile: connection.file } : {}),
      notices,
      recordedPrompts: replay?.prompts ?? [],
      ...(replay ? { replay: { onDifference: (listener: (message: string) => void) => (differences = listener) } } : {}),
    });
  } catch (error) {
    session.close();
    throw error;
  }
}

/**
 * How deferred tools are found and how the tools are formatted: the catalog's `format:`, the
 * flags over it. Asked for, the provider's own tool search must exist; set by the catalog for a
 * provider without one, toolman's tool_search stands in, and the notice says so.
 */
function searchAndFormat(host: ConversationHost, provider: ProviderName, options: ConversationOptions, notices: string[]): { search: 'client' | 'native'; format: FormatOptions } {
  const format = formatOptions(host.catalog.format, options.format ?? {});
  let search = options.search ?? (format.nativeToolSearch ? 'native' : 'client');
  if (search === 'native' && !NATIVE_SEARCH.has(provider)) {
    const label = provider === 'gemini' ? 'Gemini' : 'OpenAI Chat Completions';
    if (options.search === 'native') throw new ToolmanError(ErrorCode.USAGE, `${label} has no native tool search`, { hint: 'use --provider openai-responses or anthropic, or --search client' });
    notices.push(`the catalog asks for the provider's own tool search (format.native_tool_search), which ${label} does not have: toolman's tool_search finds deferred tools instead`);
    search = 'client';
  }
  if (search === 'native') format.nativeToolSearch ??= 'bm25';
  else delete format.nativeToolSearch;
  return { search, format };
}

/** A provider the loop talks to (names come from flags, suites and recordings: untrusted text). */
function chatProvider(name: string): ProviderName {
  if ((CHAT_PROVIDERS as readonly string[]).includes(name)) return name as ProviderName;
  throw new ToolmanError(ErrorCode.USAGE, `toolman's loop does not talk to "${name}"`, { hint: `providers: ${CHAT_PROVIDERS.join(', ')} (and OpenAI-compatible servers with provider openai and a base URL)` });
}
