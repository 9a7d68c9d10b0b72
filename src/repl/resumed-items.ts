import type { ChatMessage } from '../providers/model-client.js';
import { requestedPanel, type Item, type Panel } from './repl-state.js';

type NewItem = Item extends infer I ? (I extends Item ? Omit<I, 'key'> : never) : never;

/**
 * A resumed conversation on screen, as it went: what the user said, the answers (Markdown), and
 * each tool call as a settled panel with its result, numbered from `firstPanel` so `/expand N`
 * reaches them too. Durations and approvals were not kept in the history: the panels have none.
 */
export function resumedItems(messages: readonly ChatMessage[], firstPanel: number): { items: NewItem[]; panels: number } {
  const items: NewItem[] = [];
  let n = firstPanel - 1;
  let round = 0;
  const byId = new Map<string, Panel>();
  for (const message of messages) {
    if (message.role === 'user') {
      round = 0;
      items.push({ kind: 'user', settled: true, text: message.text });
    } else if (message.role === 'assistant') {
      round++;
      if (message.text) items.push({ kind: 'assistant', settled: true, round, text: message.text });
      for (const call of message.toolCalls) {
        const panel = requestedPanel({ n: ++n, id: call.id, round, name: call.name, arguments: parsed(call.arguments) });
        byId.set(call.id, panel);
        items.push({ kind: 'panel', settled: true, panel });
      }
    } else {
      for (const result of message.results) {
        const panel = byId.get(result.id);
        if (!panel) continue;
        panel.status = result.isError ? 'error' : 'done';
        panel.result = { ok: !result.isError, content: result.content, error: result.isError ? result.content : null, errorKind: result.isError ? 'tool_error' : null, truncated: false, summarized: false, deduplicated: false, originalTokens: null, durationMs: 0, sources: 0 };
      }
    }
  }
  return { items, panels: n };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
