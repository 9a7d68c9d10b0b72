import type { ParseCache } from '../catalog/parse-cache.js';
import { dirname, relative } from 'node:path';
import { ChatLoop } from '../loop/chat-loop.js';
import { recordingFetch, replayFetch } from '../loop/recording.js';
import { TranscriptWriter } from '../loop/transcript.js';
import { credentialsFor, PROVIDER_ENV } from '../providers/credentials.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { formatOptions } from '../providers/format-options.js';
import type { ClientConnection, ModelClient } from '../providers/model-client.js';
import { CHAT_PROVIDERS, createModelClient } from '../providers/model-clients.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { Summariser } from '../execute/types.js';
import { carryMessages } from './carry-messages.js';
import { Conversation } from './conversation.js';
import type { ConversationHost, ConversationOptions } from './conversation-options.js';
import { resultSummariser } from './result-summariser.js';
import { rubricGrader } from './rubric-grader.js';
import { SideModels } from './side-models.js';
import { NATIVE_SEARCH } from './native-search.js';

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
    client = liveConnection(host, options, provider, options.baseUrl);
  }
  const { search, format } = searchAndFormat(host, provider, options, notices);
  if (connection.mode === 'record') {
    const file = connection.file;
    const catalog = host.rootFiles.map((f) => relative(dirname(file), f).split('\\').join('/'));
    client.fetch = recordingFetch(file, { provider, model, base_url: client.baseUrl ?? null, catalog, profile: options.profile ?? null }, host.secrets, client.fetch, connection.replace ? { replace: true } : {});
  }
  // Summaries and rubric grades go through the same connection: recorded with the conversation, replayed from it.
  const side = new SideModels(replay && client.fetch ? { mode: 'replay', fetch: client.fetch } : { mode: 'live', fetch: client.fetch }, options.env ?? host.env, host.secrets, host.catalogNamedBy);
  const counts = host.tokenCounts?.();
  const powers: Powers = { side, ...(host.catalog.budget.summarize ? { summarise: resultSummariser(host.catalog.budget.summarize, side) } : {}), ...(counts ? { counts } : {}) };

  const session = await sessionOpener(host, options, provider, model, format, powers)(options.profile);
  let transcript: TranscriptWriter | undefined;
  try {
    const modelClient = await createModelClient(provider, model, client);
    const loop = newLoop(options, modelClient, session, format, powers);
    // A resumed conversation goes on from what its transcript holds, as this model can take it.
    const resumed = options.resume ? carryMessages(options.resume.messages, { provider: options.resume.provider ?? provider, model: options.resume.model ?? model }, { provider, model }) : undefined;
    if (resumed && options.resume) {
      loop.messages.push(...resumed.messages);
      notices.push(...options.resume.notices, ...resumed.notes.map((note) => `resumed: ${note}`));
    }
    if (options.transcript) {
      transcript = new TranscriptWriter(options.transcript.file, host.secrets, { provider, model, catalog: host.catalog.files, profile: options.profile ?? null, search, ...options.transcript.header });
      // This transcript starts where the resumed one ended: resuming from it later finds the whole conversation.
      if (resumed && options.resume) transcript.note({ type: 'history', from: options.resume.file, messages: resumed.messages });
    }
    return new Conversation({
      host,
      provider,
      model,
      search,
      loop,
      openSession: sessionOpener(host, options, provider, model, format, powers),
      ...(transcript ? { transcript } : {}),
      ...(connection.mode === 'record' ? { recordFile: connection.file } : {}),
      notices,
      recordedPrompts: replay?.prompts ?? [],
      ...(replay ? { replay: { onDifference: (listener: (message: string) => void) => (differences = listener) } } : {}),
      ...(options.resume ? { resumed: options.resume } : {}),
      ...(options.system ? { system: options.system } : {}),
      side,
      // A replay's recorded base URL only shapes the paths asked for, as for the loop's requests.
      ...(client.baseUrl && (replay || options.baseUrl) ? { baseUrl: client.baseUrl } : {}),
      switchModel: connection.mode === 'live' ? (target) => switchedModel(host, options, target, powers) : undefined,
      whyNoSwitch: connection.mode === 'replay' ? `a replay answers from its recording, made with ${provider} ${model}: another model has no recorded answers` : connection.mode === 'record' ? `a recording holds one provider and model (its first line says ${provider} ${model}), which its replay talks to; start another --record to record another model` : undefined,
    });
  } catch (error) {
    session.close();
    throw error;
  }
}

