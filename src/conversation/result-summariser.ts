import type { SummarizeSettings } from '../catalog/types.js';
import { truncateResult } from '../execute/truncate.js';
import type { Summariser } from '../execute/types.js';
import type { SideModels } from './side-models.js';

/** What the summarising model is told when the catalog's `budget.summarize.prompt` says nothing else. */
export const DEFAULT_SUMMARY_PROMPT =
  'You shorten a tool result for an assistant that is answering a user. Keep every fact, number, name, date, identifier and URL the assistant may need, and anything the result says failed or is missing; drop repetition, boilerplate and formatting. Answer with the shortened result only, no preamble.';

/**
 * The most of a result the summarising model reads (estimated tokens): a result can be megabytes,
 * and a small model's context is not. Past it, the result is cut with smart truncation first,
 * and the model is told so.
 */
export const MAX_SUMMARY_INPUT_TOKENS = 30_000;

/**
 * The summariser `truncation: summarize` uses: the catalog's small model (`budget.summarize`),
 * reached through the conversation's side models (live, recorded or replayed with the
 * conversation's own calls). Every failure (no key, an error, a replay without the exchange)
 * is a reason, and the executor falls back to smart truncation and says it.
 */
export function resultSummariser(settings: SummarizeSettings, side: SideModels): Summariser {
  return async (request, signal) => {
    const input = truncateResult(request.text, MAX_SUMMARY_INPUT_TOKENS, 'smart');
    const words = Math.max(20, Math.floor(request.maxTokens * 0.6));
    const system = `${settings.prompt ?? DEFAULT_SUMMARY_PROMPT}\nUse at most ${words} words.`;
    const text = `The result of the tool ${request.tool}${input.truncated ? ` (cut from about ${input.originalTokens} tokens to fit; say nothing about what was cut)` : ''}:\n\n${input.text}`;
    try {
      const summary = await side.complete({ provider: settings.provider, model: settings.model, baseUrl: settings.base_url }, { system, text, maxTokens: Math.max(64, request.maxTokens) }, signal);
      return { ok: true, text: summary };
    } catch (error) {
      return { ok: false, reason: `${settings.provider} ${settings.model} could not summarise it: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
}
