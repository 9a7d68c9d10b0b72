import type { Catalog } from '../catalog/types.js';
import type { Approver } from '../execute/types.js';
import type { AgentLoopEvent } from '../loop/loop-events.js';
import type { readRecording } from '../loop/recording.js';
import type { McpToolsChange } from '../mcp/tools-change.js';
import type { FormatFlags } from '../providers/format-options.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import type { SessionRequest } from '../session/session-request.js';
import type { ToolSession } from '../session/tool-session.js';
import type { SecretSet } from '../shared/secrets.js';
import type { TranscriptHistory } from './transcript-history.js';

/** A recording read back (its header, the user's messages, the exchanges). */
export type Recording = ReturnType<typeof readRecording>;

/** How a conversation reaches its model. */
export type ModelConnection =
  /** The provider's API (or a compatible server at the base URL) with the key from the environment. */
  | { mode: 'live' }
  /** Live, and every exchange is written to `file` (a new file; `replace` for the test runner's reruns). */
  | { mode: 'record'; file: string; replace?: boolean }
  /** Answered from a recording: no network, no key; provider and model are the recording's. */
  | { mode: 'replay'; recording: Recording };

/** What a driver asks for when it opens a conversation (`ToolManager.conversation`). */
export interface ConversationOptions {
  /** Default openai; a replay talks to the recording's provider. */
  provider?: ProviderName;
  /** Default: the provider's default model; a replay uses the recording's. */
  model?: string;
  /** A compatible server instead of the provider's API (else the provider's BASE_URL variable). */
  baseUrl?: string;
  connection?: ModelConnection;
  /** Where the key and base URL variables are read; default: the manager's environment. */
  env?: Record<string, string | undefined>;
  /** Names who needs the key in a missing-key error: "toolman chat with OpenAI" ("... and needs OPENAI_API_KEY"). */
  purpose?: (label: string) => string;
  /** How to go on without the key (the error's hint). */
  missingKeyHint?: (variable: string) => string;
  profile?: string;
  /** Tools forced in the first round of every turn (the REPL's `/force` forces them in the next turn only). */
  force?: readonly string[];
  /** How deferred tools are found: toolman's tool_search, or the provider's own; default: the catalog's `format.native_tool_search`. */
  search?: 'client' | 'native';
  /** Over the catalog's `format:` settings. */
  format?: FormatFlags;
  /** The user's system prompt; the tools' contributions follow it. */
  system?: string;
  stream?: boolean;
  /** Default: the catalog's limits.max_rounds. */
  maxRounds?: number;
  /** Answers confirmations; without one, calls that need one are declined. */
  approve?: Approver;
  /** Runners layered over the manager's for this conversation only (a suite's stubs). */
  wrapRunners?: SessionRequest['wrapRunners'];
  /** A transcript of everything, as JSON lines: the file, and what its first line says besides the conversation's own facts. */
  transcript?: { file: string; header?: Record<string, unknown> };
  /**
   * A conversation read back from a transcript (`chat --continue`, `--resume FILE`;
   * transcript-history.ts): the loop goes on from its messages, as this provider and model can
   * take them (carry-messages.ts). Its provider, model and profile are the driver's to use.
   */
  resume?: TranscriptHistory;
}

/** What a conversation needs from the manager that opens it. */
export interface ConversationHost {
  readonly catalog: Catalog;
  /** The root catalog files (a recording names these; the others are their includes). */
  readonly rootFiles: readonly string[];
  readonly env: Record<string, string | undefined>;
  /** The secrets every output is redacted of; the provider's key joins them. */
  readonly secrets: SecretSet;
  session(request: SessionRequest): Promise<ToolSession>;
  /** Starts watching MCP servers' tool lists; returns the unsubscribe. */
  watchMcpServers(listener: (change: McpToolsChange) => void): () => void;
  /** Sub-agents' nested loops' events; returns the unsubscribe. */
  onAgentEvent(listener: (event: AgentLoopEvent) => void): () => void;
  /**
   * Set when the catalog was named by a file the user did not name as a catalog (a recording, a
   * suite): a base URL it gives is then never sent the user's key (side-models.ts).
   */
  readonly catalogNamedBy?: string | undefined;
  /** Named tools formatted on their own (what deferred tools would cost: `/context`). */
  formatTools(provider: ProviderName, names: readonly string[], options?: FormatOptions): Promise<FormatResult>;
}
