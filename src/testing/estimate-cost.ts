import type { Catalog, Tool } from '../catalog/types.js';
import { DEFAULT_SUMMARY_PROMPT } from '../conversation/result-summariser.js';
import { graderModel, graderSystem } from '../conversation/rubric-grader.js';
import type { ToolManager } from '../manager/tool-manager.js';
import { costOf } from './prices.js';
import type { Prices, ProviderTarget, Suite, SuiteCase } from './suite-types.js';

/** Output tokens assumed per round: a tool call or a short answer. */
export const ASSUMED_OUTPUT_PER_ROUND = 150;

export interface CostEstimate {
  runs: number;
  /** Every request's, the side calls' included. */
  input_tokens: number;
  output_tokens: number;
  /** The side calls expected (summaries, rubric grades: sideCalls) and their part of the tokens. */
  side: { calls: number; input_tokens: number; output_tokens: number };
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

/** A grade's output: one line of JSON. */
const ASSUMED_GRADE_OUTPUT = 30;

/** One model call beside the conversation's a case is expected to make. */
interface SideCall {
  model: string;
  input: number;
  output: number;
}

/**
 * The side calls a case is expected to make, turn by turn, from the tools its expectations name
 * (`calls:`): one summary per expected call of a `truncation: summarize` tool (its result taken
 * at its limit, the least a summarised result is; the summary as long as the limit allows), and
 * one grade per rubric those tools list (the grader reading the rubric, the message, each expected
 * result at its limit and an answer of ASSUMED_OUTPUT_PER_ROUND tokens). Tools a case does not
 * name, and results longer than their limit, are not foreseen: like the rest, it errs low.
 */
function sideCalls(catalog: Catalog, tools: ReadonlyMap<string, Tool>, testCase: SuiteCase, target: ProviderTarget, resolve: (name: string) => string | undefined): SideCall[] {
  const calls: SideCall[] = [];
  const tokens = (text: string) => Math.ceil(text.length / 4);
  const summarize = catalog.budget.summarize;
  testCase.turns.forEach((turn, i) => {
    // The case's own expectations are checked after its last turn: their calls are counted there.
    const expected = [...(turn.expect?.calls ?? []), ...(i === testCase.turns.length - 1 ? (testCase.expect?.calls ?? []) : [])];
    const used = expected.map((c) => tools.get(resolve(c.tool) ?? c.tool)).filter((t): t is Tool => t !== undefined);
    const limitOf = (tool: Tool) => Math.min(tool.maxResultTokens, catalog.budget.per_result ?? Infinity);
    for (const tool of used) {
      if (tool.truncation !== 'summarize' || !summarize) continue;
      const limit = limitOf(tool);
      calls.push({ model: summarize.model, input: Math.max(limit, summarize.threshold ?? 0) + tokens(summarize.prompt ?? DEFAULT_SUMMARY_PROMPT) + 20, output: limit });
    }
    const results = used.reduce((n, t) => n + limitOf(t), 0);
    const rubrics = new Set(used.flatMap((t) => t.evaluation ?? []));
    for (const name of rubrics) {
      const definition = catalog.evaluations.get(name);
      if (definition?.kind !== 'rubric') continue;
      const { model } = graderModel(definition, target);
      calls.push({ model, input: tokens(graderSystem(definition) + turn.prompt) + results + ASSUMED_OUTPUT_PER_ROUND + 40, output: ASSUMED_GRADE_OUTPUT });
    }
  });
  return calls;
}

/**
 * What a live run should cost, before it starts: toolman's own count of each case's first request
 * (tools, system prompt, the user's message: the part that repeats every round; the tools and
 * system prompt counted once per profile, each message's share at 4 characters a token), times the rounds
 * the case is expected to take, plus ASSUMED_OUTPUT_PER_ROUND output tokens a round, times the
 * repeats, at list prices, with the side calls each case is expected to make (`sideCalls`) at
 * their own models' prices. Later rounds also carry the results so far, so it errs low.
 */
export async function estimateCost(manager: ToolManager, suite: Suite, targets: readonly ProviderTarget[], prices: Prices, options: { baseUrl?: string } = {}): Promise<CostEstimate> {
  let input = 0;
  let output = 0;
  let usd = 0;
  let runs = 0;
  const unpriced = new Set<string>();
  const side = { calls: 0, input_tokens: 0, output_tokens: 0 };
  const tools = new Map(manager.catalog.tools.map((t) => [t.name, t]));
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
      for (const call of sideCalls(manager.catalog, tools, testCase, target, (name) => manager.catalogName(name))) {
        const callInput = call.input * testCase.repeat;
        const callOutput = call.output * testCase.repeat;
        side.calls += testCase.repeat;
        side.input_tokens += callInput;
        side.output_tokens += callOutput;
        input += callInput;
        output += callOutput;
        const callCost = costOf(call.model, prices, callInput, callOutput);
        if (callCost === null) unpriced.add(call.model);
        else usd += callCost;
      }
    }
  }
  return {
    runs,
    input_tokens: input,
    output_tokens: output,
    side,
    usd: unpriced.size ? null : usd,
    unpriced: [...unpriced],
    method: `toolman's count of each case's first request (tools and system prompt counted once per profile) x expected rounds + ${ASSUMED_OUTPUT_PER_ROUND} output tokens a round, x repeats${side.calls ? `; with ${side.calls} side call${side.calls === 1 ? '' : 's'} (summaries, rubric grades) of the tools the cases expect, at their models' prices` : ''}`,
  };
}
