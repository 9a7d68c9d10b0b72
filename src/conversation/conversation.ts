import type { Approver } from '../execute/types.js';
import type { ChatLoop } from '../loop/chat-loop.js';
import type { LoopEvent, TurnSummary } from '../loop/loop-events.js';
import { recordPrompt } from '../loop/recording.js';
import type { TranscriptWriter } from '../loop/transcript.js';
import type { McpToolsChange } from '../mcp/tools-change.js';
import type { ChatMessage, ModelRequest } from '../providers/model-client.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import type { ToolSession } from '../session/tool-session.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { carryMessages, type ModelTarget } from './carry-messages.js';
import { contextCost, type ContextCost } from './context-cost.js';
import type { ConversationHost } from './conversation-options.js';
import { redactError, redactValue } from '../shared/secrets.js';
import type { SwitchedModel } from './open-conversation.js';
import type { TranscriptHistory } from './transcript-history.js';
import { RedactedEvents, redactSummary } from './redacted-events.js';
import type { SideModels, SideRequest } from './side-models.js';

/** What `openConversation` hands a new conversation. */
export interface ConversationParts {
  host: ConversationHost;
  provider: ProviderName;
  model: string;
  search: 'client' | 'native';
  loop: ChatLoop;
  /** Opens a session over a profile with tools forced (undefined: the conversation's own --force). */
  openSession(profile: string | undefined, force?: readonly string[]): Promise<ToolSession>;
  transcript?: TranscriptWriter;
  /** The file a recording goes to (each user message is noted in it). */
  recordFile?: string;
  /** What setup had to say (a replay's --model that does not apply...). */
  notices: string[];
  /** A replay's recorded user messages, in order. */
  recordedPrompts: string[];
  /** Set by the replay's fetch: where a difference from the recording is reported. */
  replay?: { onDifference(listener: (message: string) => void): void };
  /** The transcript this conversation went on from. */
  resumed?: TranscriptHistory;
  /** Builds what another provider or model needs (live conversations only). */
  switchModel?: ((target: ModelTarget) => Promise<SwitchedModel>) | undefined;
  /** Why this conversation cannot switch models (a replay, a recording). */
  whyNoSwitch?: string | undefined;
  /** The user's system prompt (the tools' contributions follow it). */
  system?: string | undefined;
  /** Calls besides the loop's, through the same connection (recorded and replayed with it): `ask`. */
  side?: SideModels;
  /** The base URL the conversation's own model is reached at (`--base-url`), for `ask`. */
  baseUrl?: string | undefined;
}

/** Something drivers show between turns: a new session (the tools offered changed), or a notice. */
export type ConversationChange = { type: 'session'; session: ToolSession } | { type: 'notice'; message: string };

/** What a switch of provider or model did. */
export interface ModelSwitch {
  from: ModelTarget;
  to: ModelTarget;
  /** Messages that went along. */
  kept: number;
  /** What could not go along as it was (carry-messages.ts), and what else changed. */
  notes: string[];
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Every event of the turn, redacted (streamed text included, also a secret cut between deltas). */
  onEvent?: (event: LoopEvent) => void;
}

/**
 * One conversation with a model over the catalog's tools, the same for every driver: the REPL,
 * one-shot `chat`, each run of `toolman test`, a local sub-agent. It owns the model client (its
 * key a secret from the start), live / record / replay, the format options, the session and its
 * swaps (`/profile`, `/force`, MCP servers' changed tools), the loop, the transcript and the one
 * redacted event stream. Drivers only show what it reports and say what the user typed.
 */
export class Conversation {
  private current: { provider: ProviderName; model: string; search: 'client' | 'native' };
  /** What setup had to say, for the driver to show once. */
  readonly notices: string[];
  /** A replay's recorded user messages, in order: what a replay without a prompt says. */
  readonly recordedPrompts: string[];
  readonly transcript: TranscriptWriter | undefined;
  /** The transcript this conversation went on from (`--continue`, `--resume`). */
  readonly resumed: TranscriptHistory | undefined;
  private readonly host: ConversationHost;
  private loop: ChatLoop;
  private openSession: ConversationParts['openSession'];
  private readonly switcher: ConversationParts['switchModel'];
  private readonly whyNoSwitch: string | undefined;
  private readonly system: string | undefined;
  private readonly side: SideModels | undefined;
  private readonly baseUrl: string | undefined;
  /** Who answers confirmations (kept for a new loop after a switch). */
  private approver: Approver | undefined;
  private approverSet = false;
  private readonly recordFile: string | undefined;
  private differed = false;
  /** Where replay differences go while a turn runs: its event stream. */
  private warn: ((message: string) => void) | undefined;
  /** Session swaps, one after the other: a turn's end, /profile, /force and tool reloads never interleave. */
  private swaps: Promise<void> = Promise.resolve();
  /** `/force` names for the next turn only. */
  private pendingForce: string[] | undefined;
  private toolsChanged = false;
  private running = false;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly listeners = new Set<(change: ConversationChange) => void>();
  private closed = false;

