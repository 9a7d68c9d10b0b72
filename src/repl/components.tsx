import { Box, Text } from 'ink';
import { createContext, useContext, type ReactNode } from 'react';
import { type EditorState } from './line-editor.js';
import { wrapPlain } from './markdown-lines.js';
import { MarkdownText, useWidth, WidthProvider } from './markdown-view.js';
import { panelElapsed, panelMarkers, panelOutcome } from './panel-view.js';
import { statusParts, type ApprovalView, type Item, type OutputLine, type Panel, type StatusView } from './repl-state.js';
import { compactJson, displayText, duration, oneLine, prettyResult } from './terminal-text.js';

/**
 * The REPL's components: they draw the view model and nothing else. Every string that came from
 * outside toolman (model text, tool results and arguments, descriptions) goes through
 * `displayText` or `oneLine` before it is drawn. Without colour (NO_COLOR), no style is set at
 * all, so the output holds no escape sequence.
 */

const ColorContext = createContext(true);
export const ColorProvider = ColorContext.Provider;

type Color = 'red' | 'green' | 'yellow' | 'cyan' | 'blue' | 'magenta' | 'gray';

/** Text with style only when colour is on. */
export function T(props: { color?: Color; bold?: boolean; dim?: boolean; inverse?: boolean; wrap?: 'wrap' | 'truncate-end'; children?: ReactNode }) {
  const color = useContext(ColorContext);
  const wrap = props.wrap ?? 'wrap';
  if (!color) return <Text wrap={wrap}>{props.children}</Text>;
  return (
    <Text wrap={wrap} {...(props.color ? { color: props.color } : {})} bold={props.bold ?? false} dimColor={props.dim ?? false} inverse={props.inverse ?? false}>
      {props.children}
    </Text>
  );
}

/**
 * A whole text (not a part of another), wrapped here to the width this part of the screen has
 * (markdown-lines.ts wrapPlain: why not Ink's own wrap). Where that width is more than the real
 * one, Ink still wraps what is left: nothing is cut.
 */
function W(props: { color?: Color; bold?: boolean; dim?: boolean; children: string }) {
  const width = useWidth();
  const { children, ...style } = props;
  return <T {...style}>{wrapPlain(children, width).join('\n')}</T>;
}

/** Children laid out `by` columns in from the enclosing width (a prompt, a label column). */
function Inset({ by, children }: { by: number; children: ReactNode }) {
  return <WidthProvider value={Math.max(1, useWidth() - by)}>{children}</WidthProvider>;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function spinnerFrame(frame: number): string {
  return SPINNER[frame % SPINNER.length]!;
}

export function ItemView({ item, frame, now }: { item: Item; frame: number; now: number }) {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Box flexShrink={0}>
            <T color="cyan" bold>
              {'> '}
            </T>
          </Box>
          <Inset by={2}>
            <W bold>{displayText(item.text)}</W>
          </Inset>
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column">
          {item.via ? <T dim>{`answer from ${oneLine(item.via)}:`}</T> : null}
          <Answer text={item.text} />
        </Box>
      );
    case 'panel':
    case 'expanded':
      return <ToolPanel panel={item.panel} frame={frame} now={now} />;
    case 'note': {
      const style = NOTE_STYLES[item.level];
      return (
        <Box flexDirection="column">
          <W {...style}>{`${style.prefix}${displayText(item.text)}`}</W>
          {item.hint ? <W dim>{`  hint: ${displayText(item.hint)}`}</W> : null}
        </Box>
      );
    }
    case 'output':
      return (
        <Box flexDirection="column">
          {item.title ? <T bold>{displayText(item.title)}</T> : null}
          {item.lines.map((line, i) => (
            <OutputRow key={i} line={line} />
          ))}
        </Box>
      );
    case 'round':
      return <T dim>{`· round ${item.round}: ${item.tools} tool${item.tools === 1 ? '' : 's'} offered${item.choice ? `; ${displayText(item.choice)}` : ''}`}</T>;
  }
}

/** An answer's Markdown, laid out (markdown.ts: every piece of it cleaned of control sequences first). */
function Answer({ text }: { text: string }) {
  return <MarkdownText text={text} color={useContext(ColorContext)} />;
}

const NOTE_STYLES: Record<Extract<Item, { kind: 'note' }>['level'], { prefix: string; color?: Color; dim?: boolean }> = {
  info: { prefix: '· ', color: 'blue' },
  dim: { prefix: '· ', dim: true },
  success: { prefix: '✓ ', color: 'green' },
  warning: { prefix: 'warning: ', color: 'yellow' },
  error: { prefix: 'error: ', color: 'red' },
};

