import type { ModelSwitch } from '../conversation/conversation.js';
import type { JobUpdate } from '../execute/stateful-job.js';
import type { ToolSession } from '../session/tool-session.js';
import type { ProviderName } from '../providers/types.js';
import type { LoopEvent, TurnSummary } from '../loop/loop-events.js';
import { isToolmanError } from '../shared/errors.js';
import type { McpToolsChange } from '../mcp/tools-change.js';
import { CHAT_PROVIDERS, describeToolsChange, profileNames } from '../manager/facts.js';
import { openInBrowser } from '../manager/mcp-client.js';
import { ApprovalQuestions } from './approval-questions.js';
import { TabCompletion } from './completion.js';
import { edit, InputHistory, lineOf, EMPTY_LINE, moveLine, type KeyAction } from './line-editor.js';
import { loadMarkdown } from './markdown.js';
import { MAX_PASTE_CHARS } from './terminal-keys.js';
import type { ReplContext } from './repl-context.js';
import { initialState, reduce, type NoteLevel, type OutputLine, type ReplAction, type ReplState } from './repl-state.js';
import { ContentNames, resourceReferences, withAttachments } from './resource-attachments.js';
import { parseInput, runCommand, sessionCounts, type CommandHost, type SwitchResult } from './slash-commands.js';
import { count, displayText } from './terminal-text.js';

export interface ControllerOptions {
  /** Base for /save paths. */
  cwd?: string;
  /** The clock for durations (tests pass a fake). */
  now?: () => number;
  /** How long an exit waits for a cancelled turn to wind down before leaving anyway. */
  exitGraceMs?: number;
  /** How long an approval question waits, after it appears or after the last key, before a key answers it. */
  approvalGuardMs?: number;
}

/**
 * The REPL's behaviour without a terminal: keys in, state out. It runs turns on the context's
 * conversation (one AbortController each), answers approvals from the keyboard, runs the slash
 * commands, and decides when to exit and with which code. The conversation does the rest (the
 * session and its swaps, redaction, the transcript). The ink app subscribes to its state and
 * forwards keys; tests do the same without ink.
 */
export class ReplController implements CommandHost {
  private current: ReplState;
  private readonly listeners = new Set<() => void>();
  /** Everything entered, commands too, for Up and Down. */
  private readonly inputHistory = new InputHistory();
  private readonly said: string[] = [];
  private readonly tabs = new TabCompletion();
  private readonly turnSummaries: TurnSummary[] = [];
  private turn: { controller: AbortController; done: Promise<void> } | undefined;
  private readonly questions: ApprovalQuestions;
  private readonly initialPrompts: string[];
  private resolveExit!: (code: number) => void;
  private exiting = false;
  private countVersion = 0;
  private readonly stopListening: (() => void)[] = [];
  /** The MCP prompts and resources Tab offers. */
  private readonly contentNames: ContentNames;
  readonly exited: Promise<number>;
  readonly cwd: string;
  pendingOverwrite: string | undefined;
  /** The clock panel durations are measured on. */
  readonly now: () => number;

  constructor(
    readonly context: ReplContext,
    private readonly options: ControllerOptions = {},
  ) {
    this.cwd = options.cwd ?? process.cwd();
    this.now = options.now ?? (() => performance.now());
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    const { conversation } = context;
    this.current = initialState({
      provider: conversation.provider,
      model: conversation.model,
      ...sessionCounts(conversation.session),
      budget: context.manager.catalog.budget.definitions ?? null,
      search: conversation.search,
      yes: context.yes,
    });
    this.initialPrompts = [...conversation.recordedPrompts];
    this.contentNames = new ContentNames(context.manager, (text) => this.dispatch({ type: 'hint', text }));
    this.questions = new ApprovalQuestions(
      {
        state: () => this.current,
        dispatch: (action) => this.dispatch(action),
        noteAnswer: (entry) => this.context.conversation.note({ type: 'approval', ...entry }),
        exiting: () => this.exiting,
      },
      options.approvalGuardMs,
    );
    if (!context.yes) conversation.useApprover(this.questions.approver);
    context.mcpQuestions?.bind({
      ask: (request, signal) => this.questions.approver(request, signal),
      note: (text) => this.note('dim', text),
      open: async (url) => void (await openInBrowser(url, context.manager.env, (href) => this.note('info', `open ${href} in your browser`))),
      conversation,
    });
    context.signal?.addEventListener('abort', () => this.exit(130), { once: true });
  }

  // --- the store the components read ---

  get state(): ReplState {
    return this.current;
  }

  getState = (): ReplState => this.current;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private dispatch(action: ReplAction): void {
    const next = reduce(this.current, action);
    if (next === this.current) return;
    this.current = next;
    for (const listener of [...this.listeners]) listener();
  }

