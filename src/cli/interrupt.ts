/** The signals that stop a running command: Ctrl-C, and a terminal or supervisor ending it. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * An AbortSignal that fires when the user interrupts: commands that run something (tools, a
 * model) pass it down, stop cleanly, and exit with 130. `dispose` removes the handlers.
 */
export function interruption(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: string) => controller.abort(new Error(`interrupted (${name})`));
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
    },
  };
}
