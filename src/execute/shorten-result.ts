import type { Tool } from '../catalog/types.js';
import { CHARS_PER_TOKEN, estimateTokens, truncateResult, type TruncationStrategy } from './truncate.js';
import type { Summariser } from './types.js';

/** A result as the model gets it after its limit applied. */
export interface Shortened {
  text: string;
  truncated: boolean;
  originalTokens: number;
  /** A model summarised it. */
  summarized?: true;
  /** Why it was cut with smart truncation instead of summarised. */
  summaryError?: string;
}

export interface ShortenOptions {
  summarise?: Summariser | undefined;
  /** `budget.summarize.threshold`: smaller overflows are cut, not summarised. */
  threshold?: number | undefined;
  signal: AbortSignal;
}

/** The cut a truncation stands for where no model is asked (the turn's budget, a summary that failed). */
export function cutStrategy(truncation: Tool['truncation']): TruncationStrategy {
  return truncation === 'summarize' ? 'smart' : truncation;
}

/**
 * A result cut to `limit` (estimated) tokens by the tool's truncation. `summarize` asks the
 * summariser (the conversation's small model) for a summary of at most `limit` tokens and gives
 * the model `{"_summarized": true, "_original_tokens": N, "summary": "..."}`, so it knows it
 * reads a summary and of how much; when there is no summariser, the overflow is under the
 * threshold, or the model cannot be reached, the result is cut with `smart` instead, and
 * `summaryError` says why (the threshold is a choice, not a failure: nothing is said).
 */
export async function shortenResult(text: string, limit: number, tool: Tool, options: ShortenOptions): Promise<Shortened> {
  const originalTokens = estimateTokens(text);
  if (originalTokens <= limit) return { text, truncated: false, originalTokens };
  if (tool.truncation !== 'summarize') return truncateResult(text, limit, tool.truncation);
  const cut = (why?: string): Shortened => ({ ...truncateResult(text, limit, 'smart'), ...(why ? { summaryError: why } : {}) });
  if (options.threshold !== undefined && originalTokens < options.threshold) return cut();
  if (!options.summarise) return cut('no model to summarise with: the catalog has no budget.summarize');
  if (options.signal.aborted) return cut('the turn was cancelled');
  let answer: Awaited<ReturnType<Summariser>>;
  try {
    answer = await options.summarise({ tool: tool.name, text, maxTokens: limit }, options.signal);
  } catch (error) {
    answer = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!answer.ok) return cut(answer.reason);
  const summary = answer.text.trim();
  if (!summary) return cut('the summarising model answered with nothing');
  const wrap = (s: string) => JSON.stringify({ _summarized: true, _original_tokens: originalTokens, summary: s });
  let wrapped = wrap(summary);
  // A summary longer than asked for is cut to fit, and says so.
  // (Escapes make JSON longer than its text: shrink until it fits, or nothing of the summary is left.)
  for (let room = limit * CHARS_PER_TOKEN - wrap('').length - 40; estimateTokens(wrapped) > limit; room = Math.floor(room * 0.8)) {
    if (room < 16) return cut(`the summary did not fit in ${limit} tokens`);
    wrapped = wrap(`${summary.slice(0, room)}… [summary cut to the limit]`);
  }
  return { text: wrapped, truncated: true, originalTokens, summarized: true };
}
