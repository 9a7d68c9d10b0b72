import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentLoopEvent } from '../../src/agents/agent-host.js';
import type { ApprovalRequest, Approver, CallEvent } from '../../src/execute/types.js';
import { ChatLoop } from '../../src/loop/chat-loop.js';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { createModelClient } from '../../src/providers/model-clients.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

const KEY = 'sk-test-local-agent-key';
let server: ModelServer;
let manager: ToolManager;
const agentEvents: AgentLoopEvent[] = [];
beforeAll(async () => {
  server = await startModelServer();
  manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/agents-local.yaml'], cwd: ROOT, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }, requireValid: 'all' });
  manager.onAgentEvent((event) => agentEvents.push(event));
});
afterAll(async () => {
  await manager.close();
  await server.close();
});

async function call(name: string, task: string, approve?: Approver) {
  const events: CallEvent[] = [];
  const session = await manager.session({ onEvent: (e) => events.push(e) });
  const turn = await session.runTurn([{ id: 'c1', name, arguments: { task } }], approve ? { approve } : {});
  return { response: turn.responses[0]!, progress: events.filter((e) => e.type === 'tool_progress').map((e) => (e as { message: string }).message) };
}

describe('local agents', () => {
  it('runs a nested loop that calls its own tool and answers', async () => {
    server.requests.length = 0;
    agentEvents.length = 0;
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const { response, progress } = await call('helper', 'How cold is Oslo?');
    expect(response).toMatchObject({ ok: true, content: 'It is 3 °C in Oslo.' });
    expect(progress).toEqual(['calling get_weather({"city":"Oslo"})']);
    // Its own system prompt, its profile's tools, the task as the user's message, the key it was given.
    const first = server.requests[0]!;
    expect(JSON.stringify(first.body.messages)).toContain('You answer weather questions in one sentence.');
    expect(first.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['get_weather']);
    expect(first.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'How cold is Oslo?' });
    expect(first.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('temp_c');
    // Every event of the nested loop reaches the manager's listeners, marked with the agent and the parent's call.
    expect(agentEvents.length).toBeGreaterThan(5);
    expect(agentEvents.every((e) => e.agent === 'helper' && e.call_id === 'c1' && e.depth === 1)).toBe(true);
    expect(agentEvents.map((e) => e.event.type)).toContain('tool_result');
    expect(agentEvents.at(-1)!.event).toMatchObject({ type: 'done', stop: 'done' });
  });

  it("asks the parent's driver before its own destructive calls, saying which agent asks", async () => {
    const asked: ApprovalRequest[] = [];
    const cancel = { toolCalls: [{ id: 'n1', name: 'cancel_booking', arguments: { id: 'b7' } }] };
    server.script([cancel, { text: 'Booking b7 is cancelled.' }]);
    const approved = await call('booker', 'Cancel booking b7', async (request) => (asked.push(request), 'approve'));
    expect(approved.response).toMatchObject({ ok: true, content: 'Booking b7 is cancelled.' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ callId: 'c1/n1', tool: { name: 'cancel_booking' }, arguments: { id: 'b7' }, reason: 'cancel_booking is destructive; asked by the sub-agent booker' });
    expect(approved.progress).toEqual(['calling cancel_booking({"id":"b7"})']);

    // Declined by the user: the nested model is told, and the tool never ran.
    server.requests.length = 0;
    server.script([cancel, { text: 'I could not cancel it.' }]);
    const declined = await call('booker', 'Cancel booking b7', async () => 'decline');
    expect(declined.response).toMatchObject({ ok: true, content: 'I could not cancel it.' });
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('the user declined to run cancel_booking');

    // "Always" holds for the parent's session: the next agent call in it does not ask again.
    const session = await manager.session();
    let questions = 0;
    const always: Approver = async () => (questions++, 'always');
    for (const id of ['b8', 'b9']) {
      server.script([{ toolCalls: [{ name: 'cancel_booking', arguments: { id } }] }, { text: `Booking ${id} is cancelled.` }]);
      const turn = await session.runTurn([{ id: 'c1', name: 'booker', arguments: { task: `Cancel booking ${id}` } }], { approve: always });
      expect(turn.responses[0]).toMatchObject({ ok: true, content: `Booking ${id} is cancelled.` });
    }
    expect(questions).toBe(1);

    // Nobody to ask: declined, as at the top level.
    server.requests.length = 0;
    server.script([cancel, { text: 'Nobody approved it.' }]);
    await call('booker', 'Cancel booking b7');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('the user declined to run cancel_booking');
  });

  it('stops at max_rounds with a tool error that says so', async () => {
    const city = (c: string) => ({ toolCalls: [{ name: 'get_weather', arguments: { city: c } }], text: `Checking ${c}.` });
    server.script([city('Oslo'), city('Rome'), city('Lima'), { text: 'never reached' }]);
    const { response } = await call('helper', 'Compare three cities');
    expect(response).toMatchObject({ ok: false, error_kind: 'tool_error', error: 'helper stopped after 3 rounds (its local.max_rounds) without a final answer; it had said: Checking Lima.' });
  });

  it('names the variable when the provider key is missing', async () => {
    const { response } = await call('keyless', 'anything');
    expect(response).toMatchObject({
      ok: false,
      error_kind: 'tool_error',
      error: 'keyless is a local agent on Anthropic and needs ANTHROPIC_API_KEY: set ANTHROPIC_API_KEY in the environment (or give local.base_url for a local server)',
    });
  });

  it('refuses an agent that calls itself, and the nested model is told', async () => {
    server.requests.length = 0;
    server.script([{ toolCalls: [{ name: 'looper', arguments: { task: 'again' } }] }, { text: 'I could not go deeper.' }]);
    const { response, progress } = await call('looper', 'go deep');
    expect(response).toMatchObject({ ok: true, content: 'I could not go deeper.' });
    expect(progress).toContain('looper failed: looper refused: it is already running in this chain (looper → looper); an agent cannot call itself');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('an agent cannot call itself');
  });

  it('refuses agents nested past the depth limit, and the chain goes on', async () => {
    const next = (name: string) => ({ toolCalls: [{ name, arguments: { task: 'deeper' } }] });
    server.script([next('chain_b'), next('chain_c'), next('chain_d'), { text: 'c done' }, { text: 'b done' }, { text: 'a done' }]);
    const { response, progress } = await call('chain_a', 'go deep');
    expect(response).toMatchObject({ ok: true, content: 'a done' });
    // c's refusal reaches a's caller through b, each level naming who said it.
    expect(progress).toContain('chain_b: chain_c: chain_d failed: chain_d refused: agents are already nested 3 deep (chain_a → chain_b → chain_c); the limit is 3');
  });

  it('reports a failing model as a tool error', async () => {
    server.script([{ status: 401 }]);
    const { response } = await call('helper', 'How cold is Oslo?');
    expect(response.ok).toBe(false);
    expect(response.error).toMatch(/^helper failed: /);
    expect(response.error).not.toContain(KEY);
  });

  it("counts the nested loop's tokens into the parent turn's usage, under the agent's model", async () => {
    server.script([
      { toolCalls: [{ name: 'helper', arguments: { task: 'How cold is Oslo?' } }], usage: { input: 100, output: 10 } },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 40, output: 5, cached: 8 } },
      { text: 'It is 3 °C in Oslo.', usage: { input: 50, output: 7 } },
      { text: 'Oslo: 3 °C.', usage: { input: 120, output: 4 } },
    ]);
    const conversation = await manager.conversation({ model: 'parent-model' });
    try {
      const summary = await conversation.run('Weather in Oslo?');
      expect(summary.answer).toBe('Oslo: 3 °C.');
      // Its own two requests (100 + 120 in), the helper's two (40 + 50) as side usage on its model.
      expect(summary.usage).toMatchObject({ input: 310, output: 26, cached: 8 });
      expect(summary.usage.side).toEqual([{ provider: 'openai', model: 'test-model', calls: 2, input: 90, output: 12, cached: 8, unreported: 0 }]);
    } finally {
      conversation.close();
    }
  });

  it('takes control in a parent loop: its report is the answer, its calls are the parent\'s progress', async () => {
    server.script([
      { toolCalls: [{ name: 'researcher', arguments: { task: 'Weather report for Oslo' } }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Report: Oslo is at 3 °C.' },
    ]);
    const client = await createModelClient('openai', 'test-model', { apiKey: 'test', baseUrl: `${server.url}/v1` });
    const session = await manager.session();
    const loop = new ChatLoop({ client, session, stream: true });
    const events: LoopEvent[] = [];
    const summary = await loop.run('Research the weather in Oslo', { onEvent: (e) => events.push(e) });
    expect(summary).toMatchObject({ stop: 'took_control', rounds: 1, answer: 'Report: Oslo is at 3 °C.' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_progress', name: 'researcher', message: 'calling get_weather({"city":"Oslo"})', round: 1 }));
  });
});
