import type { ErrorKind, EvaluationVerdict } from '../execute/types.js';
import type { LoopEvent, TurnReference, TurnSummary } from '../loop/loop-events.js';
import type { ChatMessage } from '../providers/model-client.js';
import type { ToolChoice } from '../select/tool-choice.js';
import { EMPTY_LINE, type EditorState } from './line-editor.js';
import { resumedItems } from './resumed-items.js';
import { count, oneLine } from './terminal-text.js';

/**
 * The REPL's view model and the one reducer that turns loop events, commands and keys into it.
 * Plain data: the ink components only draw it, and the tests drive it without a terminal.
 *
 * The conversation is a list of items. Items settle (a streamed reply when its round ends, a
 * tool panel when its result arrives); the settled prefix is `committed` and is printed once
 * into the terminal's scrollback (ink's <Static>), the rest is redrawn live. A committed panel
 * cannot change any more, so expanding it appends an expanded copy.
 */

export type PanelStatus = 'requested' | 'queued' | 'validating' | 'awaiting_approval' | 'running' | 'done' | 'error' | 'cancelled';

/** Error kinds where the executor refused the call before running it. */
export const REFUSED_KINDS: readonly ErrorKind[] = ['not_available', 'unknown_tool', 'invalid_arguments', 'over_limit', 'must_run_alone'];

export interface PanelResult {
  ok: boolean;
  content: string;
  error: string | null;
  errorKind: ErrorKind | null;
  truncated: boolean;
  /** A model summarised it (`truncation: summarize`). */
  summarized: boolean;
  deduplicated: boolean;
  originalTokens: number | null;
  durationMs: number;
  /** How many numbered sources it gave. */
  sources: number;
}

/** One tool call as the REPL shows it. */
export interface Panel {
  /** Numbered across the session: `/expand N`. */
  n: number;
  id: string;
  round: number;
  name: string;
  arguments: unknown;
  status: PanelStatus;
  /** When it started running (the clock the controller passes), for the live duration. */
  startedAt: number | null;
  durationMs: number | null;
  approval: 'asked' | 'approved' | 'declined' | 'always' | null;
  approvalReason: string | null;
  progress: string | null;
  result: PanelResult | null;
  expanded: boolean;
  /**
   * For a call the user declined: what they did, in their terms ("you answered n"). The result
   * holds the sentence meant for the model ("the user declined to run ...; do not call it
   * again"), which is not for the user.
   */
  declinedBy?: string;
}

/** A call the model just asked for: nothing run, asked or shown yet. */
export function requestedPanel(call: Pick<Panel, 'n' | 'id' | 'round' | 'name' | 'arguments'>): Panel {
  return { ...call, status: 'requested', startedAt: null, durationMs: null, approval: null, approvalReason: null, progress: null, result: null, expanded: false };
}

export type NoteLevel = 'info' | 'dim' | 'success' | 'warning' | 'error';

export interface OutputLine {
  text: string;
  style?: 'dim' | 'bold' | 'warning' | 'success' | 'accent';
  /**
   * A left column (a command, a key): drawn `labelWidth` wide, the text beside it wrapping under
   * itself, never under the label, however narrow the terminal.
   */
  label?: string;
  labelWidth?: number;
  /** Coloured parts drawn instead of `text` (a bar); `text` is what a terminal without colour shows. */
  segments?: { text: string; color?: 'red' | 'green' | 'yellow' | 'cyan' | 'blue' | 'magenta' | 'gray' }[];
}

export type Item =
  | { kind: 'user'; key: number; settled: boolean; text: string }
  | { kind: 'assistant'; key: number; settled: boolean; round: number; text: string; via?: string }
  | { kind: 'panel'; key: number; settled: boolean; panel: Panel }
  | { kind: 'expanded'; key: number; settled: boolean; panel: Panel }
  | { kind: 'note'; key: number; settled: boolean; level: NoteLevel; text: string; hint?: string }
  | { kind: 'output'; key: number; settled: boolean; title?: string; lines: OutputLine[] }
  | { kind: 'round'; key: number; settled: boolean; round: number; tools: number; choice: string | null };

/** A pending approval question. */
export interface ApprovalView {
  callId: string;
  tool: string;
  arguments: unknown;
  reason: string;
  /** Whether a key answers it now: only after a quiet moment since it appeared (or since the last key). */
  ready: boolean;
}

