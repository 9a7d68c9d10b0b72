import { dirname, join, relative, resolve } from 'node:path';
import type { ConversationOptions, Recording } from '../../conversation/conversation-options.js';
import { defaultTranscriptPath, readRecording } from '../../manager/recordings.js';
import { CHAT_PROVIDERS, profileNames } from '../../manager/facts.js';
import { lastTranscript, readTranscriptFile, type TranscriptHistory } from '../../conversation/transcript-history.js';
import type { ProviderName } from '../../providers/types.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { readRegularFile } from '../../shared/read-file.js';
import { chooseCatalogs } from '../../manager/choose-catalogs.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { cliInteraction } from '../mcp-interaction.js';
import { ReplMcpQuestions } from '../../repl/mcp-questions.js';
import { exitFor, oneShotTurn, promptsFor, summaryDocument } from './chat-one-shot.js';
import { jsonDocument } from '../output/json-document.js';

export { readPrompt } from '../read-prompt.js';

export interface ChatOptions {
  catalog?: string[];
  provider?: string;
  model?: string;
  baseUrl?: string;
  profile?: string;
  force?: string[];
  search?: 'client' | 'native';
  yes?: boolean;
  /** A path, or false for --no-transcript; default: the user's data folder. */
  transcript?: string | false;
  record?: string;
  replay?: string;
  /** One turn per prompt, in order, in one conversation. */
  prompt?: string | string[];
  json?: boolean;
  events?: boolean;
  /** false with --no-stream. */
  stream?: boolean;
  system?: string;
  strict?: boolean;
  /** The prompt when it is piped in (no --prompt and no terminal). */
  readStdin?: () => Promise<string>;
  /** Standard input and output are a terminal: without --prompt, the REPL starts. */
  interactive?: boolean;
  /** Standard input is a terminal (nothing can be piped in). */
  stdinIsTerminal?: boolean;
  /** A replay where a tool answered differently from the recording exits 1 (for CI). */
  replayStrict?: boolean;
  /** Load the catalog a --replay recording names (only its mock handlers run). */
  recordedCatalog?: boolean;
  /** Go on from the last transcript of a chat in this folder. */
  continue?: boolean;
  /** Go on from this transcript. */
  resume?: string;
  /** Count every request's input tokens too, next to the API's (one-shot runs count only those the API reported no usage for). */
  estimate?: boolean;
  signal?: AbortSignal;
}

/**
 * `toolman chat`: a live conversation with a model over the catalog's tools. With --prompt (or a
 * prompt piped in) one turn runs and the answer is printed (or one JSON document, or events as
 * JSON lines); on a terminal, the REPL starts. The conversation itself is the core's
 * (`ToolManager.conversation`); this command chooses what to open and shows what it reports.
 */