  /** What the user said to the model (messages, not commands), in order: `/history`. */
  get history(): readonly string[] {
    return this.said;
  }

  get summaries(): readonly TurnSummary[] {
    return this.turnSummaries;
  }

  /** Shows what setup said, offers the first recorded prompt of a replay, counts the definitions. */
  start(): void {
    const { context } = this;
    const { conversation } = context;
    this.output([{ text: `catalog ${context.manager.catalog.name} | ${conversation.provider} ${conversation.model} | /help lists commands | Ctrl-C cancels a turn | /exit leaves`, style: 'dim' }], 'toolman chat');
    this.stopListening.push(
      conversation.onChange((change) => (change.type === 'session' ? this.refreshCounts() : this.note('warning', change.message))),
      conversation.watchTools((change) => this.mcpToolsChanged(change)),
      () => this.stopWatchingJobs?.(),
    );
    this.watchJobs();
    void this.countDefinitions();
    const resumed = conversation.resumed;
    if (!resumed) {
      this.startNotes();
      // Markdown's parser loads once the prompt is up (half a second on), not before it: the
      // REPL's start does not wait for it, and a message sent sooner waits for it (send()).
      setTimeout(() => void loadMarkdown(), 500).unref();
      return;
    }
    // A resumed conversation is drawn once, as Markdown: the parser first.
    void loadMarkdown().then(() => {
      this.said.push(...conversation.messages.flatMap((m) => (m.role === 'user' ? [m.text] : [])));
      this.dispatch({ type: 'history', messages: conversation.messages });
      this.note('info', `resumed ${resumed.file}: ${resumed.turns} turn${resumed.turns === 1 ? '' : 's'}, ${resumed.messages.length} messages; the conversation goes on with ${conversation.provider} ${conversation.model}`);
      this.startNotes();
    });
  }

  /** What setup had to say, and a replay's first message in the input line. */
  private startNotes(): void {
    this.drainNotices();
    if (this.initialPrompts.length) this.note('info', `replaying a recording: press Enter to send what the recorded user said (${this.initialPrompts.length} message${this.initialPrompts.length === 1 ? '' : 's'})`);
    this.prefillNext();
    if (this.context.yes) this.note('dim', '--yes: tools that ask for approval run without asking');
  }

  // --- keys ---

  key(action: KeyAction): void {
    if (this.exiting) return;
    if (action.type !== 'tab' && action.type !== 'shift_tab') {
      this.tabs.reset();
      if (this.current.choices) this.dispatch({ type: 'choices', choices: null });
    }
    if (action.type === 'ctrl_c') return this.ctrlC();
    if (this.current.exitArmed) this.dispatch({ type: 'arm_exit', armed: false });
    if (this.current.approval && this.questions.key(action)) return;
    switch (action.type) {
      case 'enter': {
        // `\` + Enter: a line break instead of sending (for terminals where Alt+Enter is taken).
        const { text, cursor } = this.current.input;
        const chars = Array.from(text);
        if (cursor > 0 && chars[cursor - 1] === '\\') {
          this.dispatch({ type: 'input', input: { text: [...chars.slice(0, cursor - 1), '\n', ...chars.slice(cursor)].join(''), cursor } });
          return;
        }
        return this.submit(text);
      }
      case 'up':
      case 'down': {
        // In a text of several lines, Up and Down move between its lines; past the first or last, through the history.
        const moved = moveLine(this.current.input, action.type === 'up' ? -1 : 1);
        if (moved) return this.dispatch({ type: 'input', input: moved });
        const line = action.type === 'up' ? this.inputHistory.up(this.current.input.text) : this.inputHistory.down();
        if (line !== undefined) this.dispatch({ type: 'input', input: action.type === 'up' ? { text: line, cursor: firstLineEnd(line) } : lineOf(line) });
        return;
      }
      case 'tab':
      case 'shift_tab':
        return this.tab(action.type === 'tab' ? 1 : -1);
      case 'paste':
        if (action.cut) this.dispatch({ type: 'hint', text: `the paste was cut at ${count(MAX_PASTE_CHARS)} characters` });
        break;
      case 'ctrl_o':
        return this.expand();
      case 'ctrl_d':
        // On an empty line, like a shell's end of input: leave.
        if (this.current.input.text === '' && !this.current.running) return this.exit(0);
        break;
      case 'escape':
        if (this.current.hint) this.dispatch({ type: 'hint', text: null });
        return;
      default:
        break;
    }
    const input = edit(this.current.input, action);
    if (input !== this.current.input) this.dispatch({ type: 'input', input });
  }