export interface UsageTotals {
  input: number;
  output: number;
  cached: number;
  /** toolman's estimate of the same requests' input. */
  estimated: number;
  requests: number;
  /** Model calls beside the conversation's (summaries, rubric grades), from each turn's summary: not in the counts above. */
  side: { calls: number; input: number; output: number };
}

export interface StatusView {
  provider: string;
  model: string;
  profile: string;
  active: number;
  deferred: number;
  found: number;
  /** Tools forced in the next turn's first round. */
  forced: string[];
  usage: UsageTotals;
  /** Tokens the tool definitions offered now cost (toolman's count), once counted. */
  definitions: number | null;
  /** The catalog's `budget.definitions`. */
  budget: number | null;
  /** What the next request costs before the user's message (toolman's count; /context has its parts). */
  context: number | null;
  search: 'client' | 'native';
  yes: boolean;
  /** Stateful tools' jobs still running: what each yielded so far, the latest (redacted) last. */
  jobs?: { id: string; tool: string; yields: number; unread: number; latest?: string }[];
}

export interface ReplState {
  items: Item[];
  /** Items [0, committed) are printed for good. */
  committed: number;
  nextKey: number;
  panelCount: number;
  /** `round:callId` → index in items, for the running turn. */
  panelIndex: Record<string, number>;
  running: boolean;
  cancelling: boolean;
  turn: number;
  approval: ApprovalView | null;
  input: EditorState;
  /** A one-line message above the input (Ctrl-C hint, command refusals). */
  hint: string | null;
  /** What Tab can complete the word to, shown above the input until another key. */
  choices: string[] | null;
  exitArmed: boolean;
  exitCode: number | null;
  status: StatusView;
  /** The turn's evaluation verdicts, drawn after its answer (a take-control answer comes with `done`, after them). */
  verdicts: EvaluationVerdict[];
}

export type ReplAction =
  | { type: 'event'; event: LoopEvent; now: number }
  | { type: 'user'; text: string }
  | { type: 'note'; level: NoteLevel; text: string; hint?: string }
  | { type: 'output'; title?: string; lines: OutputLine[] }
  | { type: 'turn_begin' }
  | { type: 'turn_end'; summary: TurnSummary }
  | { type: 'approval'; approval: ApprovalView | null }
  | { type: 'declined'; callId: string; words: string }
  /** A resumed conversation, drawn as it went (resumed-items.ts). */
  | { type: 'history'; messages: readonly ChatMessage[] }
  | { type: 'input'; input: EditorState }
  | { type: 'status'; status: Partial<StatusView> }
  | { type: 'expand'; n?: number }
  | { type: 'hint'; text: string | null }
  | { type: 'choices'; choices: string[] | null }
  | { type: 'arm_exit'; armed: boolean }
  | { type: 'cancelling' }
  | { type: 'exit'; code: number };

export function initialState(status: Omit<StatusView, 'usage' | 'definitions' | 'context'> & Partial<Pick<StatusView, 'usage' | 'definitions' | 'context'>>): ReplState {
  return {
    items: [],
    committed: 0,
    nextKey: 1,
    panelCount: 0,
    panelIndex: {},
    running: false,
    cancelling: false,
    turn: 0,
    approval: null,
    input: EMPTY_LINE,
    hint: null,
    choices: null,
    exitArmed: false,
    exitCode: null,
    verdicts: [],
    status: { usage: { input: 0, output: 0, cached: 0, estimated: 0, requests: 0, side: { calls: 0, input: 0, output: 0 } }, definitions: null, context: null, ...status },
  };
}

type NewItem = Item extends infer I ? (I extends Item ? Omit<I, 'key'> : never) : never;

/** A copy of `state` with one more item. */
function add(state: ReplState, item: NewItem): ReplState {
  return { ...state, items: [...state.items, { ...item, key: state.nextKey } as Item], nextKey: state.nextKey + 1 };
}

function replace(state: ReplState, index: number, item: Item): ReplState {
  const items = state.items.slice();
  items[index] = item;
  return { ...state, items };
}

/** Moves `committed` over the settled prefix. */
function commit(state: ReplState): ReplState {
  let committed = state.committed;
  while (committed < state.items.length && state.items[committed]!.settled) committed++;
  return committed === state.committed ? state : { ...state, committed };
}

function settleAll(state: ReplState, from = state.committed): ReplState {
  if (state.items.slice(from).every((i) => i.settled)) return state;
  return { ...state, items: state.items.map((item, i) => (i >= from && !item.settled ? { ...item, settled: true } : item)) };
}