export async function chatCommand(options: ChatOptions, io: CliIO): Promise<ExitCode> {
  if (options.json && options.events) throw new ToolmanError(ErrorCode.USAGE, '--json and --events both print on standard output: choose one', { hint: '--events prints every event as a JSON line; the last one (done) carries the answer' });
  const given = options.prompt === undefined ? [] : Array.isArray(options.prompt) ? options.prompt : [options.prompt];
  if (given.some((prompt) => prompt.trim() === '')) throw new ToolmanError(ErrorCode.USAGE, 'an empty --prompt: every turn needs a message');
  const recording = options.replay ? readRecording(readRegularFile(options.replay, { cwd: io.cwd, label: '--replay' }), options.replay) : undefined;
  const resumed = resumedHistory(options, io);
  if (options.provider === 'replay' && !recording) throw new ToolmanError(ErrorCode.USAGE, '--provider replay needs --replay FILE (a recording made with --record)', { hint: 'try --replay catalogs/recordings/assistant.jsonl' });
  // A recording is untrusted: the catalog it names is loaded only on the user's word (--recorded-catalog).
  const choice = chooseCatalogs(io.cwd, options.catalog, recording && options.replay ? { by: `the recording ${options.replay}`, files: recordedCatalogs(recording.header.catalog, resolve(io.cwd, options.replay)), flag: '--recorded-catalog', use: options.recordedCatalog === true } : undefined);
  // A recording's profile is used unless --profile says otherwise: said, so nothing is chosen silently.
  if (recording?.header.profile && options.profile === undefined) io.stderr.write(`replay: profile ${recording.header.profile} (from the recording; --profile chooses another)\n`);
  if (choice.notice) io.stderr.write(`${choice.notice}\n`);
  const oneShot = options.prompt !== undefined || !options.interactive || options.json || options.events;
  // What MCP servers ask during a call: the REPL asks the user (bound once it runs); one shot, --yes answers a yes/no question.
  const mcpQuestions = oneShot ? undefined : new ReplMcpQuestions();
  const mcpInteraction = mcpQuestions ?? cliInteraction(io, { ...(options.yes ? { yes: true } : {}) });
  return withManager(
    io,
    choice.catalogs,
    async (manager) => {
      const oneShot = options.prompt !== undefined || !options.interactive || options.json === true || options.events === true;
      const conversation = await manager.conversation(conversationOptions(options, io, recording, resumed && resumedFor(resumed, options, profileNames(manager.catalog)), oneShot));
      const transcript = conversation.transcript?.file ?? null;
      try {
        if (!oneShot) {
          const { runRepl } = await import('../../repl/run-repl.js');
          return await runRepl({ manager, conversation, yes: options.yes ?? false, ...(mcpQuestions ? { mcpQuestions } : {}), ...(options.signal ? { signal: options.signal } : {}) }, io);
        }
        if (resumed) io.stderr.write(`resuming ${resumed.file}: ${resumed.turns} turn${resumed.turns === 1 ? '' : 's'} (${resumed.messages.length} messages) with ${conversation.provider} ${conversation.model}\n`);
        const prompts = await promptsFor(options, given, conversation.recordedPrompts);
        if (prompts === undefined) return EXIT.INTERRUPTED;
        const documents: Record<string, unknown>[] = [];
        let code: ExitCode = EXIT.OK;
        for (const prompt of prompts) {
          if (prompts.length > 1 && !options.json && !options.events) io.stdout.write(`> ${prompt}\n`);
          const summary = await oneShotTurn(conversation, prompt, options, io);
          documents.push(summaryDocument(summary, transcript));
          code = exitFor(summary, options.signal);
          if (code !== EXIT.OK) break;
        }
        if (code === EXIT.OK && options.replayStrict && conversation.replayDiffered) {
          io.stderr.write('toolman: error: --replay-strict: tools answered differently from the recording (see the warnings above)\n');
          code = EXIT.FAILURE;
        }
        // One document: the turn's, or the turns' when there were several (each redacted by the conversation).
        if (options.json) io.stdout.write(jsonDocument(documents.length === 1 ? documents[0] : { turns: documents, transcript }) + '\n');
        return code;
      } finally {
        conversation.close();
        // With --json the document says where it is.
        if (transcript && !options.json) io.stderr.write(`transcript: ${transcript}\n`);
      }
    },
    { requireValid: 'all', ...(choice.namedBy ? { namedBy: choice.namedBy } : {}), ...(mcpInteraction ? { mcpInteraction } : {}) },
  );
}

/**
 * The transcript `--continue` or `--resume FILE` goes on from, read and checked (an untrusted
 * file: it gives messages, and names of a provider, model and profile, never a catalog).
 */
