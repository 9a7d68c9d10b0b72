import type { ApprovalDecision, Approver } from '../execute/types.js';
import type { LoopEvent, TurnSummary } from '../loop/loop-events.js';
import type { ToolSession } from '../session/tool-session.js';
import { isToolmanError } from '../shared/errors.js';
import { RedactingStream, type SecretSet } from '../shared/secrets.js';
import { describeToolsChange, type McpToolsChange } from '../mcp/tools-change.js';
import { edit, InputHistory, lineOf, EMPTY_LINE, type KeyAction } from './line-editor.js';
import type { ReplContext } from './repl-context.js';
import { initialState, reduce, type NoteLevel, type OutputLine, type ReplAction, type ReplState } from './repl-state.js';
import { parseInput, runCommand, sessionCounts, type CommandHost, type SwitchResult } from './slash-commands.js';
import { displayText } from './terminal-text.js';

/** The keys that answer an approval question. */
const ANSWER_KEYS = new Map<string, ApprovalDecision>([
  ['y', 'approve'],
  ['n', 'decline'],
  ['a', 'always'],
]);

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
 * ChatLoop (one AbortController each), answers approvals from the keyboard, runs the slash
 * commands, writes the transcript, and decides when to exit and with which code. The ink app
 * subscribes to its state and forwards keys; tests do the same without ink.
 */
export class ReplController implements CommandHost {
  private current: ReplState;
  private readonly listeners = new Set<() => void>();
  private readonly inputHistory = new InputHistory();
  private readonly said: RedactingStream;
  private readonly turnSummaries: TurnSummary[] = [];
  private turn: { controller: AbortController; done: Promise<void> } | undefined;
  private pendingApproval: { resolve: (decision: ApprovalDecision) => void } | undefined;
  private approvalTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly initialPrompts: string[];
  /**
   * `/force` names for the next turn only; the session in use forces them. Without them a session
   * forces what --force and the profile's `forced:` say, in every turn (as the one-shot mode does).
   */
  private pendingForce: string[] | undefined;
  /** Session swaps, one after the other: a turn's end, /profile, /force and tool reloads never interleave. */
  private swaps: Promise<void> = Promise.resolve();
  private resolveExit!: (code: number) => void;
  private exiting = false;
  private countVersion = 0;
  /** An MCP server's tools changed: the session is rebuilt when no turn is running. */
  private toolsChanged = false;
  private stopWatching: (() => void) | undefined;
  readonly exited: Promise<number>;
  readonly cwd: string;
  pendingOverwrite: string | undefined;
  /** The clock panel durations are measured on. */
  readonly now: () => number;

