import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationVerdict } from '../../src/execute/types.js';
import { ChatLoop } from '../../src/loop/chat-loop.js';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import type { RubricGrader } from '../../src/loop/turn-evaluations.js';
import { SOURCES_HEADING } from '../../src/loop/turn-references.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { createModelClient } from '../../src/providers/model-clients.js';
import { CITATION_PROMPT } from '../../src/providers/prompt-contributions.js';
import { startModelServer, type ModelServer, type ScriptedReply } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

let server: ModelServer;
let manager: ToolManager;
beforeAll(async () => {
  server = await startModelServer();
  manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/result-powers.yaml'], cwd: ROOT, env: { TOOLMAN_CACHE_DIR: 'off' } });
});
afterAll(async () => {
  await server.close();
  await manager.close();
});

async function turn(script: ScriptedReply[], options: { grade?: RubricGrader; signal?: AbortSignal } = {}) {
  server.script(script);
  server.requests.length = 0;
  const client = await createModelClient('openai', 'test-model', { apiKey: 'test', baseUrl: `${server.url}/v1` });
  const session = await manager.session({ summarise: async () => ({ ok: true, text: 'Leave: 20 weeks, paid.' }) });
  const loop = new ChatLoop({ client, session, estimate: 'never', ...(options.grade ? { grade: options.grade } : {}) });
  const events: LoopEvent[] = [];
  const summary = await loop.run('What is the leave policy?', { onEvent: (e) => events.push(e), ...(options.signal ? { signal: options.signal } : {}) });
  return { summary, events, requests: server.requests };
}

const search = (query: string, id?: string) => ({ ...(id ? { id } : {}), name: 'web_search', arguments: { query } });
const pass: RubricGrader = async () => ({ verdict: 'pass' });

describe('references: the loop numbers each turn\'s sources and the model reads them', () => {
  it('appends the numbered sources to the result the model gets, keeps one number per URL, and lists them in done and the summary', async () => {
    const { summary, events, requests } = await turn([{ toolCalls: [search('leave', 'c1')] }, { toolCalls: [search('second', 'c2')] }, { text: 'Twenty weeks [1], see also [2].' }], { grade: pass });
    expect(summary.references).toEqual([
      { n: 1, url: 'https://example.org/a', title: 'Example', snippet: 'An example.', tool: 'web_search', call_id: 'c1' },
      { n: 2, url: 'https://example.org/b', title: 'Other', tool: 'web_search', call_id: 'c2' },
    ]);
    // The second search's result lists its sources with the turn's numbers: b is new (2), a keeps 1.
    expect(summary.calls[1]!.content).toContain(`${SOURCES_HEADING}\n[2] Other — https://example.org/b\n[1] Example — https://example.org/a`);
    const sent = JSON.stringify(requests[2]!.body.messages);
    expect(sent).toContain('[1] Example — https://example.org/a');
    const done = events.find((e) => e.type === 'done');
    expect(done).toMatchObject({ type: 'done', references: summary.references });
    // The tool_result events carry the numbered response the model got.
    const results = events.filter((e) => e.type === 'tool_result').map((e) => (e as Extract<LoopEvent, { type: 'tool_result' }>).response);
    expect(results[1]!.references!.map((r) => r.n)).toEqual([2, 1]);
    // How to cite is said once, in the system prompt, because a tool offered has references.
    expect(JSON.stringify(requests[0]!.body.messages[0])).toContain(CITATION_PROMPT.slice(0, 40));
  });

  it('a turn without sources has none, and done says nothing of them', async () => {
    const { summary, events } = await turn([{ text: 'Hello.' }]);
    expect(summary.references).toEqual([]);
    expect(events.find((e) => e.type === 'done')).not.toHaveProperty('references');
  });
});

