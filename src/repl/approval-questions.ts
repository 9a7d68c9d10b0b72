import type { ApprovalDecision, Approver } from '../execute/types.js';
import type { KeyAction } from './line-editor.js';
import type { ReplAction, ReplState } from './repl-state.js';

/** The keys that answer an approval question. */
const ANSWER_KEYS = new Map<string, ApprovalDecision>([
  ['y', 'approve'],
  ['n', 'decline'],
  ['a', 'always'],
]);

/** What the questions need of the REPL: its state and store, and where answers are noted. */
export interface QuestionHost {
  state(): ReplState;
  dispatch(action: ReplAction): void;
  /** The answer, for the transcript. */
  noteAnswer(entry: { call_id: string | undefined; tool: string; decision: ApprovalDecision }): void;
  exiting(): boolean;
}

/**
 * The REPL's approval questions: the Approver the conversation asks, the question on screen,
 * and the keys that answer it. One key press of y, n, a or Esc answers, and only once the
 * question is ready: after it appeared or after the last key, it waits `guardMs` without a key.
 * A key typed ahead (the "y" of "my") or a paste goes to the input line and answers nothing.
 */
export class ApprovalQuestions {
  private pending: { resolve: (decision: ApprovalDecision) => void } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: QuestionHost,
    private readonly guardMs = 400,
  ) {}

  /** Asks the user; a cancelled turn stops asking (the executor declines then), and the panel says why. */
  readonly approver: Approver = (request, signal) =>
    new Promise<ApprovalDecision>((resolve) => {
      const { host } = this;
      if (signal.aborted || host.exiting()) {
        host.dispatch({ type: 'declined', callId: request.callId, words: 'not run: the turn was ending' });
        return resolve('decline');
      }
      const settle = (decision: ApprovalDecision) => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(this.timer);
        if (this.pending?.resolve === settle) this.pending = undefined;
        if (host.state().approval?.callId === request.callId) host.dispatch({ type: 'approval', approval: null });
        resolve(decision);
      };
      const onAbort = () => {
        host.dispatch({ type: 'declined', callId: request.callId, words: host.exiting() ? 'not run: you left before answering' : 'not run: the turn was cancelled before you answered' });
        settle('decline');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending = { resolve: settle };
      host.dispatch({ type: 'approval', approval: { callId: request.callId, tool: request.tool.name, arguments: request.arguments, reason: request.reason, ready: false } });
      this.hold();
    });

  /** A key while a question shows; returns whether it answered (else it goes to the input line, and the question waits again). */
  key(action: KeyAction): boolean {
    const decision = action.type === 'escape' ? 'decline' : action.type === 'insert' ? ANSWER_KEYS.get(action.text.toLowerCase()) : undefined;
    if (decision && this.host.state().approval?.ready) {
      this.answer(decision, action.type === 'escape' ? 'Esc' : 'n');
      return true;
    }
    this.hold();
    return false;
  }

  /** Leaving: a question still open is declined. */
  close(): void {
    clearTimeout(this.timer);
    this.pending?.resolve('decline');
  }

  /** The question takes no answer until no key came for a moment; then its keys show. */
  private hold(): void {
    clearTimeout(this.timer);
    const { host } = this;
    const approval = host.state().approval;
    if (!approval) return;
    if (approval.ready) host.dispatch({ type: 'approval', approval: { ...approval, ready: false } });
    this.timer = setTimeout(() => {
      const current = host.state().approval;
      if (current?.callId === approval.callId) host.dispatch({ type: 'approval', approval: { ...current, ready: true } });
    }, this.guardMs);
  }

  private answer(decision: ApprovalDecision, key: string): void {
    const pending = this.pending;
    if (!pending) return;
    const approval = this.host.state().approval;
    // The panel says what the user did; the model is told in its own terms by the executor.
    if (decision === 'decline' && approval) this.host.dispatch({ type: 'declined', callId: approval.callId, words: `you declined it (${key})` });
    this.host.noteAnswer({ call_id: approval?.callId, tool: approval?.tool ?? 'the tool', decision });
    pending.resolve(decision);
  }
}
