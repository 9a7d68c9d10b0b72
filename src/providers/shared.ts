import type { Tool } from '../catalog/types.js';
import type { FormatResult, ProviderName } from './types.js';

/** Starts a result and gives helpers to record per-tool changes and warnings. */
export function resultFor(provider: ProviderName) {
  const result: FormatResult = { provider, payload: {}, warnings: [], changes: {}, sent: {}, prompts: { system: [], user: [], reminders: [] } };
  return {
    result,
    change(tool: Tool | string, what: string) {
      const name = typeof tool === 'string' ? tool : tool.name;
      const list = (result.changes[name] ??= []);
      if (!list.includes(what)) list.push(what);
    },
    warn(message: string, tool?: Tool) {
      result.warnings.push(tool ? { tool: tool.name, message: `${tool.name}: ${message}` } : { message });
    },
  };
}

/** A tool's native definition for this provider, when the catalog declares one. */
export function nativeDefinition(tool: Tool, provider: ProviderName): Record<string, unknown> | undefined {
  return tool.native?.[provider];
}

/** The description providers see: the catalog description, else the summary, else nothing. */
export function describe(tool: Tool): string | undefined {
  return tool.description?.trim() || tool.summary?.trim() || undefined;
}
