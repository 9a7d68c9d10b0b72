import type { Tool } from '../catalog/types.js';

export interface PromptContributions {
  /** `system` and `system_format` texts, once per conversation. */
  system: string[];
  /** `user` and `user_format` texts, once per conversation. */
  user: string[];
  /** `user_reminder` texts, repeated every turn. */
  reminders: string[];
}

/**
 * Said once when a tool offered declares `references:`: the loop lists a result's sources,
 * numbered, after its text (loop/turn-references.ts), and this is how the model learns to cite
 * them. Counted with the tools' other contributions (`budget`, `format`).
 */
export const CITATION_PROMPT = 'Some tool results end with numbered sources ("Sources (cite as [n]):"). When your answer uses what a source says, cite it as [n] right after that statement.';

/**
 * Collects the prompt contributions of the tools offered, each text once, in tool order.
 * `citations: false` leaves out CITATION_PROMPT, for drivers with no loop to number sources (`serve`).
 */
export function promptContributions(tools: readonly Tool[], options: { citations?: boolean } = {}): PromptContributions {
  const out: PromptContributions = { system: [], user: [], reminders: [] };
  const add = (list: string[], text: string | undefined) => {
    const trimmed = text?.trim();
    if (trimmed && !list.includes(trimmed)) list.push(trimmed);
  };
  for (const tool of tools) {
    add(out.system, tool.prompts.system);
    add(out.system, tool.prompts.system_format);
    add(out.user, tool.prompts.user);
    add(out.user, tool.prompts.user_format);
    add(out.reminders, tool.prompts.user_reminder);
  }
  if (options.citations !== false && tools.some((tool) => tool.references)) add(out.system, CITATION_PROMPT);
  return out;
}
