import type { FormatSettings } from '../catalog/types.js';
import type { FormatOptions } from './types.js';

/** What a command line (or a driver) sets over the catalog's `format:` settings. */
export interface FormatFlags {
  strict?: boolean;
  cacheControl?: boolean;
  nativeSearch?: 'bm25' | 'regex';
  geminiJsonSchema?: boolean;
}

/** The catalog's `format:` settings, overridden by flags: the one place FormatOptions are made from them. */
export function formatOptions(settings: FormatSettings, flags: FormatFlags): FormatOptions {
  const nativeToolSearch = flags.nativeSearch ?? settings.native_tool_search;
  return {
    strict: flags.strict ?? settings.strict ?? false,
    cacheControl: flags.cacheControl ?? settings.cache_control ?? false,
    ...(nativeToolSearch ? { nativeToolSearch } : {}),
    geminiJsonSchema: flags.geminiJsonSchema ?? settings.gemini_json_schema ?? false,
  };
}
