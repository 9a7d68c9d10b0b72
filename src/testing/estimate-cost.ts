import type { ToolManager } from '../manager/tool-manager.js';
import { costOf } from './prices.js';
import type { Prices, ProviderTarget, Suite, SuiteCase } from './suite-types.js';

/** Output tokens assumed per round: a tool call or a short answer. */
export const ASSUMED_OUTPUT_PER_ROUND = 150;

export interface CostEstimate {
  runs: number;
  input_tokens: number;
  output_tokens: number;
  /** Dollars; null when some model has no price (then `unpriced` names them). */
  usd: number | null;
  unpriced: string[];
  method: string;
}

/** Rounds a case is expected to take: its bound if it gives one, else one per expected call plus the answer. */
function assumedRounds(testCase: SuiteCase, maxRounds: number): number {
  const expectations = [testCase.expect, ...testCase.turns.map((t) => t.expect)];
  const bound = expectations.map((e) => e?.rounds?.max).find((n) => n !== undefined);
  const calls = expectations.reduce((n, e) => n + (e?.calls?.length ?? 0), 0);
  return Math.min(maxRounds, bound ?? Math.max(testCase.turns.length, calls + testCase.turns.length));
}

/**
 * What a live run should cost, before it starts: toolman's own count of each case's first request
 * (tools, system prompt, the user's message: the part that repeats every round; the tools and
 * system prompt counted once per profile, each message's share at 4 characters a token), times the rounds
 * the case is expected to take, plus ASSUMED_OUTPUT_PER_ROUND output tokens a round, times the
 * repeats, at list prices. Later rounds also carry the results so far, so it errs low.
 */
export async function estimateCost(manager: ToolManager, suite: Suite, targets: readonly ProviderTarget[], prices: Prices, options: { baseUrl?: string } = {}): Promise<CostEstimate> {
  let input = 0;
  let output = 0;
  let usd = 0;
  let runs = 0;
  const unpriced = new Set<string>();
  for (const target of targets) {
    const counts = new Map<string, { tokens: number; prompt: string }>();
    for (const testCase of suite.cases) {
      const profile = testCase.profile ?? suite.profile;
      const system = testCase.system ?? suite.system;
      // The tools and system prompt repeat in every case: counted once per profile, system prompt
      // and forced tools, each case's own message then told apart at 4 characters a token
      // (counting all of a 126-tool catalog's tools again for each of 100 cases took most of a
      // shard's start-up).
      const prompt = testCase.turns[0]!.prompt;
      const key = `${profile ?? ''}\u0000${system ?? ''}\u0000${testCase.force.join(',')}`;
      let counted: number;
      const known = counts.get(key);
      if (known) counted = Math.max(1, known.tokens + Math.round((prompt.length - known.prompt.length) / 4));
      else {
        // The case's first request as its run would send it (the same conversation path), counted, never sent.
        const conversation = await manager.conversation({ provider: target.provider, model: target.model, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), ...(profile ? { profile } : {}), force: testCase.force, ...(system ? { system } : {}), stream: false });
        try {
          counted = (await conversation.estimateTurn(prompt)) ?? 0;
        } finally {
          conversation.close();
        }
        counts.set(key, { tokens: counted, prompt });
      }
      const rounds = assumedRounds(testCase, suite.maxRounds ?? manager.catalog.limits.max_rounds);
      const caseInput = counted * rounds * testCase.repeat;
      const caseOutput = ASSUMED_OUTPUT_PER_ROUND * rounds * testCase.repeat;
      input += caseInput;
      output += caseOutput;
      runs += testCase.repeat;
      const cost = costOf(target.model, prices, caseInput, caseOutput);
      if (cost === null) unpriced.add(target.model);
      else usd += cost;
    }
  }
  return {
    runs,
    input_tokens: input,
    output_tokens: output,
    usd: unpriced.size ? null : usd,
    unpriced: [...unpriced],
    method: `toolman's count of each case's first request (tools and system prompt counted once per profile) x expected rounds + ${ASSUMED_OUTPUT_PER_ROUND} output tokens a round, x repeats`,
  };
}
