import { dirname, join, relative, resolve } from 'node:path';
import type { Approver } from '../../execute/types.js';
import { ChatLoop } from '../../loop/chat-loop.js';
import type { LoopEvent, TurnSummary } from '../../loop/loop-events.js';
import { readRecording, recordingFetch, recordPrompt, replayFetch } from '../../loop/recording.js';
import { defaultTranscriptPath, TranscriptWriter } from '../../loop/transcript.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { PROVIDER_ENV } from '../../providers/credentials.js';
import { DEFAULT_MODELS } from '../../providers/default-models.js';
import type { ClientConnection, ModelClient } from '../../providers/model-client.js';
import { CHAT_PROVIDERS, createModelClient } from '../../providers/model-clients.js';
import type { FormatOptions, ProviderName } from '../../providers/types.js';
import type { ToolSession } from '../../session/tool-session.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { readRegularFile } from '../../shared/read-file.js';
import { RedactingStream } from '../../shared/secrets.js';
import type { ReplContext } from '../../repl/repl-context.js';
import { formatOptions } from '../format-options.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { colorEnabled, palette } from '../color.js';
import { plainText } from '../output/terminal-text.js';

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
  signal?: AbortSignal;
}

/**
 * `toolman chat`: a live conversation with a model over the catalog's tools. With --prompt (or a
 * prompt piped in) one turn runs and the answer is printed (or one JSON document, or events as
 * JSON lines); on a terminal, the REPL starts.
 */
export async function chatCommand(options: ChatOptions, io: CliIO): Promise<ExitCode> {
  if (options.json && options.events) throw new ToolmanError(ErrorCode.USAGE, '--json and --events both print on standard output: choose one', { hint: '--events prints every event as a JSON line; the last one (done) carries the answer' });
  const given = options.prompt === undefined ? [] : Array.isArray(options.prompt) ? options.prompt : [options.prompt];
  if (given.some((prompt) => prompt.trim() === '')) throw new ToolmanError(ErrorCode.USAGE, 'an empty --prompt: every turn needs a message');
  // A recording names the catalog it was made with: replaying it needs nothing else.
  const recording = options.replay ? readRecording(readRegularFile(options.replay, { cwd: io.cwd, label: '--replay' }), options.replay) : undefined;
  const catalogs = options.catalog ?? recording?.header.catalog?.map((file) => resolve(dirname(resolve(io.cwd, options.replay!)), file));
  return withManager(
    io,
    catalogs,
    async (manager) => {
      // ...and the profile it was made with.
      const context = await openChat(options.profile === undefined && recording?.header.profile ? { ...options, profile: recording.header.profile } : options, io, manager, recording);
      try {
        const oneShot = options.prompt !== undefined || !options.interactive || options.json || options.events;
        if (!oneShot) {
          const { runRepl } = await import('../../repl/run-repl.js');
          return await runRepl(context, io);
        }
        // A replay without a prompt says what the recorded user said, turn after turn.
        if (!given.length && !context.initialPrompts.length && options.stdinIsTerminal) {
          throw new ToolmanError(ErrorCode.USAGE, `${options.json ? '--json' : options.events ? '--events' : 'one turn'} needs a prompt: give it with --prompt "..." or pipe it in`, { hint: 'without --json and --events, toolman chat on a terminal starts the REPL' });
        }
        let piped = '';
        if (!given.length && !context.initialPrompts.length) {
          try {
            piped = (await options.readStdin?.())?.trim() ?? '';
          } catch (error) {
            if (options.signal?.aborted) return EXIT.INTERRUPTED;
            throw error;
          }
        }
        const prompts = given.length ? given : context.initialPrompts.length ? context.initialPrompts : [piped];
        if (!prompts[0]) throw new ToolmanError(ErrorCode.USAGE, 'no prompt: give one with --prompt "..." or pipe it in', { hint: 'or run toolman chat on a terminal for the interactive REPL' });
        const documents: Record<string, unknown>[] = [];
        let code: ExitCode = EXIT.OK;
        for (const prompt of prompts) {
          if (prompts.length > 1 && !options.json && !options.events) io.stdout.write(`> ${prompt}\n`);
          const summary = await oneShotTurn(context, prompt, options, io);
          documents.push(summaryDocument(summary, context));
          code = exitFor(summary, options.signal);
          if (code !== EXIT.OK) break;
        }
        if (code === EXIT.OK && options.replayStrict && context.replayDiffered()) {
          io.stderr.write('toolman: error: --replay-strict: tools answered differently from the recording (see the warnings above)\n');
          code = EXIT.FAILURE;
        }
        // One document: the turn's, or the turns' when there were several.
        if (options.json) io.stdout.write(manager.secrets.redact(JSON.stringify(documents.length === 1 ? documents[0] : { turns: documents, transcript: context.transcript?.file ?? null }, null, 2)) + '\n');
        return code;
      } finally {
        // With --json the document says where it is.
        if (context.transcript && !options.json) io.stderr.write(`transcript: ${context.transcript.file}\n`);
      }
    },
    { requireValid: 'all' },
  );
}

