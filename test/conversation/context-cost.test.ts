import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { countRequest } from '../../src/tokens/count-request.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const env = () => ({ OPENAI_API_KEY: 'sk-context-test-key', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: 'sk-ant-context-key', ANTHROPIC_BASE_URL: server.url });

describe('what the next request costs, by part', () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    it(`${provider}: the parts add up to the next request as the loop sends it (counted alike); the history grows with the conversation`, async () => {
      const manager = await ToolManager.open({ catalogs: ['test/repl/fixtures/repl.yaml'], cwd: ROOT, env: env(), requireValid: 'all' });
      try {
        const conversation = await manager.conversation({ provider, model: provider === 'openai' ? 'gpt-4o' : 'claude-sonnet-5', system: 'You are terse.' });
        const before = await conversation.contextCost();
        expect(before.parts.find((p) => p.kind === 'history')).toMatchObject({ tokens: 0, count: 0 });
        server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo, cloudy.' }]);
        await conversation.run('Weather in Oslo?');
        const cost = await conversation.contextCost();
        const kinds = cost.parts.map((p) => p.kind);
        expect(kinds[0]).toBe('system');
        expect(kinds.at(-1)).toBe('history');
        expect(cost.parts.filter((p) => p.kind === 'tool').map((p) => p.name)).toEqual(expect.arrayContaining(['get_weather', 'delete_event']));
        expect(cost.parts.find((p) => p.kind === 'meta')?.name).toBe('tool_search');
        expect(cost.parts.find((p) => p.kind === 'history')).toMatchObject({ count: 4 });
        expect(cost.parts.find((p) => p.kind === 'history')!.tokens).toBeGreaterThan(20);
        expect(cost.total).toBe(cost.parts.reduce((a, p) => a + p.tokens, 0));
        // The same body counted whole: what the loop sends next, but the new message.
        const sent = server.requests.at(-1)!.body as Record<string, unknown>;
        const { stream: _s, stream_options: _o, ...body } = sent;
        // The last request held the history up to the tool result; the next one holds the answer too.
        const whole = await countRequest(provider, body, cost.model);
        expect(cost.total).toBeGreaterThan(whole.tokens);
        expect(cost.total - whole.tokens).toBeLessThan(40);
        expect(cost.deferred).toMatchObject({ tools: 1 });
        expect(cost.deferred.tokens).toBeGreaterThan(10);
        // An estimate says why (Claude has no public tokenizer; tool calls in a history have no measured rule).
        expect(cost.estimate).toBe(true);
        expect(cost.reasons.length).toBeGreaterThan(0);
        conversation.close();
      } finally {
        await manager.close();
      }
    });
  }
});