  constructor(
    readonly context: ReplContext,
    private readonly options: ControllerOptions = {},
  ) {
    this.said = new RedactingStream(context.manager.secrets);
    this.cwd = options.cwd ?? process.cwd();
    this.now = options.now ?? (() => performance.now());
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    const session = context.loop.session;
    this.current = initialState({
      provider: context.provider,
      model: context.model,
      ...sessionCounts(session),
      budget: context.manager.catalog.budget.definitions ?? null,
      search: context.search,
      yes: context.yes,
    });
    this.initialPrompts = [...context.initialPrompts];
    if (!context.yes) context.loop.useApprover(this.approver);
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

  get history(): readonly string[] {
    return this.inputHistory.all;
  }

  get summaries(): readonly TurnSummary[] {
    return this.turnSummaries;
  }

  /** Shows what setup said, offers the first recorded prompt of a replay, counts the definitions. */
  start(): void {
    const { context } = this;
    this.output([{ text: `catalog ${context.manager.catalog.name} | ${context.provider} ${context.model} | /help lists commands | Ctrl-C cancels a turn | /exit leaves`, style: 'dim' }], 'toolman chat');
    this.drainNotices();
    this.stopWatching = context.manager.watchMcpServers((change) => this.mcpToolsChanged(change));
    if (this.initialPrompts.length) this.note('info', `replaying a recording: press Enter to send what the recorded user said (${this.initialPrompts.length} message${this.initialPrompts.length === 1 ? '' : 's'})`);
    this.prefillNext();
    if (context.yes) this.note('dim', '--yes: tools that ask for approval run without asking');
    void this.countDefinitions();
  }

  // --- keys ---

  key(action: KeyAction): void {
    if (this.exiting) return;
    if (action.type === 'ctrl_c') return this.ctrlC();
    if (this.current.exitArmed) this.dispatch({ type: 'arm_exit', armed: false });
    if (this.current.approval && this.approvalKey(action)) return;
    switch (action.type) {
      case 'enter':
        return this.submit(this.current.input.text);
      case 'up': {
        const line = this.inputHistory.up(this.current.input.text);
        if (line !== undefined) this.dispatch({ type: 'input', input: lineOf(line) });
        return;
      }
      case 'down': {
        const line = this.inputHistory.down();
        if (line !== undefined) this.dispatch({ type: 'input', input: lineOf(line) });
        return;
      }
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

  /**
   * A key while an approval question shows. Only one key press of y, n, a or Esc, once the
   * question is ready, answers: a key typed ahead (the "y" of "my") or a run of text (a paste)
   * goes to the input line as usual, and the question waits for a quiet moment again.
   * Returns whether the key answered.
   */
  private approvalKey(action: KeyAction): boolean {
    const decision = action.type === 'escape' ? 'decline' : action.type === 'insert' ? ANSWER_KEYS.get(action.text.toLowerCase()) : undefined;
    if (decision && this.current.approval?.ready) {
      this.answer(decision);
      return true;
    }
    this.holdApproval();
    return false;
  }

  /** The question takes no answer until no key came for a moment; then its keys show. */
  private holdApproval(): void {
    clearTimeout(this.approvalTimer);
    const approval = this.current.approval;
    if (!approval) return;
    if (approval.ready) this.dispatch({ type: 'approval', approval: { ...approval, ready: false } });
    this.approvalTimer = setTimeout(() => {
      const current = this.current.approval;
      if (current?.callId === approval.callId) this.dispatch({ type: 'approval', approval: { ...current, ready: true } });
    }, this.options.approvalGuardMs ?? 400);
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
        this.context.transcript?.note({ type: 'command', text: line.trim(), known: false });
        this.note('error', `unknown command /${parsed.name}${parsed.suggestion ? `; did you mean /${parsed.suggestion}?` : ''}`, '/help lists the commands');
        return;
      case 'command':
        this.context.transcript?.note({ type: 'command', text: line.trim(), name: parsed.name, args: parsed.args });
        this.dispatch({ type: 'user', text: line.trim() });
        void runCommand(parsed, this);
        return;
    }
  }

  /** One user turn on the loop. */
  send(text: string): Promise<void> {
    const controller = new AbortController();
    const turn = { controller, done: Promise.resolve() };
    this.turn = turn;
    let forcedOnce = false;
    const run = async () => {
      this.context.recordPrompt(text);
      this.dispatch({ type: 'user', text });
      this.dispatch({ type: 'turn_begin' });
      // A /profile or /force typed just before still has its session to open.
      await this.swaps;
      forcedOnce = this.pendingForce !== undefined;
      this.pendingForce = undefined;
      const summary = await this.context.loop.run(text, { signal: controller.signal, onEvent: this.onEvent });
      this.turnSummaries.push(summary);
      // Queued before the turn counts as over: a command or message right after it comes after the swap.
      if (forcedOnce || this.toolsChanged) void this.swap(() => this.reopen());
      this.turn = undefined;
      this.dispatch({ type: 'turn_end', summary });
      this.refreshCounts();
      this.prefillNext();
    };
    const done = run().catch((error: unknown) => {
      // The loop never rejects; anything else (a transcript that cannot be written) is shown.
      if (forcedOnce) void this.swap(() => this.reopen());
      this.turn = undefined;
      this.dispatch({ type: 'turn_end', summary: { answer: '', stop: 'error', rounds: 0, calls: [], usage: { input: 0, output: 0, cached: 0, estimated_input: 0 } } });
      this.note('error', error instanceof Error ? error.message : String(error), isToolmanError(error) ? error.hint : undefined);
    });
    turn.done = done;
    return done;
  }

  private onEvent = (event: LoopEvent): void => {
    this.context.transcript?.write(event);
    // What the model says may hold a secret, also cut between two deltas: redacted before it is drawn.
    if (event.type === 'text') {
      const delta = this.said.push(event.delta);
      if (delta) this.dispatch({ type: 'event', event: { ...event, delta }, now: this.now() });
      return;
    }
    const rest = this.said.end();
    if (rest && 'round' in event && typeof event.round === 'number') this.dispatch({ type: 'event', event: { type: 'text', round: event.round, delta: rest }, now: this.now() });
    else if (rest && event.type === 'done') this.dispatch({ type: 'event', event: { type: 'text', round: event.rounds, delta: rest }, now: this.now() });
    this.dispatch({ type: 'event', event: redactEvent(event, this.context.manager.secrets), now: this.now() });
    this.drainNotices();
    if (event.type === 'search') this.refreshCounts();
  };

  // --- approvals ---

  /** Asks the user; a cancelled turn stops asking (the executor declines then). */
  private approver: Approver = (request, signal) =>
    new Promise<ApprovalDecision>((resolve) => {
      if (signal.aborted || this.exiting) return resolve('decline');
      const clear = () => {
        clearTimeout(this.approvalTimer);
        if (this.pendingApproval?.resolve === settle) this.pendingApproval = undefined;
        if (this.current.approval?.callId === request.callId) this.dispatch({ type: 'approval', approval: null });
      };
      const settle = (decision: ApprovalDecision) => {
        signal.removeEventListener('abort', onAbort);
        clear();
        resolve(decision);
      };
      const onAbort = () => settle('decline');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pendingApproval = { resolve: settle };
      this.dispatch({ type: 'approval', approval: { callId: request.callId, tool: request.tool.name, arguments: request.arguments, reason: request.reason, ready: false } });
      this.holdApproval();
    });

  private answer(decision: ApprovalDecision): void {
    const pending = this.pendingApproval;
    if (!pending) return;
    const tool = this.current.approval?.tool ?? 'the tool';
    this.context.transcript?.note({ type: 'approval', call_id: this.current.approval?.callId, tool, decision });
    pending.resolve(decision);
  }

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
    this.context.loop.reset();
    // A /save after this saves the new conversation's turns only.
    this.turnSummaries.length = 0;
    this.context.transcript?.note({ type: 'reset' });
  }

  /**
   * `/profile NAME` (force undefined) or `/force NAMES` (the current profile): a new session. A
   * pending `/force` goes along to the new profile when it can be forced there; if not, it is
   * dropped, and the result says so.
   */
  switchSession(profile: string | undefined, force?: string[]): Promise<SwitchResult> {
    return this.swap(async () => {
      const previous = this.context.loop.session;
      const name = profile ?? previous.selection.profile.name;
      const wanted = force ?? this.pendingForce;
      let session: ToolSession;
      let dropped: string[] = [];
      try {
        session = await this.context.openSession(name, wanted);
      } catch (error) {
        if (force || !wanted) throw error;
        session = await this.context.openSession(name);
        dropped = wanted;
      }
      this.pendingForce = dropped.length ? undefined : wanted;
      this.use(session, previous);
      return { dropped };
    });
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
    const previous = this.context.loop.session;
    try {
      this.use(await this.context.openSession(previous.selection.profile.name, this.pendingForce), previous);
    } catch (error) {
      this.note('warning', `could not open the tool session again: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A server said its tools changed (list_changed): say what, and offer the new list from the next turn. */
  private mcpToolsChanged(change: McpToolsChange): void {
    this.note(change.problems.length ? 'warning' : 'info', describeToolsChange(change));
    this.toolsChanged = true;
    if (!this.turn) void this.swap(() => this.reopen());
  }

  private use(session: ToolSession, previous: ToolSession): void {
    // Tools found by search stay found when the new session can offer them.
    session.activate(previous.activated);
    this.context.loop.useSession(session);
    if (session !== previous) previous.close();
    this.context.transcript?.note({ type: 'session', profile: session.selection.profile.name, forced: session.selection.forced.map((t) => t.name) });
    this.refreshCounts();
  }

  exit(code: number): void {
    if (this.exiting) return;
    this.exiting = true;
    this.stopWatching?.();
    const turn = this.turn;
    if (turn) turn.controller.abort(new Error('exiting'));
    clearTimeout(this.approvalTimer);
    this.pendingApproval?.resolve('decline');
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.options.exitGraceMs ?? 3000).unref());
    void Promise.race([turn?.done ?? Promise.resolve(), grace]).then(() => {
      this.context.transcript?.note({ type: 'exit', code });
      this.dispatch({ type: 'exit', code });
      this.resolveExit(code);
    });
  }

  // --- status ---

  private drainNotices(): void {
    for (const notice of this.context.notices.splice(0)) this.note('warning', notice);
  }

  private refreshCounts(): void {
    this.dispatch({ type: 'status', status: sessionCounts(this.context.loop.session) });
    void this.countDefinitions();
  }

  /** The definitions offered now, counted by toolman (the tokenizer loads on first use, after the prompt shows). */
  private async countDefinitions(): Promise<void> {
    const version = ++this.countVersion;
    try {
      const { countDefinitions } = await import('../tokens/count-payload.js');
      const { context } = this;
      const cost = await countDefinitions(context.loop.session.format(context.provider, 1, context.format), context.model);
      if (version === this.countVersion) this.dispatch({ type: 'status', status: { definitions: cost.total } });
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

/** An event with every secret the catalog names taken out of its strings (arguments, results, messages). */
function redactEvent(event: LoopEvent, secrets: SecretSet): LoopEvent {
  if (secrets.size === 0) return event;
  try {
    return JSON.parse(secrets.redact(JSON.stringify(event))) as LoopEvent;
  } catch {
    // A secret so short that its removal broke the JSON: show that something was hidden, not the event.
    return { type: 'warning', message: 'an event was not shown: it held a secret' };
  }
}
