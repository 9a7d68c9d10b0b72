import { format } from 'node:util';

/** The console methods a library may write with while the REPL draws (the Anthropic SDK warns with console.warn). */
const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

export type ConsoleMethod = (typeof METHODS)[number];

/**
 * Routes what is written with console.log/info/warn/error/debug to `note` instead of the terminal,
 * where it would land in the middle of ink's frame and garble it. Returns the function that puts
 * the console back. The text is untrusted: the note draws it without control sequences.
 *
 * `note` runs a moment later, never inside the write: react itself may warn while it renders, and
 * a note drawn from there would render again inside the render.
 */
export function routeConsole(note: (text: string, method: ConsoleMethod) => void, target: Console = console): () => void {
  const saved = METHODS.map((method) => [method, target[method]] as const);
  for (const method of METHODS) {
    target[method] = (...args: unknown[]) => {
      const text = format(...args).trimEnd();
      if (text) queueMicrotask(() => note(text, method));
    };
  }
  return () => {
    for (const [method, original] of saved) target[method] = original;
  };
}
