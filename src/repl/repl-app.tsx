import { Box, render, Static, useApp, useStdin, useStdout, type Instance } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { ApprovalPrompt, Choices, ColorProvider, InputLine, ItemView, StatusLine, T, Waiting } from './components.js';
import type { ReplController } from './repl-controller.js';
import { panelBusy } from './panel-view.js';
import type { ReplState } from './repl-state.js';
import { WidthProvider } from './markdown-view.js';
import { TerminalKeys } from './terminal-keys.js';
import { displayText } from './terminal-text.js';

/**
 * The REPL on screen: settled items once into the scrollback, the running turn live below them,
 * then the approval question or the input line, then the status line. Keys go to the controller.
 */
export function ReplApp({ controller, color }: { controller: ReplController; color: boolean }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const columns = useStdout().stdout.columns || 80;
  const { exit } = useApp();
  useTerminalKeys(controller);
  useEffect(() => {
    if (state.exitCode !== null) exit();
  }, [state.exitCode, exit]);
  const frame = useTicker(busy(state));
  const now = controller.now();
  const live = state.items.slice(state.committed);
  return (
    <ColorProvider value={color}>
      <WidthProvider value={columns}>
        {/* Static items get the terminal's width: ink lays them out apart, where nothing else bounds a row. */}
        <Static items={state.items.slice(0, state.committed)}>
          {(item) => (
            <Box key={item.key} width={columns} flexDirection="column">
              <ItemView item={item} frame={0} now={now} />
            </Box>
          )}
        </Static>
        <Box flexDirection="column">
          {live.map((item) => (
            <ItemView key={item.key} item={item} frame={frame} now={now} />
          ))}
          {state.running && !state.approval && !live.some((i) => i.kind === 'panel' && panelBusy(i.panel)) ? <Waiting frame={frame} cancelling={state.cancelling} /> : null}
          {state.approval ? <ApprovalPrompt approval={state.approval} /> : null}
          {state.hint ? <T color="yellow">{displayText(state.hint)}</T> : null}
          {state.choices ? <Choices choices={state.choices} /> : null}
          {/* Also under an approval question: what was typed ahead stays in view, and is no answer. */}
          {state.exitCode === null ? <InputLine input={state.input} running={state.running} /> : null}
          <StatusLine status={state.status} />
        </Box>
      </WidthProvider>
    </ColorProvider>
  );
}

function busy(state: ReplState): boolean {
  return state.running || state.items.slice(state.committed).some((i) => i.kind === 'panel' && panelBusy(i.panel));
}

/** How long a bracketed paste may go without its end marker before what came is taken as the paste. */
const PASTE_QUIET_MS = 2000;

/**
 * Keys from ink's raw input events (each a run of text or one escape sequence), decoded by
 * TerminalKeys: ink's useInput would strip the ESC of a bracketed paste's markers and of
 * Shift+Enter's sequence, so they could not be told from typed text (terminal-keys.ts).
 */
function useTerminalKeys(controller: ReplController): void {
  const { internal_eventEmitter: events, setRawMode, isRawModeSupported } = useStdin();
  useEffect(() => {
    if (!isRawModeSupported) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [isRawModeSupported, setRawMode]);
  useEffect(() => {
    const keys = new TerminalKeys();
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const onInput = (raw: string) => {
      clearTimeout(quiet);
      for (const action of keys.push(raw)) controller.key(action);
      if (keys.pasting) quiet = setTimeout(() => keys.endPaste().forEach((action) => controller.key(action)), PASTE_QUIET_MS);
    };
    events.on('input', onInput);
    return () => {
      clearTimeout(quiet);
      events.off('input', onInput);
    };
  }, [events, controller]);
}

/** A frame counter for spinners and running durations, ticking only while something runs. */
function useTicker(active: boolean): number {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setFrame((f) => f + 1), 100);
    return () => clearInterval(timer);
  }, [active]);
  return frame;
}

/**
 * Draws the REPL on a terminal (Ctrl-C is a key here: the controller decides what it does), with
 * bracketed paste on (a paste arrives marked, as one piece) and, where the terminal speaks it
 * (kitty, WezTerm, ghostty: ink asks), the kitty keyboard protocol, which tells Shift+Enter from
 * Enter. run-repl.tsx turns bracketed paste off again on exit.
 */
export function mountRepl(controller: ReplController, color: boolean, terminal: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Instance {
  const app = render(<ReplApp controller={controller} color={color} />, { ...terminal, exitOnCtrlC: false, patchConsole: false, kittyKeyboard: { mode: 'auto' } });
  terminal.stdout.write(BRACKETED_PASTE_ON);
  return app;
}

export const BRACKETED_PASTE_ON = '\u001b[?2004h';
export const BRACKETED_PASTE_OFF = '\u001b[?2004l';