describe('evaluations: after a turn that used a tool listing them, the checks run', () => {
  it('result checks on each result, answer checks once however many tools list them, rubrics by the grader', async () => {
    const graded: { rubric: string; results: number; answer: string }[] = [];
    const grade: RubricGrader = async (definition, turnSeen) => {
      graded.push({ rubric: definition.rubric, results: turnSeen.results.length, answer: turnSeen.answer });
      return { verdict: 'fail', reason: 'the answer says 30 weeks' };
    };
    const { summary, events } = await turn([{ toolCalls: [search('leave'), { name: 'read_page', arguments: { url: 'https://example.org/a' } }] }, { text: 'It is 30 weeks; write to hr@example.com.' }], { grade });
    const verdicts = summary.evaluations.map((v) => [v.name, v.on, v.verdict]);
    expect(verdicts).toEqual([
      ['result_shape', 'result', 'pass'],
      ['no_email', 'answer', 'fail'],
      ['grounded', 'answer', 'fail'],
      ['mentions_leave', 'answer', 'fail'],
    ]);
    expect(summary.evaluations.find((v) => v.name === 'grounded')).toMatchObject({ tools: ['web_search', 'read_page'], reason: 'the answer says 30 weeks' });
    // One grade for the two tools that list it; it saw both results and the answer.
    expect(graded).toEqual([{ rubric: 'Every statement of fact in the answer is supported by the tool results.', results: 2, answer: 'It is 30 weeks; write to hr@example.com.' }]);
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf('evaluations')).toBe(kinds.length - 2);
    expect((events.at(-2) as { verdicts: EvaluationVerdict[] }).verdicts).toEqual(summary.evaluations);
  });

  it('a result check sees the whole result, before its truncation; a result that fails it says where', async () => {
    const { summary } = await turn([{ toolCalls: [search('broken')] }, { text: 'Nothing found.' }], { grade: pass });
    expect(summary.evaluations.find((v) => v.name === 'result_shape')).toMatchObject({ verdict: 'fail', on: 'result', tools: ['web_search'], reason: expect.stringContaining('result.results must be array') });
  });

  it('without a grader a rubric is undecided (error), never a pass', async () => {
    const { summary } = await turn([{ toolCalls: [search('leave')] }, { text: 'Twenty weeks [1].' }]);
    expect(summary.evaluations.find((v) => v.name === 'grounded')).toMatchObject({ verdict: 'error', reason: 'no model to grade the rubric with' });
  });

  it('a turn that used no tool listing checks has no verdicts and no event', async () => {
    const { summary, events } = await turn([{ toolCalls: [{ name: 'get_time', arguments: {} }] }, { text: 'Noon.' }], { grade: pass });
    expect(summary.evaluations).toEqual([]);
    expect(events.some((e) => e.type === 'evaluations')).toBe(false);
  });

  it('a grader that throws gives an error verdict; the turn still ends done', async () => {
    const { summary } = await turn([{ toolCalls: [search('leave')] }, { text: 'Twenty weeks [1].' }], { grade: async () => Promise.reject(new Error('boom')) });
    expect(summary.stop).toBe('done');
    expect(summary.evaluations.find((v) => v.name === 'grounded')).toMatchObject({ verdict: 'error', reason: 'boom' });
  });
});

describe('summaries in the loop', () => {
  it('the model gets the summary; a summary that fell back is a warning of the turn', async () => {
    const { summary } = await turn([{ toolCalls: [{ name: 'read_page', arguments: { url: 'https://example.org/a' } }] }, { text: 'Twenty weeks.' }], { grade: pass });
    expect(JSON.parse(summary.calls[0]!.content)).toMatchObject({ _summarized: true, summary: 'Leave: 20 weeks, paid.' });
    server.script([{ toolCalls: [{ name: 'read_page', arguments: { url: 'https://example.org/a' } }] }, { text: 'Twenty weeks.' }]);
    const client = await createModelClient('openai', 'test-model', { apiKey: 'test', baseUrl: `${server.url}/v1` });
    const session = await manager.session({ summarise: async () => ({ ok: false, reason: 'no key: set OPENAI_API_KEY' }) });
    const events: LoopEvent[] = [];
    await new ChatLoop({ client, session, estimate: 'never' }).run('x', { onEvent: (e) => events.push(e) });
    expect(events).toContainEqual({ type: 'warning', message: "read_page's result was over its limit and was cut, not summarised: no key: set OPENAI_API_KEY" });
  });
});
