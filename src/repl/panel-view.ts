import { REFUSED_KINDS, type Panel } from './repl-state.js';

/** How a tool call's panel reads: its outcome, its markers, how long it ran (components.tsx draws them). */

/** The marker words of a panel: approved, truncated, deduplicated, refused, error (declined and cancelled are status words). */
export function panelMarkers(panel: Panel): string[] {
  const markers: string[] = [];
  const r = panel.result;
  if (panel.approval === 'approved' || panel.approval === 'always') markers.push(panel.approval === 'always' ? 'approved (always)' : 'approved');
  if (!r) return markers;
  if (r.summarized) markers.push(r.originalTokens ? `summarized from ~${r.originalTokens} tokens` : 'summarized');
  else if (r.truncated) markers.push(r.originalTokens ? `truncated from ~${r.originalTokens} tokens` : 'truncated');
  if (r.sources) markers.push(`${r.sources} source${r.sources === 1 ? '' : 's'}`);
  if (r.deduplicated) markers.push('deduplicated');
  // A declined or cancelled call says so in its status word ("declined", "cancelled"), not as a failure's marker.
  if (r.errorKind === 'declined' || r.errorKind === 'cancelled') return markers;
  if (r.errorKind && REFUSED_KINDS.includes(r.errorKind)) markers.push(`refused: ${r.errorKind}`);
  else if (r.errorKind) markers.push(`error: ${r.errorKind}`);
  return markers;
}

/**
 * Where a call stands for drawing: its result when it has arrived, else its status. A call can be
 * done before its result arrives (the results come together, when every call of the round ends).
 */
export function panelOutcome(panel: Panel): 'busy' | 'ok' | 'declined' | 'cancelled' | 'failed' {
  const r = panel.result;
  if (r) return r.ok ? 'ok' : r.errorKind === 'declined' ? 'declined' : r.errorKind === 'cancelled' ? 'cancelled' : 'failed';
  switch (panel.status) {
    case 'done':
      return 'ok';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      return panel.approval === 'declined' ? 'declined' : 'failed';
    default:
      return 'busy';
  }
}

/** How long the call has run: its duration once it ended, the time since `running` while it runs. */
export function panelElapsed(panel: Panel, now: number): number | null {
  if (panel.durationMs !== null) return panel.durationMs;
  if (panel.status === 'running' && panel.startedAt !== null) return now - panel.startedAt;
  return null;
}

/** Whether a panel is still waiting on something (drawn with a spinner). */
export function panelBusy(panel: Panel): boolean {
  return panelOutcome(panel) === 'busy';
}
