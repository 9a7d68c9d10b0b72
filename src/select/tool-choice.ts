import type { Tool } from '../catalog/types.js';

/** What the model may choose from in a round. */
export type ToolChoice = { type: 'auto' } | { type: 'tool'; name: string } | { type: 'required'; names: string[] };

/**
 * The tool choice for a round: forced tools are required in the first round only (DESIGN.md §3);
 * one forced tool is named, several make a choice among them required.
 */
export function toolChoiceFor(forced: readonly Tool[], round = 1): ToolChoice {
  if (round !== 1 || forced.length === 0) return { type: 'auto' };
  return forced.length === 1 ? { type: 'tool', name: forced[0]!.name } : { type: 'required', names: forced.map((t) => t.name) };
}
