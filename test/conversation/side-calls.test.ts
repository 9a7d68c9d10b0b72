import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/conversation/rubric-grader.js';
import { SideModels } from '../../src/conversation/side-models.js';
import { readRecording } from '../../src/loop/recording.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { startModelServer, type ModelServer, type ScriptedReply } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

/**
 * Summaries (`truncation: summarize`) and rubric grades are model calls the conversation makes
 * beside its own: against the local model server they are real requests, with --record they are
 * in the recording, and a replay answers them from it, matched by content, with no network.
 */
const CATALOG = 'test/fixtures/catalogs/result-powers.yaml';
const KEY = 'sk-side-calls-test-key-4c1d';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const script: ScriptedReply[] = [
  { toolCalls: [{ name: 'read_page', arguments: { url: 'https://example.org/a' } }] },
  { text: 'Leave: 20 weeks, fully paid, within 12 months.' },
  { text: 'Parental leave is 20 weeks.' },
  { text: '{"verdict": "fail", "reason": "it leaves out the 12 months"}' },
];

async function open(env: Record<string, string> = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }, namedBy?: string) {
  return ToolManager.open({ catalogs: [CATALOG], cwd: ROOT, env: { TOOLMAN_CACHE_DIR: 'off', ...env }, ...(namedBy ? { namedBy } : {}) });
}

