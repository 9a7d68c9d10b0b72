import { Box, render, Static, useApp, useInput, type Instance } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { ApprovalPrompt, ColorProvider, InputLine, ItemView, StatusLine, T, Waiting } from './components.js';
import { decodeKeys } from './line-editor.js';
import type { ReplController } from './repl-controller.js';
import { panelBusy, type ReplState } from './repl-state.js';
import { displayText } from './terminal-text.js';

/**
 * The REPL on screen: settled items once into the scrollback, the running turn live below them,
 * then the approval question or the input line, then the status line. Keys go to the controller.
 */
export function ReplApp({ controller, color }: { controller: ReplController; color: boolean }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const { exit } = useApp();
  useInput((input, key) => {
    for (const action of decodeKeys(input, key)) controller.key(action);
  });
  useEffect(() => {
    if (state.exitCode !== null) exit();
  }, [state.exitCode, exit]);
  const frame = useTicker(busy(state));
  const now = controller.now();
  const live = state.items.slice(state.committed);
  return (
    <ColorProvider value={color}>
      <Static items={state.items.slice(0, state.committed)}>{(item) => <ItemView key={item.key} item={item} frame={0} now={now} />}</Static>
      <Box flexDirection="column">
        {live.map((item) => (
          <ItemView key={item.key} item={item} frame={frame} now={now} />
        ))}
        {state.running && !state.approval && !live.some((i) => i.kind === 'panel' && panelBusy(i.panel)) ? <Waiting frame={frame} cancelling={state.cancelling} /> : null}
        {state.approval ? <ApprovalPrompt approval={state.approval} /> : null}
        {state.hint ? <T color="yellow">{displayText(state.hint)}</T> : null}
        {/* Also under an approval question: what was typed ahead stays in view, and is no answer. */}
        {state.exitCode === null ? <InputLine input={state.input} running={state.running} /> : null}
        <StatusLine status={state.status} />
      </Box>
    </ColorProvider>
  );
}

function busy(state: ReplState): boolean {
  return state.running || state.items.slice(state.committed).some((i) => i.kind === 'panel' && panelBusy(i.panel));
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

/** Draws the REPL on a terminal (Ctrl-C is a key here: the controller decides what it does). */
export function mountRepl(controller: ReplController, color: boolean, terminal: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Instance {
  return render(<ReplApp controller={controller} color={color} />, { ...terminal, exitOnCtrlC: false, patchConsole: false });
}
