import type { Tool } from '../catalog/types.js';

export interface PromptContributions {
  /** `system` and `system_format` texts, once per conversation. */
  system: string[];
  /** `user` and `user_format` texts, once per conversation. */
  user: string[];
  /** `user_reminder` texts, repeated every turn. */
  reminders: string[];
}

/** Collects the prompt contributions of the tools offered, each text once, in tool order. */
export function promptContributions(tools: readonly Tool[]): PromptContributions {
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
  return out;
}