describe('side calls: summaries and grades go through the conversation', () => {
  it('live against the local model server, recorded, then replayed from the recording with no server and no key', async () => {
    server.script(script);
    server.requests.length = 0;
    const folder = mkdtempSync(join(tmpdir(), 'toolman-side-'));
    const file = join(folder, 'rec.jsonl');
    const manager = await open();
    let live;
    try {
      const conversation = await manager.conversation({ model: 'big-model', connection: { mode: 'record', file } });
      live = await conversation.run('What is the leave policy?');
      conversation.close();
    } finally {
      await manager.close();
    }
    // The summary went to the catalog's small model, the grade to the conversation's own.
    expect(server.requests.map((r) => r.body.model)).toEqual(['big-model', 'small-model', 'big-model', 'big-model']);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('The result of the tool read_page');
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(live.calls[0]!.content)).toMatchObject({ _summarized: true, summary: 'Leave: 20 weeks, fully paid, within 12 months.' });
    expect(live.evaluations.find((v) => v.name === 'grounded')).toMatchObject({ verdict: 'fail', reason: 'it leaves out the 12 months' });
    const recorded = readRecording(readFileSync(file, 'utf8'), file);
    expect(recorded.exchanges.map((e) => (e.request.body as { model: string }).model)).toEqual(['big-model', 'small-model', 'big-model', 'big-model']);
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);

    server.requests.length = 0;
    const offline = await open({});
    try {
      const conversation = await offline.conversation({ connection: { mode: 'replay', recording: recorded } });
      const replayed = await conversation.run('What is the leave policy?');
      conversation.close();
      expect(server.requests).toEqual([]);
      expect(replayed.answer).toBe(live.answer);
      expect(replayed.calls[0]!.content).toBe(live.calls[0]!.content);
      expect(replayed.evaluations).toEqual(live.evaluations);
    } finally {
      await offline.close();
    }
  });

  it('a replay without the side exchanges falls back (summary: smart truncation; grade: error), and says why', async () => {
    server.script(script);
    const folder = mkdtempSync(join(tmpdir(), 'toolman-side-'));
    const file = join(folder, 'rec.jsonl');
    const manager = await open();
    try {
      const conversation = await manager.conversation({ model: 'big-model', connection: { mode: 'record', file } });
      await conversation.run('What is the leave policy?');
      conversation.close();
    } finally {
      await manager.close();
    }
    const recorded = readRecording(readFileSync(file, 'utf8'), file);
    // Without the summary's and the grade's exchanges, the conversation's own still replay.
    const only = { ...recorded, exchanges: recorded.exchanges.filter((e) => (e.request.body as { model: string }).model === 'big-model' && !JSON.stringify(e.request.body).includes('You grade')) };
    const offline = await open({});
    try {
      const conversation = await offline.conversation({ connection: { mode: 'replay', recording: only } });
      const warnings: string[] = [];
      const summary = await conversation.run('What is the leave policy?', { onEvent: (e) => e.type === 'warning' && warnings.push(e.message) });
      conversation.close();
      expect(summary.stop).toBe('done');
      expect(summary.calls[0]!.content).not.toContain('_summarized');
      expect(warnings.some((w) => w.includes('cut, not summarised') && w.includes('replay'))).toBe(true);
      // The cut result differs from the recorded summary: the replay says so, and goes on with the recorded reply.
      expect(warnings.some((w) => w.includes('read_page answered differently from the recording'))).toBe(true);
      expect(summary.evaluations.find((v) => v.name === 'grounded')).toMatchObject({ verdict: 'error', reason: expect.stringContaining('could not grade it') });
    } finally {
      await offline.close();
    }
  });

  it.each(['openai', 'openai-responses', 'anthropic', 'gemini'])('a side call to %s: the system prompt and the one message on its wire, no tools, the text back', async (provider) => {
    server.script([{ text: `summary from ${provider}` }]);
    server.requests.length = 0;
    const side = new SideModels({ mode: 'live' }, { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, GEMINI_API_KEY: KEY }, new SecretSet());
    const baseUrl = provider === 'anthropic' || provider === 'gemini' ? server.url : `${server.url}/v1`;
    const text = await side.complete({ provider, model: 'small', baseUrl }, { system: 'Shorten it.', text: 'a long result', maxTokens: 100 }, new AbortController().signal);
    expect(text).toBe(`summary from ${provider}`);
    const body = JSON.stringify(server.requests[0]!.body);
    expect(body).toContain('Shorten it.');
    expect(body).toContain('a long result');
    expect(server.requests[0]!.body.tools ?? []).toEqual([]);
  });

  it('a catalog the user did not name never gets their key sent to a base URL it chose', async () => {
    server.requests.length = 0;
    const side = new SideModels({ mode: 'live' }, { OPENAI_API_KEY: KEY }, new SecretSet(), 'the recording rec.jsonl');
    await expect(side.complete({ provider: 'openai', model: 'm', baseUrl: `${server.url}/v1` }, { system: 's', text: 't', maxTokens: 10 }, new AbortController().signal)).rejects.toThrow(/names the catalog, and its base_url .* is not sent your key/);
    expect(server.requests).toEqual([]);
  });

  it('a missing key is a reason, not a crash, and names the variable', async () => {
    const side = new SideModels({ mode: 'live' }, {}, new SecretSet());
    await expect(side.complete({ provider: 'anthropic', model: 'm' }, { system: 's', text: 't', maxTokens: 10 }, new AbortController().signal)).rejects.toThrow(/needs ANTHROPIC_API_KEY/);
  });
});

describe("the grader's reply is untrusted: only a verdict is believed", () => {
  it.each([
    ['{"verdict": "pass"}', { verdict: 'pass' }],
    ['Sure! {"verdict": "fail", "reason": "adds a number"} hope that helps', { verdict: 'fail', reason: 'adds a number' }],
    ['PASS', { verdict: 'pass' }],
    ['fail: the answer invents a date', { verdict: 'fail', reason: 'the answer invents a date' }],
    ['{"verdict": "maybe"}', { verdict: 'error' }],
    ['I think it is fine.', { verdict: 'error' }],
    ['', { verdict: 'error' }],
  ])('%j', (reply, expected) => {
    expect(parseVerdict(reply)).toMatchObject(expected);
  });

  it('a reason is cleaned of control sequences and cut', () => {
    const verdict = parseVerdict(JSON.stringify({ verdict: 'fail', reason: `\u001b[2J\u001b]52;c;aGk=\u0007wrong ${'x'.repeat(1000)}` }));
    expect(verdict.reason).toMatch(/^wrong x+…$/);
    expect(verdict.reason!.length).toBeLessThanOrEqual(300);
  });
});