  constructor(parts: ConversationParts) {
    this.host = parts.host;
    this.current = { provider: parts.provider, model: parts.model, search: parts.search };
    this.loop = parts.loop;
    this.resumed = parts.resumed;
    this.switcher = parts.switchModel;
    this.whyNoSwitch = parts.whyNoSwitch;
    this.system = parts.system;
    this.side = parts.side;
    this.baseUrl = parts.baseUrl;
    this.openSession = parts.openSession;
    this.transcript = parts.transcript;
    this.recordFile = parts.recordFile;
    // Setup's words may quote what a recording or the environment said: redacted like the rest.
    this.notices = parts.notices.map((notice) => parts.host.secrets.redact(notice));
    this.recordedPrompts = parts.recordedPrompts;
    parts.replay?.onDifference((message) => {
      this.differed = true;
      if (this.warn) this.warn(message);
      else this.notice(message);
    });
    // Sub-agents' nested loops get their own section of the transcript: their events, marked with the agent and the parent's call.
    const transcript = this.transcript;
    if (transcript) this.unsubscribe.push(this.host.onAgentEvent(({ agent, call_id, depth, event }) => event.type !== 'text' && transcript.note({ type: 'agent_event', agent, call_id, depth, event })));
  }

  /** The provider the conversation talks to now (`switchModel` changes it). */
  get provider(): ProviderName {
    return this.current.provider;
  }

  get model(): string {
    return this.current.model;
  }

  /** How deferred tools are found: toolman's tool_search, or the provider's own. */
  get search(): 'client' | 'native' {
    return this.current.search;
  }

  /** The tools this conversation offers now (a swap replaces it). */
  get session(): ToolSession {
    return this.loop.session;
  }

  /** The format options the tools are sent with (the catalog's, the flags', as the client's wire allows). */
  get format(): FormatOptions {
    return this.loop.format;
  }

  /** What was said so far, in the loop's provider-neutral form (`/save`), redacted like everything a driver gets. */
  get messages(): readonly ChatMessage[] {
    return redactValue([...this.loop.messages], this.host.secrets, []);
  }

  /** How many user turns ran. */
  get turnCount(): number {
    return this.loop.turnCount;
  }

  /** A replay where a tool answered differently from the recording (for --replay-strict). */
  get replayDiffered(): boolean {
    return this.differed;
  }