/** Index of the streamed reply of `round` still open in this turn, if any. */
function openReply(state: ReplState, round: number): number {
  for (let i = state.items.length - 1; i >= state.committed; i--) {
    const item = state.items[i]!;
    if (item.kind === 'assistant' && !item.settled && item.round === round) return i;
    if (item.kind === 'panel' || item.kind === 'user') break;
  }
  return -1;
}

function settleReplies(state: ReplState): ReplState {
  let next = state;
  for (let i = state.committed; i < state.items.length; i++) {
    const item = state.items[i]!;
    if (item.kind === 'assistant' && !item.settled) next = replace(next, i, { ...item, settled: true });
  }
  return next;
}

function withPanel(state: ReplState, round: number, id: string, update: (panel: Panel) => Panel, settle = false): ReplState {
  const index = state.panelIndex[`${round}:${id}`];
  if (index === undefined) return state;
  const item = state.items[index];
  if (!item || item.kind !== 'panel') return state;
  return replace(state, index, { ...item, panel: update(item.panel), settled: settle || item.settled });
}

/**
 * How long a call ran. The executor's clock starts before the approval question, so for a call
 * that asked, the wait for the user would count: then the run is measured from `running`, and a
 * call that never ran (declined) has no duration.
 */
function ranFor(panel: Panel, executorMs: number, now: number): number | null {
  if (panel.approval === null) return executorMs;
  return panel.startedAt === null ? null : Math.max(0, Math.round((now - panel.startedAt) * 100) / 100);
}

/** A round's tool choice in words (toolman's own ToolChoice: no provider's shape reaches the REPL); null for auto. */
export function describeChoice(choice: ToolChoice): string | null {
  switch (choice.type) {
    case 'auto':
      return null;
    case 'tool':
      return `${choice.name} is required`;
    case 'required':
      return `one of ${choice.names.join(', ')} is required`;
  }
}

