/** The largest delay Node's timers take: longer ones fire at once (with a warning), so they are clamped. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function timerDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : MAX_TIMER_MS;
}