/** What a conversation needs to go on with another provider or model (`Conversation.switchModel`). */
export interface SwitchedModel {
  provider: ProviderName;
  model: string;
  search: 'client' | 'native';
  format: FormatOptions;
  client: ModelClient;
  /** Opens sessions for this provider and model (the selection can depend on both: `defer: auto`). */
  openSession(profile: string | undefined, force?: readonly string[]): Promise<ToolSession>;
  newLoop(session: ToolSession): ChatLoop;
  notices: string[];
}

/**
 * The client, format and sessions for another provider or model, from the same environment: the
 * key looked up (a missing one is the usual error, and nothing changes), a --base-url kept only
 * within the OpenAI family it was given for (openai and openai-responses share a server), native
 * tool search kept where the new provider has one.
 */
async function switchedModel(host: ConversationHost, options: ConversationOptions, target: { provider: ProviderName; model: string }, powers: Powers): Promise<SwitchedModel> {
  const provider = chatProvider(target.provider);
  const notices: string[] = [];
  const openAiFamily = (p: ProviderName | undefined) => p === 'openai' || p === 'openai-responses';
  const keepBaseUrl = options.baseUrl !== undefined && (provider === (options.provider ?? 'openai') || (openAiFamily(provider) && openAiFamily(options.provider ?? 'openai')));
  if (options.baseUrl !== undefined && !keepBaseUrl) notices.push(`--base-url ${options.baseUrl} was for ${options.provider ?? 'openai'}: ${provider} uses ${PROVIDER_ENV[provider].baseUrl} or its own API`);
  const connection = liveConnection(host, options, provider, keepBaseUrl ? options.baseUrl : undefined);
  const native = options.search === 'native' && !NATIVE_SEARCH.has(provider);
  if (native) notices.push(`${provider} has no native tool search: toolman's tool_search finds deferred tools instead`);
  const { search, format } = searchAndFormat(host, provider, native ? { ...options, search: 'client' } : options, notices);
  const client = await createModelClient(provider, target.model, connection);
  return {
    provider,
    model: target.model,
    search,
    format,
    client,
    openSession: sessionOpener(host, options, provider, target.model, format, powers),
    newLoop: (session) => newLoop(options, client, session, format, powers),
    notices,
  };
}

/** The key and base URL of a live connection, the key a secret from here on. */
function liveConnection(host: ConversationHost, options: ConversationOptions, provider: ProviderName, baseUrl: string | undefined): ClientConnection {
  const credentials = credentialsFor(provider, options.env ?? host.env, {
    purpose: options.purpose ?? ((label) => `a conversation with ${label}`),
    ...(options.missingKeyHint ? { hint: options.missingKeyHint } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    // Local servers (Ollama, vLLM, llama.cpp, LM Studio) take any key.
    keyOptionalWithBaseUrl: true,
    secrets: host.secrets,
  });
  return { apiKey: credentials.apiKey, ...(credentials.baseUrl ? { baseUrl: credentials.baseUrl } : {}) };
}

/** What a conversation lends its sessions and loops: side model calls, the summariser of long results. */
interface Powers {
  side: SideModels;
  summarise?: Summariser;
  /** Token counts remembered by request (a suite's cost estimate): the manager's cache, if any. */
  counts?: ParseCache;
}

function sessionOpener(host: ConversationHost, options: ConversationOptions, provider: ProviderName, model: string, format: FormatOptions, powers: Powers) {
  return (profile: string | undefined, force: readonly string[] = options.force ?? []): Promise<ToolSession> =>
    // Counted job ids: the conversation's model is their only reader, and a replay must give the recorded ones.
    host.session({ ...(profile ? { profile } : {}), force, provider, model, format, jobIds: 'counted', ...(powers.summarise ? { summarise: powers.summarise } : {}), countUsage: (usage) => powers.side.add(usage), ...(options.wrapRunners ? { wrapRunners: options.wrapRunners } : {}) });
}

function newLoop(options: ConversationOptions, client: ModelClient, session: ToolSession, format: FormatOptions, powers: Powers): ChatLoop {
  return new ChatLoop({
    client,
    session,
    format,
    // Rubrics are graded by the conversation's own model unless they name another.
    grade: rubricGrader(powers.side, () => ({ provider: client.provider, model: client.model })),
    // Side calls are the conversation's, whichever loop made them: each turn's summary counts its own.
    sideUsage: () => powers.side.takeUsage(),
    ...(options.system ? { system: options.system } : {}),
    ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
    stream: options.stream !== false,
    ...(options.estimate ? { estimate: options.estimate } : {}),
    ...(options.approve ? { approve: options.approve } : {}),
    ...(powers.counts ? { counts: powers.counts } : {}),
  });
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
