import type { Conversation } from '../conversation/conversation.js';
import type { ToolManager } from '../manager/tool-manager.js';
import type { ReplMcpQuestions } from './mcp-questions.js';

/** What the REPL drives: the manager (catalog, search, budgets) and the conversation `toolman chat` opened through it. */
export interface ReplContext {
  manager: ToolManager;
  conversation: Conversation;
  /** --yes: approvals are given without asking. */
  yes: boolean;
  /** Answers what MCP servers ask during calls; given to the catalog when it opened, bound while the REPL runs. */
  mcpQuestions?: ReplMcpQuestions;
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
