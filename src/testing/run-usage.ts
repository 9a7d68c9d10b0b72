import type { SideUsage, TurnSummary } from '../loop/loop-events.js';
import { ownUsage } from '../conversation/side-models.js';
import { costOf } from './prices.js';
import type { Prices } from './suite-types.js';

/** Defined with the side calls it leaves out (conversation/side-models.ts); a run's usage reads it here. */
export { ownUsage };

/** A run's side calls for one provider and model, priced at that model's price (null: no price, or calls that reported no usage). */
export interface RunSideUsage extends SideUsage {
  cost_usd: number | null;
}

/**
 * A run's tokens. `input`, `output` and `cached` are every request's as the APIs reported them,
 * the side calls' (a long result's summary, a rubric's grade) included; `side` is their part per
 * provider and model. `estimated_input` is toolman's count of the conversation's own requests,
 * and `reported` whether the conversation's model reported usage (side calls aside).
 */
export interface RunUsage {
  input: number;
  output: number;
  cached: number;
  estimated_input: number;
  reported: boolean;
  side: RunSideUsage[];
}

export function emptyUsage(): RunUsage {
  return { input: 0, output: 0, cached: 0, estimated_input: 0, reported: false, side: [] };
}

/**
 * A run's (or a turn's) input tokens in all: what the APIs reported, with toolman's count of the
 * conversation's own requests standing in where its API reported none (then `input` holds the
 * side calls' alone). `tokens:` expectations, reports, `--compare` and baselines read this.
 */
export function inputTokens(usage: Pick<RunUsage, 'input' | 'estimated_input' | 'reported'>): number {
  return usage.input + (usage.reported ? 0 : usage.estimated_input);
}


/** One turn's usage as a run counts it (its `tokens:` expectations read it). */
export function turnUsage(summary: TurnSummary): RunUsage {
  const usage = emptyUsage();
  addTurnUsage(usage, summary);
  return usage;
}

/** Adds a turn's usage to a run's: the totals, toolman's count, and the side calls merged per provider and model. */
export function addTurnUsage(usage: RunUsage, summary: TurnSummary): void {
  const turn = summary.usage;
  const side = turn.side ?? [];
  usage.input += turn.input;
  usage.output += turn.output;
  usage.cached += turn.cached;
  // Where the conversation's API reported usage toolman may not have counted (ChatLoopOptions.estimate).
  usage.estimated_input += turn.estimated_input ?? 0;
  const own = ownUsage({ ...turn, side });
  usage.reported ||= own.input + own.output > 0;
  for (const s of side) {
    const entry = usage.side.find((e) => e.provider === s.provider && e.model === s.model);
    if (!entry) usage.side.push({ ...s, cost_usd: null });
    else {
      entry.calls += s.calls;
      entry.input += s.input;
      entry.output += s.output;
      entry.cached += s.cached;
      entry.unreported += s.unreported;
    }
  }
}

/**
 * A run's cost in dollars: the conversation's own requests at its model's price, and each side
 * call's at its own model's (set on each `side` entry). Null when the conversation's model
 * reported no usage, or some model has no price, or a side call reported no usage: a cost that
 * leaves out part of what was spent is not given.
 */
export function runCost(model: string, prices: Prices, usage: RunUsage): number | null {
  let total: number | null = null;
  if (usage.reported) {
    const own = ownUsage(usage);
    total = costOf(model, prices, own.input, own.output, own.cached);
  }
  for (const s of usage.side) {
    s.cost_usd = s.unreported ? null : costOf(s.model, prices, s.input, s.output, s.cached);
    total = total === null || s.cost_usd === null ? null : total + s.cost_usd;
  }
  return total;
}

/** Why a run has no cost (`runCost` gave null), for the report's `cost_missing`. */
export function whyNoCost(run: { model: string; usage: Pick<RunUsage, 'reported' | 'side'> }): string {
  if (!run.usage.reported) return 'no usage reported';
  const side = run.usage.side.find((s) => s.cost_usd === null);
  if (!side) return `no price for ${run.model}`;
  return side.unreported ? `no usage reported by side calls to ${side.model}` : `no price for ${side.model} (side calls)`;
}
