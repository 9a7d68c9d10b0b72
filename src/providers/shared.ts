import type { Tool } from '../catalog/types.js';
import type { FormatResult, FormatWarning, ProviderName } from './types.js';
import { schemaPlace } from './schema-rewrites.js';

/** Starts a result and gives helpers to record per-tool changes and warnings. */
export function resultFor(provider: ProviderName) {
  // Keyed by tool name: no prototype, so a tool named `__proto__` or `constructor` is an ordinary key.
  const result: FormatResult = { provider, payload: {}, systemPayload: {}, toolChoice: { type: 'auto' }, warnings: [], changes: Object.create(null) as FormatResult['changes'], sent: Object.create(null) as FormatResult['sent'], prompts: { system: [], user: [], reminders: [] } };
  return {
    result,
    change(tool: Tool | string, what: string) {
      const name = typeof tool === 'string' ? tool : tool.name;
      const list = (result.changes[name] ??= []);
      if (!list.includes(what)) list.push(what);
    },
    /** `code`: the validate finding that says the same of the catalog (so `format` shows it once). */
    warn(message: string, tool?: Tool, code?: FormatWarning['code']) {
      result.warnings.push({ ...(tool ? { tool: tool.name, message: `${tool.name}: ${message}` } : { message }), ...(code ? { code } : {}) });
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

/** " (at parameters.inputs)" for a path into a tool's parameters; nothing for the root. */
export function placeOf(path: readonly string[]): string {
  return path.length ? ` (at ${schemaPlace(path)})` : '';
}
