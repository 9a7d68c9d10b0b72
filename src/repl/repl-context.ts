import type { ChatLoop } from '../loop/chat-loop.js';
import type { TranscriptWriter } from '../loop/transcript.js';
import type { ToolManager } from '../manager/tool-manager.js';
import type { ModelClient } from '../providers/model-client.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';

/** Everything a chat needs, opened once by `toolman chat` for the one-shot mode and the REPL alike. */
export interface ReplContext {
  manager: ToolManager;
  loop: ChatLoop;
  client: ModelClient;
  provider: ProviderName;
  model: string;
  profile: string | null;
  search: 'client' | 'native';
  format: FormatOptions;
  /** --yes: approvals are given without asking. */
  yes: boolean;
  transcript?: TranscriptWriter;
  /** Messages from setup and replay (a differing tool result) waiting to be shown. */
  notices: string[];
  /** Messages to send first, in order (a replay without --prompt says what the recorded user said). */
  initialPrompts: string[];
  /** Call with each user message before its turn: it goes into the recording (--record) and the transcript. */
  recordPrompt(text: string): void;
  /** A session over a profile (`/profile NAME`) with tools forced in its first round (`/force NAME`), in the chat's format. */
  openSession(profile: string | undefined, force?: readonly string[]): Promise<ToolSession>;
  /** Aborted when the process is told to stop (SIGTERM, SIGHUP; SIGINT outside raw mode): the REPL exits with 130. */
  signal?: AbortSignal;
}

/** The terminal the REPL draws on (the CLI's streams; tests pass fakes). */
export interface ReplIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Base for `/save` paths; default: the process's working directory. */
  cwd?: string;
  /**
   * The raw terminal ink draws on and reads keys from; default: the process's own. (The CLI's
   * `stdout` filters escape sequences, which ink needs for redrawing; the REPL cleans untrusted
   * text itself.)
   */
  terminal?: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr?: NodeJS.WriteStream };
}
