import type { ToolSession } from '../manager/tool-session.js';
import { formatAnthropic } from './anthropic/anthropic-format.js';
import { formatGemini } from './gemini/gemini-format.js';
import { formatOpenAi } from './openai/openai-format.js';
import type { FormatInput, FormatOptions, FormatResult, ProviderName } from './types.js';

/** One provider's request fragment for the given tools. Pure; never throws for a tool it cannot express. */
export function formatTools(provider: ProviderName, input: FormatInput): FormatResult {
  switch (provider) {
    case 'openai':
    case 'openai-responses':
      return formatOpenAi(input, provider);
    case 'anthropic':
      return formatAnthropic(input);
    case 'gemini':
      return formatGemini(input);
  }
}

/** The fragment for a session's round: what the model is offered, deferred tools, tool choice. */
export function formatSession(provider: ProviderName, session: ToolSession, round: number, options: FormatOptions = {}): FormatResult {
  const offered = session.offered(round);
  const found = new Set(session.activated);
  return formatTools(provider, {
    tools: offered.tools,
    deferred: session.selection.deferred.filter((t) => !found.has(t.name)),
    toolChoice: offered.toolChoice,
    options,
  });
}