function onEvent(state: ReplState, event: LoopEvent, now: number): ReplState {
  switch (event.type) {
    case 'turn_start':
    case 'round_start':
      return state;
    case 'request': {
      const choice = describeChoice(event.tool_choice);
      if (event.round === 1 && !choice) return state;
      return add(state, { kind: 'round', settled: true, round: event.round, tools: event.tools.length, choice });
    }
    case 'text': {
      const index = openReply(state, event.round);
      if (index < 0) return add(state, { kind: 'assistant', settled: false, round: event.round, text: event.delta });
      const item = state.items[index] as Extract<Item, { kind: 'assistant' }>;
      return replace(state, index, { ...item, text: item.text + event.delta });
    }
    case 'tool_calls': {
      let next = settleReplies(state);
      const panelIndex = { ...next.panelIndex };
      for (const call of event.calls) {
        const panel = requestedPanel({ n: next.panelCount + 1, id: call.id, round: event.round, name: call.tool, arguments: call.arguments });
        panelIndex[`${event.round}:${call.id}`] = next.items.length;
        next = add({ ...next, panelCount: panel.n }, { kind: 'panel', settled: false, panel });
      }
      return { ...next, panelIndex };
    }
    case 'tool_status':
      return withPanel(state, event.round, event.id, (panel) => {
        const base = { ...panel, name: event.name, status: event.status as PanelStatus };
        switch (event.status) {
          case 'running':
            return { ...base, startedAt: now };
          case 'awaiting_approval':
            return { ...base, approval: 'asked', approvalReason: event.reason, arguments: event.arguments ?? panel.arguments };
          case 'done':
          case 'cancelled':
          case 'error':
            return { ...base, durationMs: ranFor(panel, event.duration_ms, now) };
          default:
            return base;
        }
      });
    case 'tool_approval':
      return withPanel(state, event.round, event.id, (panel) => ({ ...panel, approval: event.decision === 'decline' ? 'declined' : event.decision === 'always' ? 'always' : 'approved' }));
    case 'tool_progress':
      return withPanel(state, event.round, event.id, (panel) => ({ ...panel, progress: event.message }));
    case 'tool_result': {
      const r = event.response;
      const result: PanelResult = { ok: r.ok, content: r.content, error: r.error, errorKind: r.error_kind, truncated: r.truncated, summarized: r.summarized === true, deduplicated: r.deduplicated, originalTokens: r.original_tokens, durationMs: r.duration_ms, sources: r.references?.length ?? 0 };
      const status: PanelStatus = r.ok ? 'done' : r.error_kind === 'cancelled' ? 'cancelled' : 'error';
      if (state.panelIndex[`${event.round}:${r.id}`] === undefined) {
        // A result without a request seen (should not happen): still shown.
        const panel: Panel = { n: state.panelCount + 1, id: r.id, round: event.round, name: r.tool, arguments: null, status, startedAt: null, durationMs: r.duration_ms, approval: null, approvalReason: null, progress: null, result, expanded: false };
        return commit(add({ ...state, panelCount: panel.n }, { kind: 'panel', settled: true, panel }));
      }
      return commit(withPanel(state, event.round, r.id, (panel) => ({ ...panel, status, result, durationMs: panel.durationMs ?? ranFor(panel, r.duration_ms, now), approval: r.error_kind === 'declined' ? 'declined' : panel.approval }), true));
    }
    case 'usage': {
      const u = state.status.usage;
      const usage: UsageTotals = {
        input: u.input + (event.usage?.input ?? 0),
        output: u.output + (event.usage?.output ?? 0),
        cached: u.cached + (event.usage?.cached ?? 0),
        estimated: u.estimated + (event.estimated_input ?? 0),
        requests: u.requests + 1,
        side: u.side,
      };
      return { ...state, status: { ...state.status, usage } };
    }
    case 'search':
      return add(state, { kind: 'note', settled: true, level: 'info', text: `tool search found: ${event.activated.join(', ')}` });
    case 'retry':
      return add(state, { kind: 'note', settled: true, level: 'warning', text: `retrying in ${(event.wait_ms / 1000).toFixed(1)} s (attempt ${event.attempt}${event.status ? `, HTTP ${event.status}` : ''}): ${event.reason}` });
    case 'warning':
      return add(state, { kind: 'note', settled: true, level: 'warning', text: event.message });
    case 'round_end':
      return commit(settleReplies(state));
    case 'error':
      return add(settleReplies(state), { kind: 'note', settled: true, level: 'error', text: event.message, ...(event.hint ? { hint: event.hint } : {}) });
    case 'evaluations':
      return { ...state, verdicts: [...state.verdicts, ...event.verdicts] };
    case 'done': {
      let next = settleAll(state);
      if (event.stop === 'took_control' && event.answer) {
        const via = event.took_control;
        next = add(next, { kind: 'assistant', settled: true, round: event.rounds, text: event.answer, ...(via ? { via } : {}) });
      } else if (event.stop === 'cancelled') {
        next = add(next, { kind: 'note', settled: true, level: 'warning', text: 'turn cancelled; what was said so far is kept' });
      } else if (event.stop !== 'done' && event.stop !== 'error' && event.message) {
        next = add(next, { kind: 'note', settled: true, level: 'warning', text: `stopped (${event.stop}): ${event.message}` });
      }
      if (event.references?.length) next = add(next, { kind: 'output', settled: true, title: 'sources', lines: sourceLines(event.references) });
      for (const verdict of next.verdicts) next = add(next, { kind: 'note', settled: true, ...verdictNote(verdict) });
      return commit({ ...next, verdicts: [] });
    }
  }
}

export function reduce(state: ReplState, action: ReplAction): ReplState {
  switch (action.type) {
    case 'event':
      return commit(onEvent(state, action.event, action.now));
    case 'user':
      return commit(add(state, { kind: 'user', settled: true, text: action.text }));
    case 'note':
      return commit(add(state, { kind: 'note', settled: true, level: action.level, text: action.text, ...(action.hint ? { hint: action.hint } : {}) }));
    case 'output':
      return commit(add(state, { kind: 'output', settled: true, lines: action.lines, ...(action.title ? { title: action.title } : {}) }));
    case 'turn_begin':
      return { ...state, running: true, cancelling: false, turn: state.turn + 1, panelIndex: {}, hint: null, verdicts: [] };
    case 'turn_end': {
      // The usage events count the conversation's own requests; the side calls come with the turn's summary.
      const u = state.status.usage;
      const side = (action.summary.usage.side ?? []).reduce((t, s) => ({ calls: t.calls + s.calls, input: t.input + s.input, output: t.output + s.output }), u.side);
      return commit(settleAll({ ...state, status: { ...state.status, usage: { ...u, side } }, running: false, cancelling: false, approval: null, panelIndex: {} }));
    }
    case 'approval':
      return { ...state, approval: action.approval };
    case 'history': {
      const { items, panels } = resumedItems(action.messages, state.panelCount + 1);
      return commit(items.reduce(add, { ...state, panelCount: panels }));
    }
    case 'declined': {
      const key = Object.keys(state.panelIndex).find((k) => k.endsWith(`:${action.callId}`));
      if (!key) return state;
      const [round] = key.split(':');
      return withPanel(state, Number(round), action.callId, (panel) => ({ ...panel, declinedBy: action.words }));
    }
    case 'input':
      return { ...state, input: action.input };
    case 'status':
      return { ...state, status: { ...state.status, ...action.status } };
    case 'expand':
      return expand(state, action.n);
    case 'hint':
      return { ...state, hint: action.text };
    case 'choices':
      return { ...state, choices: action.choices };
    case 'arm_exit':
      return { ...state, exitArmed: action.armed, hint: action.armed ? 'press Ctrl-C again to exit' : state.hint === 'press Ctrl-C again to exit' ? null : state.hint };
    case 'cancelling':
      return { ...state, cancelling: true };
    case 'exit':
      return commit(settleAll({ ...state, exitCode: action.code, approval: null }));
  }
}

