// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import { initialState, reduce, type ReplAction } from '../../src/repl/repl-state.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { startRepl } from './harness.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

describe('the REPL shows sources, summaries and verdicts', () => {
  it('over a real conversation: a panel says summarized and how many sources; the answer is followed by its sources and the verdicts', async () => {
    server.script([
      { toolCalls: [{ name: 'web_search', arguments: { query: 'leave' } }, { name: 'read_page', arguments: { url: 'https://example.org/a' } }] },
      { text: 'Leave: 20 weeks, fully paid.', usage: { input: 4802, output: 60 } },
      { text: 'Twenty weeks, fully paid [1].' },
      { text: '{"verdict": "fail", "reason": "it leaves out the 12 months"}', usage: { input: 312, output: 8 } },
    ]);
    const h = await startRepl(server, { catalog: 'test/fixtures/catalogs/result-powers.yaml' });
    try {
      await h.send('What is the leave policy?');
      await h.idle();
      await h.waitFor('evaluation grounded failed');
      const frame = h.frame();
      expect(frame).toMatch(/\[1 source\]/);
      expect(frame).toMatch(/\[summarized from ~\d+ tokens\]/);
      expect(frame).toMatch(/sources\n\[1\] +Example — https:\/\/example\.org\/a/);
      expect(frame).toContain("✓ evaluation result_shape on web_search's result passed");
      expect(frame).toContain('error: evaluation grounded failed: it leaves out the 12 months');
      expect(frame).toContain('✓ evaluation no_email passed');
      // The verdicts come after the answer and its sources.
      expect(frame.indexOf('Twenty weeks, fully paid [1].')).toBeLessThan(frame.indexOf('sources'));
      expect(frame.indexOf('sources')).toBeLessThan(frame.indexOf('evaluation grounded'));
      // The summary and the grade are paid for: the status line shows them apart from the conversation's tokens.
      await h.waitFor('side calls 2: 5,114 in, 68 out');
    } finally {
      await h.close();
    }
  });

  it('a take-control answer comes before its sources and verdicts too (they wait for done)', () => {
    const ev = (event: LoopEvent): ReplAction => ({ type: 'event', event, now: 0 });
    const state = [
      { type: 'turn_begin' } as ReplAction,
      ev({ type: 'evaluations', round: 1, verdicts: [{ name: 'grounded', verdict: 'error', on: 'answer', tools: ['deep_research'], reason: 'no model to grade the rubric with' }] }),
      ev({ type: 'done', stop: 'took_control', answer: 'The report [1].', rounds: 1, took_control: 'deep_research', references: [{ n: 1, url: 'https://e.org/s', tool: 'deep_research', call_id: 'c1' }], usage: { input: 0, output: 0, cached: 0, estimated_input: null, side: [] } }),
    ].reduce(reduce, initialState({ provider: 'openai', model: 'm', profile: 'full', active: 1, deferred: 0, found: 0, forced: [], budget: null, search: 'client', yes: false }));
    expect(state.items.map((i) => i.kind)).toEqual(['assistant', 'output', 'note']);
    expect(state.items[2]).toMatchObject({ level: 'warning', text: 'evaluation grounded could not be decided: no model to grade the rubric with' });
    expect(state.verdicts).toEqual([]);
  });
});