function OutputRow({ line }: { line: OutputLine }) {
  const color = useContext(ColorContext);
  if (line.label !== undefined) {
    const labelWidth = line.labelWidth ?? displayText(line.label).length + 2;
    return (
      <Box>
        <Box width={labelWidth} flexShrink={0}>
          <T>{displayText(line.label)}</T>
        </Box>
        <Box flexShrink={1}>
          <Inset by={labelWidth}>
            <OutputRow line={{ text: line.text, ...(line.style ? { style: line.style } : {}) }} />
          </Inset>
        </Box>
      </Box>
    );
  }
  if (line.segments && color) {
    return (
      <T>
        {line.segments.map((segment, i) => (
          <T key={i} {...(segment.color ? { color: segment.color } : {})}>
            {displayText(segment.text)}
          </T>
        ))}
      </T>
    );
  }
  const text = displayText(line.text) || ' ';
  switch (line.style) {
    case 'dim':
      return <W dim>{text}</W>;
    case 'bold':
      return <W bold>{text}</W>;
    case 'warning':
      return <W color="yellow">{text}</W>;
    case 'success':
      return <W color="green">{text}</W>;
    case 'accent':
      return <W color="cyan">{text}</W>;
    default:
      return <W>{text}</W>;
  }
}

const STATUS_WORDS: Record<Panel['status'], string> = {
  requested: 'requested',
  queued: 'queued',
  validating: 'checking arguments',
  awaiting_approval: 'waiting for your approval',
  running: 'running',
  done: 'done',
  error: 'failed',
  cancelled: 'cancelled',
};

const OUTCOME_ICONS: Record<Exclude<ReturnType<typeof panelOutcome>, 'busy'>, { icon: string; color: Color }> = {
  ok: { icon: '✓', color: 'green' },
  declined: { icon: '⊘', color: 'yellow' },
  cancelled: { icon: '⊘', color: 'yellow' },
  failed: { icon: '✗', color: 'red' },
};

/** One tool call: name and arguments, status with a spinner and duration, markers, a result preview (or all of it, expanded). */
export function ToolPanel({ panel, frame, now }: { panel: Panel; frame: number; now: number }) {
  const outcome = panelOutcome(panel);
  const r = panel.result;
  const { icon, color: iconColor } = outcome === 'busy' ? { icon: spinnerFrame(frame), color: 'cyan' as const } : OUTCOME_ICONS[outcome];
  const elapsed = panelElapsed(panel, now);
  const word = outcome === 'declined' ? 'declined' : STATUS_WORDS[outcome === 'busy' ? panel.status : outcome === 'ok' ? 'done' : outcome === 'cancelled' ? 'cancelled' : 'error'];
  const status = [word, ...(elapsed !== null ? [duration(elapsed)] : [])].join(' ');
  const markers = panelMarkers(panel);
  const args = oneLine(compactJson(panel.arguments ?? {}));
  // A declined call shows what the user did, not the sentence the model was told.
  const human = outcome === 'declined' ? (panel.declinedBy ?? 'you declined it') : null;
  const preview = human ?? (r ? oneLine(r.ok ? r.content : (r.error ?? r.content)) : panel.progress ? oneLine(panel.progress) : '');
  return (
    <Box flexDirection="column">
      <T wrap="truncate-end">
        <T color={iconColor}>{`${icon} `}</T>
        <T bold>{`#${panel.n} ${oneLine(panel.name)}`}</T>
        <T dim>{` ${args}`}</T>
      </T>
      <Box paddingLeft={2}>
        <T wrap="truncate-end">
          <T dim>{status}</T>
          {markers.map((m) => (
            <T key={m} color={m.startsWith('refused') || m.startsWith('error') ? 'red' : 'yellow'}>{` [${m}]`}</T>
          ))}
          {preview && !panel.expanded ? <T dim>{` · ${preview}`}</T> : null}
        </T>
      </Box>
      {panel.expanded ? (
        <Box flexDirection="column" paddingLeft={2}>
          <T bold>arguments</T>
          <Box paddingLeft={2}>
            <T>{displayText(prettyResult(compactJson(panel.arguments ?? {})))}</T>
          </Box>
          <T bold>{human ? 'declined' : r ? (r.ok ? 'result' : 'error') : 'result: not yet'}</T>
          {human ? (
            <Box paddingLeft={2} flexDirection="column">
              <T>{human}</T>
              <T dim>{`the model was told: ${oneLine(r?.error ?? r?.content ?? '')}`}</T>
            </Box>
          ) : r ? (
            <Box paddingLeft={2}>
              <T>{displayText(prettyResult(r.ok ? r.content : (r.error ?? r.content))) || '(empty)'}</T>
            </Box>
          ) : null}
        </Box>
      ) : null}
    </Box>
  );
}

