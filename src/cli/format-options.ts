import type { FormatSettings } from '../catalog/types.js';
import type { FormatOptions } from '../providers/types.js';

export interface FormatFlags {
  strict?: boolean;
  cacheControl?: boolean;
  nativeSearch?: 'bm25' | 'regex';
  geminiJsonSchema?: boolean;
}

/** The catalog's `format:` settings, overridden by command-line flags. */
export function formatOptions(settings: FormatSettings, flags: FormatFlags): FormatOptions {
  const nativeToolSearch = flags.nativeSearch ?? settings.native_tool_search;
  return {
    strict: flags.strict ?? settings.strict ?? false,
    cacheControl: flags.cacheControl ?? settings.cache_control ?? false,
    ...(nativeToolSearch ? { nativeToolSearch } : {}),
    geminiJsonSchema: flags.geminiJsonSchema ?? settings.gemini_json_schema ?? false,
  };
}
