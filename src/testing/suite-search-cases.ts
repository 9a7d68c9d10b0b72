import type { SearchCase } from '../search/search-metrics.js';
import type { Suite } from './suite-types.js';

/**
 * A suite as labelled retrieval queries, to measure search without any model: each prompt whose
 * expectations name tools is a query, and those tools are its gold set. A one-turn case uses its
 * case-level and turn-level expectations; in a conversation, each turn with its own expectation
 * is a query (the case-level one spans turns, so it labels none).
 */
export function suiteSearchCases(suite: Suite): SearchCase[] {
  const cases: SearchCase[] = [];
  for (const testCase of suite.cases) {
    testCase.turns.forEach((turn, i) => {
      const expectations = [turn.expect, ...(testCase.turns.length === 1 ? [testCase.expect] : [])];
      const gold = [...new Set(expectations.flatMap((e) => e?.calls?.map((c) => c.tool) ?? []))];
      if (gold.length) cases.push({ id: testCase.turns.length === 1 ? testCase.name : `${testCase.name} #${i + 1}`, query: turn.prompt, gold });
    });
  }
  return cases;
}