export function ApprovalPrompt({ approval }: { approval: ApprovalView }) {
  const color = useContext(ColorContext);
  return (
    <Box flexDirection="column" borderStyle="round" {...(color ? { borderColor: 'yellow' } : {})} paddingX={1}>
      <T color="yellow" bold>{`run ${oneLine(approval.tool)}? (${oneLine(approval.reason)})`}</T>
      <T dim>{oneLine(compactJson(approval.arguments ?? {}))}</T>
      {approval.ready ? (
        <T>
          <T bold>[y]</T>
          {' yes   '}
          <T bold>[n]</T>
          {' no   '}
          <T bold>[a]</T>
          {` always for ${oneLine(approval.tool)} in this session   `}
          <T bold>[Esc]</T>
          {' no'}
        </T>
      ) : (
        <T dim>the keys show in a moment…</T>
      )}
      <T dim>one key press answers; typed-ahead or pasted text goes to the input line</T>
    </Box>
  );
}

/** At most this many lines of the input show; a longer text scrolls with the cursor. */
export const INPUT_LINES = 6;

/**
 * The input: one line, or several (a paste, Alt+Enter), the first after "> ", the others
 * indented under it. Past INPUT_LINES it scrolls to keep the cursor's line in view, and says how
 * many lines are above and below.
 */
export function InputLine({ input, running }: { input: EditorState; running: boolean }) {
  const color = useContext(ColorContext);
  const placeholder = running ? 'a turn is running (Ctrl-C cancels it)' : 'type a message, /help for commands';
  if (input.text === '') {
    return (
      <Box>
        <T color="cyan" bold>
          {'> '}
        </T>
        <T>
          {color ? <T inverse> </T> : '_'}
          <T dim>{placeholder}</T>
        </T>
      </Box>
    );
  }
  const view = inputView(input);
  return (
    <Box flexDirection="column">
      {view.above ? <T dim>{`  ↑ ${view.above} more line${view.above === 1 ? '' : 's'}`}</T> : null}
      {view.lines.map((line, i) => (
        <Box key={view.first + i}>
          <T color="cyan" bold>
            {view.first + i === 0 ? '> ' : '  '}
          </T>
          {/* The text may hold a replayed recording's prompt: drawn without control sequences, like all untrusted text. */}
          {line.cursor === null ? (
            <T>{displayText(line.text) || ' '}</T>
          ) : (
            <T>
              {displayText(line.before)}
              {color ? <T inverse>{displayText(line.at) || ' '}</T> : line.at === '' ? '_' : `|${displayText(line.at)}`}
              {displayText(line.after)}
            </T>
          )}
        </Box>
      ))}
      {view.below ? <T dim>{`  ↓ ${view.below} more line${view.below === 1 ? '' : 's'}`}</T> : null}
    </Box>
  );
}

interface InputViewLine {
  text: string;
  /** On the cursor's line: the cursor's column, and the text split around it. */
  cursor: number | null;
  before: string;
  at: string;
  after: string;
}

/** The lines of the input that show, with the cursor's line split around it. */
export function inputView(input: EditorState, max = INPUT_LINES): { lines: InputViewLine[]; first: number; above: number; below: number } {
  const chars = Array.from(input.text);
  const cursor = Math.min(Math.max(0, input.cursor), chars.length);
  const lines = input.text.split('\n');
  let line = 0;
  let start = 0;
  for (let i = 0; i < cursor; i++) {
    if (chars[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  const column = cursor - start;
  const first = lines.length <= max ? 0 : Math.min(Math.max(0, line - max + 1), lines.length - max);
  const shown = lines.slice(first, first + max).map((text, i): InputViewLine => {
    if (first + i !== line) return { text, cursor: null, before: '', at: '', after: '' };
    const own = Array.from(text);
    return { text, cursor: column, before: own.slice(0, column).join(''), at: own[column] ?? '', after: own.slice(column + 1).join('') };
  });
  return { lines: shown, first, above: first, below: Math.max(0, lines.length - first - max) };
}

/** At most this many of Tab's choices show. */
const MAX_CHOICES = 40;

/** What Tab can complete to: the names (file names come from the disk: drawn without control sequences). */
export function Choices({ choices }: { choices: readonly string[] }) {
  const shown = choices.slice(0, MAX_CHOICES).map((c) => oneLine(c));
  return <T dim>{`${shown.join('  ')}${choices.length > MAX_CHOICES ? `  (+${choices.length - MAX_CHOICES} more)` : ''}`}</T>;
}

/** The status parts, wrapped between parts (never inside one) when the terminal is narrow. */
export function StatusLine({ status }: { status: StatusView }) {
  return (
    <Box flexWrap="wrap">
      {statusParts(status).map((part, i, parts) => (
        <T key={i} dim>{`${part}${i < parts.length - 1 ? ' | ' : ''}`}</T>
      ))}
    </Box>
  );
}

export function Waiting({ frame, cancelling }: { frame: number; cancelling: boolean }) {
  return <T color="cyan">{`${spinnerFrame(frame)} ${cancelling ? 'cancelling…' : 'working… (Ctrl-C cancels)'}`}</T>;
}