/** The turn's numbered sources, one line each: what `[n]` in the answer points at. */
export function sourceLines(references: readonly TurnReference[]): OutputLine[] {
  return references.map((r) => ({ label: `[${r.n}]`, labelWidth: String(references.length).length + 3, text: r.title ? `${r.title} — ${r.url}` : r.url }));
}

/** One verdict as a note: passed (success), failed (error), could not be decided (warning). */
export function verdictNote(verdict: EvaluationVerdict): { level: NoteLevel; text: string } {
  const subject = `evaluation ${verdict.name}${verdict.on === 'result' ? ` on ${verdict.tools.join(', ')}'s result` : ''}`;
  const reason = verdict.reason ? `: ${verdict.reason}` : '';
  if (verdict.verdict === 'pass') return { level: 'success', text: `${subject} passed` };
  if (verdict.verdict === 'fail') return { level: 'error', text: `${subject} failed${reason}` };
  return { level: 'warning', text: `${subject} could not be decided${reason}` };
}

/** Shows panel `n` (default: the last) in full: in place while live, else as a copy below. */
function expand(state: ReplState, n = state.panelCount): ReplState {
  const index = state.items.findIndex((item) => item.kind === 'panel' && item.panel.n === n);
  if (index < 0) return reduce(state, { type: 'note', level: 'error', text: state.panelCount === 0 ? 'no tool calls yet' : `no tool call #${n}; they are numbered 1 to ${state.panelCount}` });
  const item = state.items[index] as Extract<Item, { kind: 'panel' }>;
  if (index >= state.committed) return replace(state, index, { ...item, panel: { ...item.panel, expanded: !item.panel.expanded } });
  return commit(add(state, { kind: 'expanded', settled: true, panel: { ...item.panel, expanded: true } }));
}

/** The status line's parts: provider and model, profile, tool counts, tokens against the budget. */
export function statusParts(status: StatusView): string[] {
  const u = status.usage;
  const tokens = u.requests === 0 ? 'no tokens yet' : `tokens ${count(u.input)} in (toolman est. ${count(u.estimated)})${u.cached ? `, ${count(u.cached)} cached` : ''}, ${count(u.output)} out`;
  const side = u.side.calls === 0 ? null : `side calls ${count(u.side.calls)}: ${count(u.side.input)} in, ${count(u.side.output)} out`;
  const definitions = status.definitions === null ? null : `definitions ${count(status.definitions)}${status.budget !== null ? `/${count(status.budget)}${status.definitions > status.budget ? ' over budget' : ''}` : ''}`;
  // The model name can come from a recording's header, tool names from an imported catalog: untrusted.
  return [
    `${oneLine(status.provider)} ${oneLine(status.model)}`,
    `profile ${oneLine(status.profile)}`,
    `${status.active} active, ${status.deferred} deferred, ${status.found} found${status.search === 'native' ? ' (native search)' : ''}`,
    ...(status.forced.length ? [`next turn forces ${status.forced.map(oneLine).join(', ')}`] : []),
    tokens,
    ...(side ? [side] : []),
    ...(definitions ? [definitions] : []),
    ...(status.context !== null ? [`next request ${count(status.context)} (/context)`] : []),
    ...(status.yes ? ['--yes'] : []),
    // A tool's yields are its output: untrusted, so one cleaned line, cut short.
    ...(status.jobs ?? []).map((job) => `${job.id} ${oneLine(job.tool)} running: ${job.yields} yield${job.yields === 1 ? '' : 's'}${job.unread ? ` (${job.unread} unread)` : ''}${job.latest ? `, latest ${oneLine(job.latest).slice(0, 60)}` : ''}`),
  ];
}