  /** Tab and Shift+Tab: completion.ts decides; the choices show until another key. */
  private tab(direction: 1 | -1): void {
    const { manager } = this.context;
    const result = this.tabs.press(this.current.input, direction, {
      tools: () => manager.catalog.tools.flatMap((t) => [t.name, ...t.aliases]),
      profiles: () => profileNames(manager.catalog),
      providers: () => CHAT_PROVIDERS,
      mcpServers: () => [...manager.catalog.mcpServers.keys()],
      prompts: () => this.contentNames.prompts(),
      resources: () => this.contentNames.resources(),
      cwd: this.cwd,
      ...(process.env.HOME ? { home: process.env.HOME } : {}),
    });
    if (!result) return;
    this.dispatch({ type: 'input', input: result.input });
    if (result.choices) this.dispatch({ type: 'choices', choices: result.choices });
  }

  /** Ctrl-C: cancels a running turn; a second one (or one while idle, after a warning) exits with 130. */
  private ctrlC(): void {
    if (this.current.exitArmed) return this.exit(130);
    if (this.turn && !this.current.cancelling) {
      this.turn.controller.abort(new Error('cancelled (Ctrl-C)'));
      this.dispatch({ type: 'cancelling' });
    }
    if (this.current.input.text && !this.turn) this.dispatch({ type: 'input', input: EMPTY_LINE });
    this.dispatch({ type: 'arm_exit', armed: true });
  }

  // --- input ---

  submit(line: string): void {
    const parsed = parseInput(line);
    if (parsed.kind === 'empty') return;
    // Only the command right after a refused /save confirms the overwrite.
    if (!(parsed.kind === 'command' && parsed.name === 'save')) this.pendingOverwrite = undefined;
    if (parsed.kind === 'message' && this.turn) {
      this.dispatch({ type: 'hint', text: 'a turn is running: wait for it, or Ctrl-C to cancel it' });
      return;
    }
    this.inputHistory.push(line.trim());
    this.dispatch({ type: 'input', input: EMPTY_LINE });
    if (this.current.hint) this.dispatch({ type: 'hint', text: null });
    switch (parsed.kind) {
      case 'message':
        if (this.initialPrompts[0] !== undefined && displayText(this.initialPrompts[0]).trim() === parsed.text) this.initialPrompts.shift();
        void this.send(parsed.text);
        return;
      case 'unknown':
        this.context.conversation.note({ type: 'command', text: line.trim(), known: false });
        // Shown as typed, like a known command, so the error below it has its context.
        this.dispatch({ type: 'user', text: line.trim() });
        this.note('error', `unknown command /${parsed.name}${parsed.suggestion ? `; did you mean /${parsed.suggestion}?` : ''}`, '/help lists the commands');
        return;
      case 'command':
        this.context.conversation.note({ type: 'command', text: line.trim(), name: parsed.name, args: parsed.args });
        this.dispatch({ type: 'user', text: line.trim() });
        void runCommand(parsed, this);
        return;
    }
  }

  /** One user turn on the conversation. */
  send(text: string): Promise<void> {
    const controller = new AbortController();
    const turn = { controller, done: Promise.resolve() };
    this.turn = turn;
    const run = async () => {
      this.said.push(text);
      this.dispatch({ type: 'user', text });
      this.dispatch({ type: 'turn_begin' });
      // Answers settle into the scrollback once, drawn as Markdown: the parser is there before the first one.
      await loadMarkdown();
      const message = await this.attach(text, controller.signal);
      const summary = await this.context.conversation.run(message, { signal: controller.signal, onEvent: this.onEvent });
      this.turnSummaries.push(summary);
      this.turn = undefined;
      this.dispatch({ type: 'turn_end', summary });
      this.refreshCounts();
      this.prefillNext();
    };
    const done = run().catch((error: unknown) => {
      // The loop never rejects; anything else (a transcript that cannot be written) is shown.
      this.turn = undefined;
      this.dispatch({ type: 'turn_end', summary: { answer: '', stop: 'error', rounds: 0, calls: [], usage: { input: 0, output: 0, cached: 0, estimated_input: 0, side: [] }, took_control: null, references: [], evaluations: [] } });
      const { secrets } = this.context.manager;
      this.note('error', secrets.redact(error instanceof Error ? error.message : String(error)), isToolmanError(error) && error.hint ? secrets.redact(error.hint) : undefined);
    });
    turn.done = done;
    return done;
  }

  /** The message with the resources its `@SERVER:URI` references name (read through the manager), or the text as typed. */
  private async attach(text: string, signal: AbortSignal): Promise<string> {
    const { manager } = this.context;
    const references = resourceReferences(text, [...manager.catalog.mcpServers.keys()]);
    if (!references.length) return text;
    return withAttachments(text, references, await manager.mcpContent(), (note) => this.note('dim', note), signal);
  }

  /** Events come redacted from the conversation. */
  private onEvent = (event: LoopEvent): void => {
    this.dispatch({ type: 'event', event, now: this.now() });
    if (event.type === 'search') this.refreshCounts();
  };

