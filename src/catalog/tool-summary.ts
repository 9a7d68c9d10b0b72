import type { Tool } from './types.js';

/** A tool in one line: its `summary`, else the first sentence of its description (at most 200 characters). */
export function toolSummary(tool: Pick<Tool, 'summary' | 'description'>): string | undefined {
  if (tool.summary?.trim()) return tool.summary.trim();
  const text = tool.description?.trim();
  if (!text) return undefined;
  const match = /^(.{1,200}?[.!?])(\s|$)/s.exec(text);
  return (match?.[1] ?? text.slice(0, 200)).replace(/\s+/g, ' ');
}
