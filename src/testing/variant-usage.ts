import type { Variant } from './compare-runs.js';
import type { RunResult } from './run-suite.js';
import { ownUsage } from './run-usage.js';

/** A variant's provider-reported usage per provider: what its loading strategy does to prompt caching, and what a run costs. */
export interface VariantUsage {
  label: string;
  spec: string;
  providers: {
    provider: string;
    /** Runs that ran. */
    runs: number;
    /** Input tokens the provider reported for the conversations' own requests over those runs (runs that reported none are left out; side calls are not in it). */
    input: number;
    /** Of them, read from the provider's prompt cache (OpenAI's cached_tokens, Anthropic's cache_read_input_tokens). */
    cached: number;
    /** cached / input; null when no run reported usage. */
    cached_share: number | null;
    /** Mean dollars per run over the runs with a cost (at list input prices: cached tokens are not discounted unless the price row says so). */
    cost_per_run: number | null;
    priced_runs: number;
  }[];
}

/**
 * Usage per variant and provider. Every provider client puts cached tokens inside `input` (OpenAI
 * counts them there; Anthropic's cache reads and writes are added to it), so the share is
 * cached / input on the same footing for all.
 */
export function variantUsage(variant: Variant, results: readonly RunResult[]): VariantUsage {
  const providers = [...new Set(results.map((r) => r.provider))].map((provider) => {
    const runs = results.filter((r) => r.provider === provider && r.error === null);
    const reported = runs.filter((r) => r.usage.reported);
    // The conversation's own requests: what the variant's loading does to the cache (side calls are other prompts, to other models).
    const input = reported.reduce((n, r) => n + ownUsage(r.usage).input, 0);
    const cached = reported.reduce((n, r) => n + ownUsage(r.usage).cached, 0);
    const priced = runs.filter((r) => r.cost_usd !== null);
    return {
      provider,
      runs: runs.length,
      input,
      cached,
      cached_share: reported.length && input > 0 ? cached / input : null,
      cost_per_run: priced.length ? priced.reduce((n, r) => n + r.cost_usd!, 0) / priced.length : null,
      priced_runs: priced.length,
    };
  });
  return { label: variant.label, spec: variant.spec, providers };
}