  /** Tells `listener` of new sessions and of notices between turns (a driver without a listener finds notices in `notices`). */
  onChange(listener: (change: ConversationChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** toolman's count of the first request a turn with `text` would send now, nothing sent (a suite's cost estimate). */
  estimateTurn(text: string): Promise<number | null> {
    return this.loop.estimateTurn(text);
  }

  /** Who answers confirmations from now on (the REPL asks the user). */
  useApprover(approve: Approver | undefined): void {
    this.approver = approve;
    this.approverSet = true;
    this.loop.useApprover(approve);
  }

  /**
   * Goes on with another provider or model (`/model`, `/provider`): the same conversation, the
   * same profile and the tools found so far, a new client and session. The history goes along as
   * the new model can take it (carry-messages.ts says what cannot, and the result lists it). A
   * replay or a recording cannot switch (the error says why), nor can a conversation while a turn
   * runs; a provider whose key is missing is the usual error, and nothing changes.
   */
  switchModel(target: { provider?: ProviderName; model?: string }): Promise<ModelSwitch> {
    return this.swap(async () => {
      if (!this.switcher) throw new ToolmanError(ErrorCode.USAGE, `this conversation cannot change its model: ${this.whyNoSwitch ?? 'it has no live connection'}`);
      if (this.running) throw new ToolmanError(ErrorCode.USAGE, 'a turn is running: change the model after it ends');
      const from: ModelTarget = { provider: this.provider, model: this.model };
      const provider = target.provider ?? from.provider;
      const model = target.model ?? (provider === from.provider ? from.model : undefined);
      const switched = await this.switcher({ provider, model: model ?? DEFAULT_MODELS[provider] });
      const to: ModelTarget = { provider: switched.provider, model: switched.model };
      const previous = this.session;
      const session = await switched.openSession(previous.selection.profile.name, this.pendingForce);
      const carried = carryMessages(this.loop.messages, from, to);
      const loop = switched.newLoop(session);
      loop.messages.push(...carried.messages);
      if (this.approverSet) loop.useApprover(this.approver);
      this.loop = loop;
      this.openSession = switched.openSession;
      this.current = { provider: to.provider, model: to.model, search: switched.search };
      this.use(session, previous);
      const notes = [...switched.notices, ...carried.notes];
      this.transcript?.note({ type: 'model', provider: to.provider, model: to.model, kept: carried.messages.length, notes });
      return { from, to, kept: carried.messages.length, notes };
    });
  }

  /**
   * One user turn. Events reach `onEvent` redacted, in order; the summary is redacted too. The
   * message goes into the recording and the transcript first. Never rejects for the model's or a
   * tool's failure (the summary says how the turn ended).
   */
  async run(text: string, options: RunOptions = {}): Promise<TurnSummary> {
    await this.swaps;
    const forcedOnce = this.pendingForce !== undefined;
    this.pendingForce = undefined;
    const { secrets } = this.host;
    if (this.recordFile) recordPrompt(this.recordFile, text, secrets);
    this.transcript?.note({ type: 'user', text });
    const stream = new RedactedEvents(secrets, (event) => {
      this.transcript?.write(event);
      try {
        options.onEvent?.(event);
      } catch {
        // a display's failure must not break the turn
      }
    });
    this.warn = (message) => stream.push({ type: 'warning', message });
    for (const notice of this.notices.splice(0)) this.warn(notice);
    this.running = true;
    let summary: TurnSummary;
    try {
      summary = await this.loop.run(text, { ...(options.signal ? { signal: options.signal } : {}), onEvent: (event) => stream.push(event) });
    } finally {
      this.running = false;
      this.warn = undefined;
      // Queued before the turn counts as over: a command or message right after it comes after the swap.
      if (forcedOnce || this.toolsChanged) void this.swap(() => this.reopen());
    }
    return redactSummary(summary, secrets);
  }

  /**
   * One question to the conversation's model outside the loop: one message, no tools, no history,
   * no turn (`validate --judge` grades descriptions this way). It goes through the conversation's
   * connection, so a recording holds it and its replay answers it (matched by content, like any
   * request). The answer comes back redacted; it is the model's text, so untrusted: the caller
   * validates it. Rejects when the model cannot be had (no key, an error, nothing recorded for it).
   */
  async ask(request: SideRequest, signal: AbortSignal = new AbortController().signal): Promise<string> {
    if (!this.side) throw new ToolmanError(ErrorCode.USAGE, 'this conversation cannot ask its model outside a turn');
    const target = { provider: this.current.provider, model: this.current.model, ...(this.baseUrl ? { baseUrl: this.baseUrl } : {}) };
    try {
      return this.host.secrets.redact(await this.side.complete(target, request, signal));
    } catch (error) {
      // A model call's error may quote what was sent or answered: redacted like every output.
      throw redactError(error, this.host.secrets);
    }
  }

  /**
   * A new session over `profile` (undefined: the current one), continuing the conversation. With
   * `force`, those tools are required in the next turn's first round only; a pending `/force`
   * goes along to a new profile when it can be forced there, and is dropped (and named) when not.
   */
  switchSession(profile: string | undefined, force?: string[]): Promise<{ dropped: string[] }> {
    return this.swap(async () => {
      const previous = this.session;
      const name = profile ?? previous.selection.profile.name;
      const wanted = force ?? this.pendingForce;
      let session: ToolSession;
      let dropped: string[] = [];
      try {
        session = await this.openSession(name, wanted);
      } catch (error) {
        if (force || !wanted) throw error;
        session = await this.openSession(name);
        dropped = wanted;
      }
      this.pendingForce = dropped.length ? undefined : wanted;
      this.use(session, previous);
      return { dropped };
    });
  }

  /**
   * What the next request costs before the user's next message, by part: the system prompt,
   * each tool offered (an MCP server's together), the overhead, the history; and what the
   * deferred tools would cost (context-cost.ts). Counted by toolman's tokenizers, loaded here.
   */
  contextCost(): Promise<ContextCost> {
    return contextCost({
      client: this.loop.client,
      session: this.session,
      format: this.format,
      system: this.system,
      messages: this.loop.messages,
      formatTools: (provider, names, options) => this.host.formatTools(provider, names, options),
    });
  }

  /** Forgets what was said (tools found by search stay found). */
  reset(): void {
    this.loop.reset();
    this.transcript?.note({ type: 'reset' });
  }

  /** A line of the driver's own in the transcript (a slash command, an approval, the exit). */
  note(entry: Record<string, unknown>): void {
    this.transcript?.note(entry);
  }

  /**
   * Watches the MCP servers' tool lists: on a change, `listener` hears what changed, and the next
   * turn offers the new tools (the session is rebuilt when no turn runs). Returns the unsubscribe.
   */
  watchTools(listener: (change: McpToolsChange) => void): () => void {
    const stop = this.host.watchMcpServers((change) => {
      this.toolsChanged = true;
      if (!this.running) void this.swap(() => this.reopen());
      listener(change);
    });
    this.unsubscribe.push(stop);
    return stop;
  }

  /**
   * One completion with the conversation's own model and key and no tools, for an MCP server's
   * sampling request the user allowed (MCP `client/sampling.mdx`: the client keeps control of the
   * model, and "MUST respect the maxTokens parameter": the caller gives the capped value). It is
   * not part of the conversation: its messages stay out of the history; the transcript notes it.
   */
  async sample(request: { server: string; system?: string; messages: readonly { role: 'user' | 'assistant'; text: string }[]; maxTokens: number }, signal: AbortSignal): Promise<{ model: string; text: string; stopReason: string }> {
    const client = this.loop.client;
    const messages: ChatMessage[] = request.messages.map((m) => (m.role === 'user' ? { role: 'user', text: m.text } : { role: 'assistant', text: m.text, toolCalls: [] }));
    const tools: ModelRequest['tools'] = { provider: client.provider, payload: {}, systemPayload: {}, toolChoice: { type: 'auto' }, warnings: [], changes: {}, sent: {}, prompts: { system: [], user: [], reminders: [] } };
    const reply = await client.send({ model: client.model, system: request.system ?? '', messages, tools, stream: false, maxTokens: request.maxTokens, capOutput: true }, { signal });
    this.transcript?.note({ type: 'mcp_sampling', server: request.server, max_tokens: request.maxTokens, model: client.model });
    return { model: client.model, text: this.host.secrets.redact(reply.text), stopReason: reply.stopReason };
  }

  /** Stops what the conversation started (its session's jobs, its listeners). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.session.close();
  }

  /** Runs one session swap after the others. */
  private swap<T>(change: () => Promise<T>): Promise<T> {
    const result = this.swaps.then(change);
    this.swaps = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** After a turn: the profile's session again, without a used /force, with the tools a server changed. */
  private async reopen(): Promise<void> {
    this.toolsChanged = false;
    const previous = this.session;
    try {
      this.use(await this.openSession(previous.selection.profile.name, this.pendingForce), previous);
    } catch (error) {
      this.notice(`could not open the tool session again: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private use(session: ToolSession, previous: ToolSession): void {
    // Tools found by search stay found when the new session can offer them.
    session.activate(previous.activated);
    this.loop.useSession(session);
    if (session !== previous) previous.close();
    this.transcript?.note({ type: 'session', profile: session.selection.profile.name, forced: session.selection.forced.map((t) => t.name) });
    this.tell({ type: 'session', session });
  }

  private notice(message: string): void {
    const redacted = this.host.secrets.redact(message);
    if (this.listeners.size) this.tell({ type: 'notice', message: redacted });
    else this.notices.push(redacted);
  }

  private tell(change: ConversationChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch {
        // a display's failure must not break the conversation
      }
    }
  }
}
