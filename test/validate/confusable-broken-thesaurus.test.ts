import { describe, expect, it, vi } from 'vitest';

// A damaged WordNet installation: every question to the thesaurus throws.
vi.mock('../../src/validate/word-relations.js', () => ({
  wordRelations: () => ({
    kin: () => {
      throw new Error('WordNet data.noun: no line end after offset 12');
    },
    opposites: () => {
      throw new Error('damaged');
    },
    sameMeaning: () => {
      throw new Error('damaged');
    },
  }),
}));

const { confusablePairs } = await import('../../src/validate/confusable-pairs.js');
const tool = (name: string, description: string, params: string[]) => ({ name, description, parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) } });

describe('TM1001 with a damaged thesaurus', () => {
  it('stays lexical (the pairs it finds without WordNet) and never throws', () => {
    const tools = [
      tool('search_orders', "Search the customer's orders by keyword and return the matching orders.", ['query']),
      tool('find_orders', 'Find orders of the customer that match a keyword and return them.', ['query']),
      tool('average_rainfall', 'Get the average rainfall of a region over a number of months.', ['region', 'months']),
      tool('mean_rainfall', 'Return the mean rainfall for a region across some months.', ['region', 'months']),
    ];
    const pairs = confusablePairs(tools).map((p) => `${p.a} ~ ${p.b}`);
    expect(pairs).toContain('search_orders ~ find_orders');
    expect(pairs).toEqual(confusablePairs(tools, { thesaurus: false }).map((p) => `${p.a} ~ ${p.b}`));
  });
});
