import type { ProviderName } from '../providers/types.js';

/** The providers with a tool search of their own (`--search native`, `--compare ... native`). */
export const NATIVE_SEARCH: ReadonlySet<string> = new Set<ProviderName>(['openai-responses', 'anthropic']);