function resumedHistory(options: ChatOptions, io: CliIO): TranscriptHistory | undefined {
  if (!options.continue && options.resume === undefined) return undefined;
  if (options.continue && options.resume !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--continue and --resume both name the conversation to go on from: choose one');
  const flag = options.continue ? '--continue' : '--resume';
  if (options.replay) throw new ToolmanError(ErrorCode.USAGE, `${flag} and --replay: a replay answers from its recording, which holds its own conversation`);
  if (options.record) throw new ToolmanError(ErrorCode.USAGE, `${flag} and --record: the recording's replay could not rebuild the conversation it went on from`, { hint: 'record a new conversation, or resume without --record' });
  if (options.resume !== undefined) return readTranscriptFile(options.resume, io.cwd);
  const file = lastTranscript(io.env, io.cwd);
  if (!file) {
    const folder = defaultTranscriptPath(io.env);
    throw new ToolmanError(ErrorCode.USAGE, `no transcript of a chat in ${io.cwd} to continue`, { hint: `--resume FILE goes on from any transcript${folder ? ` (they are in ${dirname(folder)})` : ''}` });
  }
  return readTranscriptFile(file, io.cwd);
}

/** The resumed transcript, with its profile only when this catalog has it (the flags win over what it names). */
function resumedFor(history: TranscriptHistory, options: ChatOptions, profiles: readonly string[]): TranscriptHistory {
  if (options.profile !== undefined || history.profile === undefined || profiles.includes(history.profile)) return history;
  const { profile, ...rest } = history;
  return { ...rest, notices: [...history.notices, `the transcript's profile ${profile} is not in this catalog: the default profile is used`] };
}

/** What the command line asks of the conversation: provider, connection, tools, transcript. */
function conversationOptions(options: ChatOptions, io: CliIO, recording: Recording | undefined, resumed: TranscriptHistory | undefined, oneShot: boolean): ConversationOptions {
  const transcript = options.transcript === false ? undefined : options.transcript ? resolve(io.cwd, options.transcript) : defaultTranscriptPath(io.env);
  if (options.provider !== undefined && options.provider !== 'replay' && !(CHAT_PROVIDERS as readonly string[]).includes(options.provider)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown provider "${options.provider}"`, { hint: `providers: ${CHAT_PROVIDERS.join(', ')}, replay` });
  }
  // The shipped recordings, where this toolman is installed: the path works from any folder.
  const shipped = relative(io.env.PWD ?? process.cwd(), join(packageRoot(), 'catalogs', 'recordings', 'assistant.jsonl')) || 'catalogs/recordings/assistant.jsonl';
  const catalog = relative(io.env.PWD ?? process.cwd(), join(packageRoot(), 'catalogs', 'assistant.yaml')) || 'catalogs/assistant.yaml';
  // A resumed conversation goes on with its provider and model unless the flags name others.
  const provider = options.provider && options.provider !== 'replay' ? (options.provider as ProviderName) : resumed?.provider;
  const model = options.model ?? (resumed?.model !== undefined && provider === resumed.provider ? resumed.model : undefined);
  const profile = options.profile ?? recording?.header.profile ?? resumed?.profile;
  return {
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    connection: recording ? { mode: 'replay', recording } : options.record ? { mode: 'record', file: resolve(io.cwd, options.record) } : { mode: 'live' },
    purpose: (label) => `toolman chat with ${label}`,
    missingKeyHint: (variable) => `set ${variable}${options.provider === undefined || options.provider === 'openai' ? ', point --base-url at a local OpenAI-compatible server' : ', or --base-url for a compatible endpoint'}, or see the loop without a key: toolman -c ${catalog} chat --replay ${shipped}`,
    // A replay is made with a profile, a resumed conversation had one: each uses it unless told otherwise.
    ...(profile ? { profile } : {}),
    ...(options.force ? { force: options.force } : {}),
    ...(options.search ? { search: options.search } : {}),
    format: options.strict !== undefined ? { strict: options.strict } : {},
    ...(options.system ? { system: options.system } : {}),
    stream: options.stream !== false,
    // The REPL's status line shows toolman's count next to the API's; a one-shot run's is in
    // `--json` only, and loading the tokenizer for it is most of a one-shot's own time, so it
    // counts where the API reported nothing, or every request with --estimate.
    estimate: oneShot && !options.estimate ? 'unreported' : 'always',
    approve: async () => (options.yes ? 'approve' : 'decline'),
    // The folder it ran in, so `--continue` there finds it.
    ...(transcript ? { transcript: { file: transcript, header: { replay: options.replay ?? null, cwd: io.cwd } } } : {}),
    ...(resumed ? { resume: resumed } : {}),
  };
}


/** The catalog files a recording names, resolved from its folder (ignored unless a list of paths). */
function recordedCatalogs(named: unknown, recordingFile: string): string[] {
  if (!Array.isArray(named) || !named.every((f) => typeof f === 'string' && f !== '')) return [];
  return named.map((file: string) => resolve(dirname(recordingFile), file));
}






