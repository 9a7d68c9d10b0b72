import { Box, Text } from 'ink';
import { createContext, useContext, type ReactNode } from 'react';
import { type EditorState } from './line-editor.js';
import { panelElapsed, panelMarkers, panelOutcome, statusParts, type ApprovalView, type Item, type OutputLine, type Panel, type StatusView } from './repl-state.js';
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

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function spinnerFrame(frame: number): string {
  return SPINNER[frame % SPINNER.length]!;
}

export function ItemView({ item, frame, now }: { item: Item; frame: number; now: number }) {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <T color="cyan" bold>
            {'> '}
          </T>
          <T bold>{displayText(item.text)}</T>
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column">
          {item.via ? <T dim>{`answer from ${item.via}:`}</T> : null}
          <T>{displayText(item.text)}</T>
        </Box>
      );
    case 'panel':
    case 'expanded':
      return <ToolPanel panel={item.panel} frame={frame} now={now} />;
    case 'note': {
      const style = NOTE_STYLES[item.level];
      return (
        <Box flexDirection="column">
          <T {...style}>{`${style.prefix}${displayText(item.text)}`}</T>
          {item.hint ? <T dim>{`  hint: ${displayText(item.hint)}`}</T> : null}
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

const NOTE_STYLES: Record<Extract<Item, { kind: 'note' }>['level'], { prefix: string; color?: Color; dim?: boolean }> = {
  info: { prefix: '· ', color: 'blue' },
  dim: { prefix: '· ', dim: true },
  success: { prefix: '✓ ', color: 'green' },
  warning: { prefix: 'warning: ', color: 'yellow' },
  error: { prefix: 'error: ', color: 'red' },
};

function OutputRow({ line }: { line: OutputLine }) {
  const text = displayText(line.text) || ' ';
  switch (line.style) {
    case 'dim':
      return <T dim>{text}</T>;
    case 'bold':
      return <T bold>{text}</T>;
    case 'warning':
      return <T color="yellow">{text}</T>;
    case 'success':
      return <T color="green">{text}</T>;
    case 'accent':
      return <T color="cyan">{text}</T>;
    default:
      return <T>{text}</T>;
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
  const word = STATUS_WORDS[outcome === 'busy' ? panel.status : outcome === 'ok' ? 'done' : outcome === 'cancelled' ? 'cancelled' : 'error'];
  const status = [word, ...(elapsed !== null ? [duration(elapsed)] : [])].join(' ');
  const markers = panelMarkers(panel);
  const args = oneLine(compactJson(panel.arguments ?? {}));
  const preview = r ? oneLine(r.ok ? r.content : (r.error ?? r.content)) : panel.progress ? oneLine(panel.progress) : '';
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
          <T bold>{r ? (r.ok ? 'result' : 'error') : 'result: not yet'}</T>
          {r ? (
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

export function InputLine({ input, running }: { input: EditorState; running: boolean }) {
  const color = useContext(ColorContext);
  const chars = Array.from(input.text);
  // The line may hold a replayed recording's prompt: drawn without control sequences, like all untrusted text.
  const before = displayText(chars.slice(0, input.cursor).join(''));
  const at = displayText(chars[input.cursor] ?? ' ') || ' ';
  const after = displayText(chars.slice(input.cursor + 1).join(''));
  const placeholder = running ? 'a turn is running (Ctrl-C cancels it)' : 'type a message, /help for commands';
  return (
    <Box>
      <T color="cyan" bold>
        {'> '}
      </T>
      {input.text === '' ? (
        <T>
          {color ? <T inverse> </T> : '_'}
          <T dim>{placeholder}</T>
        </T>
      ) : (
        <T>
          {before}
          {color ? <T inverse>{at}</T> : input.cursor >= chars.length ? '_' : `|${at}`}
          {after}
        </T>
      )}
    </Box>
  );
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
