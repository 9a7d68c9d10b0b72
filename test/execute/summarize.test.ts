import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { structuredContentOf } from '../../src/execute/structured-result.js';
import { estimateTokens } from '../../src/execute/truncate.js';
import type { Summariser, SummaryRequest } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

const page = 'Parental leave is 20 weeks. '.repeat(100);

async function open(extra = '', budget = 'budget: { summarize: { provider: openai, model: gpt-4o-mini } }'): Promise<ToolManager> {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-summary-'));
  writeFileSync(
    join(dir, 'toolman.yaml'),
    `toolman: 1
name: t
${budget}
tools:
  - name: read_page
    description: Read one intranet page as text.
    max_result_tokens: 50
    truncation: summarize
    handler: { mock: [{ result: ${JSON.stringify(page)} }] }
  - name: small_page
    description: Read a short page.
    max_result_tokens: 50
    truncation: summarize
    handler: { mock: [{ result: short }] }
  - name: read_json
    description: Read a long JSON record.
    max_result_tokens: 50
    truncation: summarize
    handler: { mock: [{ result: { items: ${JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ id: i })))} } }] }
${extra}`,
  );
  const manager = await ToolManager.open({ catalogs: ['toolman.yaml'], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' }, requireValid: false });
  managers.push(manager);
  return manager;
}

async function call(manager: ToolManager, name: string, summarise?: Summariser) {
  const session = await manager.session(summarise ? { summarise } : {});
  return (await session.runTurn([{ id: 'c1', name, arguments: {} }])).responses[0]!;
}

describe('truncation: summarize', () => {
  it('a result over its limit goes to the summariser, and the model gets the summary marked as one, with the original size', async () => {
    const asked: SummaryRequest[] = [];
    const response = await call(await open(), 'read_page', async (request) => {
      asked.push(request);
      return { ok: true, text: 'Parental leave: 20 weeks.' };
    });
    expect(asked).toEqual([{ tool: 'read_page', text: page, maxTokens: 50 }]);
    expect(JSON.parse(response.content)).toEqual({ _summarized: true, _original_tokens: estimateTokens(page), summary: 'Parental leave: 20 weeks.' });
    expect(response).toMatchObject({ ok: true, summarized: true, truncated: true, original_tokens: estimateTokens(page) });
    expect(response.summary_error).toBeUndefined();
  });

  it('a result within its limit is never summarised', async () => {
    let calls = 0;
    const response = await call(await open(), 'small_page', async () => (calls++, { ok: true, text: 'x' }));
    expect(calls).toBe(0);
    expect(response).toMatchObject({ content: 'short', truncated: false });
    expect(response.summarized).toBeUndefined();
  });

  it('falls back to smart truncation and says why: no summariser, a failure, an exception, an empty answer', async () => {
    const without = await call(await open('', ''), 'read_json');
    expect(without.summary_error).toContain('no model to summarise with: the catalog has no budget.summarize');
    const manager = await open();
    const cases: [Summariser, string][] = [
      [async () => ({ ok: false, reason: 'no key: set OPENAI_API_KEY' }), 'no key: set OPENAI_API_KEY'],
      [async () => Promise.reject(new Error('socket hang up')), 'socket hang up'],
      [async () => ({ ok: true, text: '   ' }), 'answered with nothing'],
    ];
    for (const [summarise, why] of cases) {
      const response = await call(manager, 'read_json', summarise);
      expect(response.summarized).toBeUndefined();
      expect(response.truncated).toBe(true);
      expect(response.summary_error).toContain(why);
      // smart truncation keeps JSON valid
      expect(() => JSON.parse(response.content)).not.toThrow();
      expect(estimateTokens(response.content)).toBeLessThanOrEqual(50);
    }
  });

  it('the manager summarises for sessions no conversation owns; with no key it falls back and names the variable', async () => {
    const response = await call(await open(), 'read_page');
    expect(response.summary_error).toContain('needs OPENAI_API_KEY');
    expect(response.truncated).toBe(true);
  });

  it('below budget.summarize.threshold an overflow is cut without asking, and without a complaint', async () => {
    let calls = 0;
    const manager = await open('', 'budget: { summarize: { provider: openai, model: gpt-4o-mini, threshold: 100000 } }');
    const response = await call(manager, 'read_page', async () => (calls++, { ok: true, text: 'x' }));
    expect(calls).toBe(0);
    expect(response).toMatchObject({ truncated: true });
    expect(response.summary_error).toBeUndefined();
  });

  it('a summary longer than the limit is cut to fit, and says so', async () => {
    const response = await call(await open(), 'read_page', async () => ({ ok: true, text: 'word '.repeat(1000) }));
    expect(response.summarized).toBe(true);
    expect(estimateTokens(response.content)).toBeLessThanOrEqual(50);
    expect(JSON.parse(response.content).summary).toContain('[summary cut to the limit]');
  });

  it('a summary that repeats a secret is redacted, and the summariser never sees one', async () => {
    const manager = await open(`  - name: leaky
    description: Returns a token in a long text.
    max_result_tokens: 20
    truncation: summarize
    handler: { mock: [{ result: "tok-123456789 and then a great deal more text that goes on and on past the limit of twenty tokens for sure" }] }`);
    manager.secrets.add('tok-123456789');
    const seen: string[] = [];
    const response = await call(manager, 'leaky', async (request) => (seen.push(request.text), { ok: true, text: 'The token is tok-123456789.' }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toContain('tok-123456789');
    expect(seen[0]).toContain('and then a great deal more');
    expect(response.content).not.toContain('tok-123456789');
  });

  it('a summarised result drops the structured value (it holds what the summary left out), and the turn budget still applies', async () => {
    const manager = await open('', 'budget: { total_results: 30, summarize: { provider: openai, model: gpt-4o-mini } }');
    const session = await manager.session({ summarise: async () => ({ ok: true, text: 'A summary of the record '.repeat(10) }) });
    const turn = await session.runTurn([{ id: 'a', name: 'read_json', arguments: {} }]);
    const response = turn.responses[0]!;
    expect(structuredContentOf(response)).toBeUndefined();
    expect(estimateTokens(response.content)).toBeLessThanOrEqual(30);
    expect(() => JSON.parse(response.content)).not.toThrow();
  });

  it('the summariser gets the turn\'s signal: a cancelled turn stops waiting for it', async () => {
    const manager = await open();
    const session = await manager.session({
      summarise: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, reason: 'cancelled' }))),
    });
    const controller = new AbortController();
    const pending = session.runTurn([{ id: 'a', name: 'read_page', arguments: {} }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const response = (await pending).responses[0]!;
    expect(response.summary_error).toBe('cancelled');
  });
});
