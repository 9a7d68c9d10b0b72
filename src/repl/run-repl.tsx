import { routeConsole } from './console-notes.js';
import type { ReplContext, ReplIO } from './repl-context.js';

/**
 * `toolman chat` on a terminal: the interactive REPL. Resolves with the exit code: 0 after /exit
 * (or Ctrl-D on an empty line), 130 after Ctrl-C twice or a stop signal.
 */
export async function runRepl(context: ReplContext, io: ReplIO): Promise<0 | 1 | 2 | 130> {
  const terminal = io.terminal ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  // No JSX in this file: react's JSX runtime would load before loadInk could choose its build.
  const [{ mountRepl, BRACKETED_PASTE_OFF }, { ReplController }] = await loadInk(() => Promise.all([import('./repl-app.js'), import('./repl-controller.js')]));
  const controller = new ReplController(context, { cwd: io.cwd ?? process.cwd() });
  const app = mountRepl(controller, colorEnabled(io.env), { ...terminal, stderr: terminal.stderr ?? process.stderr });
  // The shell after toolman gets its terminal back as it was: pastes unmarked.
  const pasteOff = () => terminal.stdout.write(BRACKETED_PASTE_OFF);
  // A library's console output (an SDK's deprecation warning) becomes a note instead of tearing the frame.
  const restoreConsole = routeConsole((text, method) => controller.note('dim', `console.${method}: ${text}`));
  try {
    controller.start();
    const code = await controller.exited;
    app.unmount();
    await app.waitUntilExit().catch(() => undefined);
    return code === 0 || code === 1 || code === 2 ? code : 130;
  } finally {
    pasteOff();
    restoreConsole();
  }
}

/** Colour unless NO_COLOR says otherwise (https://no-color.org), or the terminal is dumb. */
export function colorEnabled(env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return env.TERM !== 'dumb';
}

/**
 * Loads ink and react as the REPL needs them, whatever the environment says: ink decides at load
 * time that it runs in CI when CI is set and then draws nothing until exit (the REPL only starts
 * on a real terminal, so it must draw), and react picks its build by NODE_ENV when it loads: the
 * bundle carries only the production builds (scripts/build.mjs leaves react's development files
 * out). Both are set only while the modules load, then put back.
 */
async function loadInk<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION, NODE_ENV: process.env.NODE_ENV };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  process.env.NODE_ENV = 'production';
  try {
    return await load();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