  // --- CommandHost ---

  output(lines: OutputLine[], title?: string): void {
    this.dispatch({ type: 'output', lines, ...(title ? { title } : {}) });
  }

  note(level: NoteLevel, text: string, hint?: string): void {
    this.dispatch({ type: 'note', level, text, ...(hint ? { hint } : {}) });
  }

  expand(n?: number): void {
    this.dispatch({ type: 'expand', ...(n !== undefined ? { n } : {}) });
  }

  reset(): void {
    this.context.conversation.reset();
    // A /save after this saves the new conversation's turns only.
    this.turnSummaries.length = 0;
  }

  /** `/profile NAME` (force undefined) or `/force NAMES` (the current profile): the conversation swaps its session. */
  switchSession(profile: string | undefined, force?: string[]): Promise<SwitchResult> {
    return this.context.conversation.switchSession(profile, force);
  }

  /** `/model`, `/provider`: the conversation goes on with another model; the status line follows. */
  async switchModel(target: { provider?: ProviderName; model?: string }): Promise<ModelSwitch> {
    const { conversation } = this.context;
    const result = await conversation.switchModel(target);
    this.dispatch({ type: 'status', status: { provider: conversation.provider, model: conversation.model, search: conversation.search } });
    this.refreshCounts();
    return result;
  }

  /** A server said its tools changed (list_changed): say what; the conversation offers the new list from the next turn. */
  private mcpToolsChanged(change: McpToolsChange): void {
    this.note(change.problems.length ? 'warning' : 'info', describeToolsChange(change));
  }

  exit(code: number): void {
    if (this.exiting) return;
    this.exiting = true;
    for (const stop of this.stopListening.splice(0)) stop();
    this.contentNames.close();
    const turn = this.turn;
    if (turn) turn.controller.abort(new Error('exiting'));
    this.questions.close();
    this.context.mcpQuestions?.bind(undefined);
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.options.exitGraceMs ?? 3000).unref());
    void Promise.race([turn?.done ?? Promise.resolve(), grace]).then(() => {
      this.context.conversation.note({ type: 'exit', code });
      this.dispatch({ type: 'exit', code });
      this.resolveExit(code);
    });
  }

  // --- status ---

  private drainNotices(): void {
    for (const notice of this.context.conversation.notices.splice(0)) this.note('warning', notice);
  }

  private refreshCounts(): void {
    this.dispatch({ type: 'status', status: sessionCounts(this.context.conversation.session) });
    this.watchJobs();
    void this.countDefinitions();
  }

  private watchedSession: ToolSession | undefined;
  private stopWatchingJobs: (() => void) | undefined;

  /** The session's running stateful jobs on the status line, each yield as it comes (between turns too). */
  private watchJobs(): void {
    const { session } = this.context.conversation;
    if (session === this.watchedSession || this.exiting) return;
    this.stopWatchingJobs?.();
    this.watchedSession = session;
    const running = new Map<string, JobUpdate>();
    const show = () => this.dispatch({ type: 'status', status: { jobs: [...running.values()].map((u) => ({ id: u.job_id, tool: u.tool, yields: u.yields, unread: u.unread, ...(u.latest !== undefined ? { latest: u.latest } : {}) })) } });
    this.stopWatchingJobs = session.onJobUpdate((update) => {
      if (update.status === 'running') running.set(update.job_id, { ...running.get(update.job_id), ...update });
      else running.delete(update.job_id);
      show();
    });
    show();
  }

  /** The definitions offered now and the next request in all, counted by toolman (the tokenizer loads on first use, after the prompt shows). */
  private async countDefinitions(): Promise<void> {
    const version = ++this.countVersion;
    try {
      const { countDefinitions } = await import('../manager/token-counts.js');
      const { conversation } = this.context;
      const cost = await countDefinitions(conversation.session.format(conversation.provider, 1, conversation.format), conversation.model);
      if (version === this.countVersion) this.dispatch({ type: 'status', status: { definitions: cost.total } });
      // What the next request costs in all (the status line points to /context for its parts).
      const context = await conversation.contextCost();
      if (version === this.countVersion) this.dispatch({ type: 'status', status: { context: context.total } });
    } catch {
      // the status line goes without it
    }
  }

  /** In a replay, the next recorded message waits in the input line. */
  private prefillNext(): void {
    const next = this.initialPrompts[0];
    // A recording's prompt is untrusted: it waits in the line without control sequences.
    if (next !== undefined && this.current.input.text === '') this.dispatch({ type: 'input', input: lineOf(displayText(next)) });
  }
}

/** Where the cursor goes in a recalled entry of several lines: the end of its first line, so Up keeps going back. */
function firstLineEnd(text: string): number {
  const at = Array.from(text).indexOf('\n');
  return at < 0 ? Array.from(text).length : at;
}
