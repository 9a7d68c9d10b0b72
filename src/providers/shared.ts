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

/**
 * A provider-native tool's definition for this provider, recorded as sent; or undefined, with a
 * warning, when the catalog declares none for it (the tool is then not sent).
 */
export function nativeDefinition(tool: Tool, provider: ProviderName, formatting: ReturnType<typeof resultFor>): Record<string, unknown> | undefined {
  const definition = tool.native?.[provider];
  if (definition) {
    formatting.result.sent[tool.name] = tool.name;
    formatting.change(tool, "sent as the provider's native tool");
  } else {
    formatting.warn(`a provider-native tool with no definition for ${provider}; not sent`, tool);
  }
  return definition;
}

/** The description providers see: the catalog description, else the summary, else nothing. */
export function describe(tool: Tool): string | undefined {
  return tool.description?.trim() || tool.summary?.trim() || undefined;
}