/** Everything a conversation needs, for the one-shot mode and the REPL alike. */
async function openChat(options: ChatOptions, io: CliIO, manager: ToolManager, recording: ReturnType<typeof readRecording> | undefined): Promise<ReplContext & { replayDiffered(): boolean }> {
  const notices: string[] = [];
  let differed = false;
  const { provider, model, connection } = connect(options, recording, io.env, (message) => notices.push(message), () => (differed = true));
  if (!(CHAT_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ToolmanError(ErrorCode.USAGE, `toolman chat does not talk to ${provider} yet`, { hint: `providers: ${CHAT_PROVIDERS.join(', ')}, replay (and OpenAI-compatible servers with --provider openai --base-url URL)` });
  }
  const search = options.search ?? 'client';
  if (search === 'native' && (provider === 'openai' || provider === 'gemini')) {
    throw new ToolmanError(ErrorCode.USAGE, `${provider === 'gemini' ? 'Gemini' : 'OpenAI Chat Completions'} has no native tool search`, { hint: 'use --provider openai-responses or anthropic, or --search client' });
  }
  const format: FormatOptions = {
    ...formatOptions(manager.catalog.format, options.strict !== undefined ? { strict: options.strict } : {}),
    ...(search === 'native' ? { nativeToolSearch: 'bm25' as const } : {}),
  };
  if (search === 'client') delete format.nativeToolSearch;
  const transcriptFile = options.transcript === false ? undefined : (options.transcript ? resolve(io.cwd, options.transcript) : defaultTranscriptPath(io.env));
  const transcript = transcriptFile
    ? new TranscriptWriter(transcriptFile, manager.secrets, { provider, model, catalog: manager.catalog.files, profile: options.profile ?? null, search, replay: options.replay ?? null })
    : undefined;
  // Sub-agents' nested loops get their own section of the transcript: their events, marked with the agent and the parent's call.
  if (transcript) manager.onAgentEvent(({ agent, call_id, depth, event }) => event.type !== 'text' && transcript.note({ type: 'agent_event', agent, call_id, depth, event }));
  const recordFile = options.record ? resolve(io.cwd, options.record) : undefined;
  if (recordFile) {
    const catalog = manager.catalog.files.map((file) => relative(dirname(recordFile), resolve(io.cwd, file)).split('\\').join('/'));
    connection.fetch = recordingFetch(recordFile, { provider, model, base_url: connection.baseUrl ?? null, catalog, profile: options.profile ?? null }, manager.secrets, connection.fetch);
  }
  const client = await createModelClient(provider, model, connection);
  const approve: Approver = async () => (options.yes ? 'approve' : 'decline');
  const openSession = (profile: string | undefined, force: readonly string[] = options.force ?? []): Promise<ToolSession> =>
    manager.session({ ...(profile ? { profile } : {}), force, provider, model, format });
  const session = await openSession(options.profile);
  const loop = new ChatLoop({ client, session, format, ...(options.system ? { system: options.system } : {}), stream: options.stream !== false, approve });
  return {
    manager,
    loop,
    client: client as ModelClient,
    provider: provider as ProviderName,
    model,
    profile: options.profile ?? null,
    search,
    format,
    yes: options.yes ?? false,
    ...(transcript ? { transcript } : {}),
    notices,
    initialPrompts: options.prompt === undefined ? (recording?.prompts ?? []) : [],
    recordPrompt: (text: string) => {
      if (recordFile) recordPrompt(recordFile, text, manager.secrets);
      transcript?.note({ type: 'user', text });
    },
    openSession,
    ...(options.signal ? { signal: options.signal } : {}),
    replayDiffered: () => differed,
  };
}

/** Provider, model and how to reach it: a recording to replay, or the API with a key (or a local server). */
function connect(options: ChatOptions, recording: ReturnType<typeof readRecording> | undefined, env: Record<string, string | undefined>, notice: (message: string) => void, onDifference: () => void): { provider: ProviderName; model: string; connection: ClientConnection } {
  if (options.provider === 'replay' || recording) {
    if (!recording) throw new ToolmanError(ErrorCode.USAGE, '--provider replay needs --replay FILE (a recording made with --record)', { hint: 'try --replay catalogs/recordings/assistant.jsonl' });
    const { header, exchanges } = recording;
    if (options.model && options.model !== header.model) notice(`replay: the recording was made with ${header.model}; --model ${options.model} is ignored`);
    if (options.provider && options.provider !== 'replay' && options.provider !== header.provider) notice(`replay: the recording was made with ${header.provider}; --provider ${options.provider} is ignored`);
    return {
      provider: header.provider,
      model: header.model,
      connection: { apiKey: 'replay', ...(header.base_url ? { baseUrl: header.base_url } : {}), fetch: replayFetch(exchanges, (message) => {
        notice(message);
        onDifference();
      }) },
    };
  }
  const provider = (options.provider ?? 'openai') as ProviderName;
  if (!(provider in PROVIDER_ENV)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown provider "${provider}"`, { hint: `providers: ${CHAT_PROVIDERS.join(', ')}, replay` });
  }
  const spec = PROVIDER_ENV[provider];
  const baseUrl = options.baseUrl ?? env[spec.baseUrl] ?? undefined;
  const apiKey = spec.key.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  if (!apiKey && !baseUrl) {
    // The shipped recordings, where this toolman is installed: the path works from any folder.
    const shipped = relative(env.PWD ?? process.cwd(), join(packageRoot(), 'catalogs', 'recordings', 'assistant.jsonl')) || 'catalogs/recordings/assistant.jsonl';
    throw new ToolmanError(ErrorCode.USAGE, `toolman chat with ${spec.label} needs ${spec.key[0]}`, {
      hint: `set ${spec.key[0]}${provider === 'openai' ? ', point --base-url at a local OpenAI-compatible server' : `, or --base-url for a compatible endpoint`}, or see the loop without a key: toolman chat --replay ${shipped}`,
    });
  }
  // Local servers (Ollama, vLLM, llama.cpp, LM Studio) take any key.
  return { provider, model: options.model ?? DEFAULT_MODELS[provider], connection: { apiKey: apiKey ?? 'local', ...(baseUrl ? { baseUrl } : {}) } };
}

/** One turn without a terminal: the answer as text, one JSON document, or events as JSON lines. */
async function oneShotTurn(context: ReplContext, prompt: string, options: ChatOptions, io: CliIO): Promise<TurnSummary> {
  const c = palette(colorEnabled(io, io.stderr));
  const { secrets } = context.manager;
  const text = (s: string) => (io.stdout.isTTY ? plainText(s) : s);
  // What the model says may hold a secret (cut between deltas, too): redacted before it is printed.
  const said = new RedactingStream(secrets);
  const name = (s: string) => plainText(secrets.redact(s));
  for (const notice of context.notices.splice(0)) reportWarning(notice, options, io, c);
  let wroteText = false;
  const flushText = (round: number) => {
    const rest = said.end();
    if (!rest) return;
    if (options.events) io.stdout.write(JSON.stringify({ type: 'text', round, delta: rest }) + '\n');
    else if (!options.json) {
      io.stdout.write(text(rest));
      wroteText = true;
    }
  };
  const onEvent = (event: LoopEvent) => {
    context.transcript?.write(event);
    for (const notice of context.notices.splice(0)) reportWarning(notice, options, io, c);
    if (event.type !== 'text' && 'round' in event && typeof event.round === 'number') flushText(event.round);
    if (event.type === 'done') flushText(event.rounds);
    if (options.events) {
      if (event.type === 'text') {
        const delta = said.push(event.delta);
        if (delta) io.stdout.write(JSON.stringify({ ...event, delta }) + '\n');
      } else io.stdout.write(secrets.redact(JSON.stringify(event)) + '\n');
      return;
    }
    if (options.json) return;
    switch (event.type) {
      case 'text': {
        const delta = said.push(event.delta);
        if (delta) io.stdout.write(text(delta));
        wroteText = true;
        return;
      }
      case 'tool_calls':
        if (wroteText) io.stdout.write('\n');
        wroteText = false;
        for (const call of event.calls) io.stderr.write(c.dim(`→ ${name(call.name)}(${name(preview(call.arguments))})\n`));
        return;
      case 'tool_status':
        if (event.status === 'awaiting_approval') io.stderr.write(c.yellow(`? ${name(event.name)} needs approval (${name(event.reason)}): ${options.yes ? 'approved by --yes' : 'declined (no terminal; --yes approves)'}\n`));
        return;
      case 'tool_result':
        io.stderr.write(event.response.ok ? c.dim(`✓ ${name(event.response.name)} ${event.response.duration_ms} ms${event.response.truncated ? ' (truncated)' : ''}\n`) : c.red(`✗ ${name(event.response.name)}: ${name(event.response.error ?? '')}\n`));
        return;
      case 'search':
        io.stderr.write(c.dim(`tool search found: ${name(event.activated.join(', '))}\n`));
        return;
      case 'retry':
        io.stderr.write(c.yellow(`retrying in ${(event.wait_ms / 1000).toFixed(1)} s (attempt ${event.attempt}${event.status ? `, HTTP ${event.status}` : ''}): ${name(event.reason)}\n`));
        return;
      case 'warning':
        io.stderr.write(c.yellow(`warning: ${name(event.message)}\n`));
        return;
      case 'error':
        io.stderr.write(`${c.red('error:')} ${name(event.message)}\n${event.hint ? `  ${c.dim('hint:')} ${name(event.hint)}\n` : ''}`);
        return;
      case 'done':
        if (wroteText) io.stdout.write('\n');
        if (event.stop === 'took_control' && !wroteText && event.answer) io.stdout.write(text(secrets.redact(event.answer)) + '\n');
        // An error's message was printed with its `error` event: said once.
        if (event.stop === 'error') io.stderr.write(c.yellow('stopped (error)\n'));
        else if (event.stop !== 'done' && event.stop !== 'took_control' && event.message) io.stderr.write(c.yellow(`stopped (${event.stop}): ${name(event.message)}\n`));
        return;
      default:
        return;
    }
  };
  context.recordPrompt(prompt);
  return context.loop.run(prompt, { ...(options.signal ? { signal: options.signal } : {}), onEvent });
}

function reportWarning(message: string, options: ChatOptions, io: CliIO, c: ReturnType<typeof palette>): void {
  if (options.events) io.stdout.write(JSON.stringify({ type: 'warning', message }) + '\n');
  else io.stderr.write(c.yellow(`warning: ${plainText(message)}\n`));
}

/** The one-shot JSON document (README, "toolman chat"). */
export function summaryDocument(summary: TurnSummary, context: Pick<ReplContext, 'transcript'>): Record<string, unknown> {
  return {
    answer: summary.answer,
    stop: summary.stop,
    rounds: summary.rounds,
    calls: summary.calls,
    usage: summary.usage,
    ...(summary.message ? { message: summary.message } : {}),
    transcript: context.transcript?.file ?? null,
  };
}

export function exitFor(summary: TurnSummary, signal?: AbortSignal): ExitCode {
  if (summary.stop === 'cancelled' || signal?.aborted) return EXIT.INTERRUPTED;
  return summary.stop === 'done' || summary.stop === 'took_control' ? EXIT.OK : EXIT.FAILURE;
}

function preview(args: unknown): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Reads a whole stream (piped standard input) as text, up to 1 MiB. */
export async function readPrompt(stream: NodeJS.ReadableStream, signal?: AbortSignal): Promise<string> {
  let text = '';
  const stop = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new ToolmanError(ErrorCode.USAGE, 'interrupted while reading the prompt')), { once: true }));
  const read = (async () => {
    for await (const chunk of stream) {
      text += String(chunk);
      if (text.length > 1 << 20) throw new ToolmanError(ErrorCode.USAGE, 'the piped prompt is over 1 MiB');
    }
    return text;
  })();
  stop.catch(() => undefined);
  return signal ? Promise.race([read, stop]) : read;
}

