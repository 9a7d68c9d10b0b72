import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import { readRecording } from '../../src/loop/recording.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';
import { startRepl } from '../repl/harness.js';

/**
 * Every driver's conversation goes through ToolManager.conversation, so every output is redacted
 * the same way: the catalog's secrets (SHOP_TOKEN, named by secrets.yaml) and the provider's key,
 * whoever echoes them (the model, in text cut between deltas and in arguments; a tool's result; a
 * proxy's error message). One test per driver, each with a model that echoes the secret.
 */
const CATALOG = 'test/fixtures/catalogs/secrets.yaml';
const SECRET = 'shop-secret-7f3a9c1e55';
const KEY = 'sk-redaction-test-key-9b2e4d';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const env = () => ({ SHOP_TOKEN: SECRET, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` });
const dir = () => mkdtempSync(join(tmpdir(), 'toolman-redaction-'));
/** The model echoes the secret in its text (streamed in pieces) and as a tool's argument, which the tool echoes back. */
const echoing = () => server.script([{ toolCalls: [{ name: 'order_status', arguments: { order: SECRET } }] }, { text: `Your order ${SECRET} has shipped; the token ${SECRET} works.` }]);

async function open() {
  return ToolManager.open({ catalogs: [CATALOG], cwd: ROOT, env: env(), requireValid: 'all' });
}

describe('one redacted stream for every driver', () => {
  it('the core conversation: events, the summary, the transcript and the recording hold no secret', async () => {
    echoing();
    const manager = await open();
    const folder = dir();
    try {
      const conversation = await manager.conversation({ model: 'm', connection: { mode: 'record', file: join(folder, 'rec.jsonl') }, transcript: { file: join(folder, 't.jsonl') } });
      const events: LoopEvent[] = [];
      const summary = await conversation.run('where is my order?', { onEvent: (e) => events.push(e) });
      conversation.close();
      expect(summary.stop).toBe('done');
      // The text arrived (redacted), the tool ran with the real value, and nothing shows it.
      expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Your order [redacted] has shipped; the token [redacted] works.');
      for (const text of [JSON.stringify(events), JSON.stringify(summary), readFileSync(join(folder, 't.jsonl'), 'utf8'), readFileSync(join(folder, 'rec.jsonl'), 'utf8')]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(KEY);
      }
      expect(summary.calls[0]).toMatchObject({ tool: 'order_status', arguments: { order: '[redacted]' }, ok: true });
    } finally {
      await manager.close();
    }
  });

  it('the provider key is a secret from the start: a proxy that echoes it never gets it into events, transcripts or recordings', async () => {
    server.script([{ status: 400, errorMessage: `bad request; you sent "Authorization: Bearer ${KEY}"` }]);
    const manager = await open();
    const folder = dir();
    try {
      const conversation = await manager.conversation({ model: 'm', connection: { mode: 'record', file: join(folder, 'rec.jsonl') }, transcript: { file: join(folder, 't.jsonl') } });
      const events: LoopEvent[] = [];
      const summary = await conversation.run('hi', { onEvent: (e) => events.push(e) });
      conversation.close();
      expect(summary.stop).toBe('error');
      const error = events.find((e) => e.type === 'error') as { message: string };
      expect(error.message).toContain('Bearer [redacted]');
      for (const text of [JSON.stringify(events), JSON.stringify(summary), readFileSync(join(folder, 't.jsonl'), 'utf8'), readFileSync(join(folder, 'rec.jsonl'), 'utf8')]) expect(text).not.toContain(KEY);
      // The recording still replays: what was redacted was the key, not the exchange.
      expect(readRecording(readFileSync(join(folder, 'rec.jsonl'), 'utf8'), 'rec.jsonl').exchanges).toHaveLength(1);
    } finally {
      await manager.close();
    }
  });

  it('the REPL draws nothing secret, and its transcript holds nothing secret', async () => {
    echoing();
    const transcript = join(dir(), 'repl.jsonl');
    const h = await startRepl(server, { catalog: CATALOG, env: { SHOP_TOKEN: SECRET }, transcript });
    try {
      await h.send('where is my order?');
      await h.idle();
      await h.waitFor('has shipped');
      expect(h.frame()).toContain('Your order [redacted] has shipped');
      expect(h.frames().join('')).not.toContain(SECRET);
      expect(readFileSync(transcript, 'utf8')).not.toContain(SECRET);
    } finally {
      await h.close();
    }
  });

  it("a local sub-agent: its answer, its progress and its events reach the parent redacted (the nested conversation is the same path)", async () => {
    server.script([{ toolCalls: [{ name: 'order_status', arguments: { order: SECRET } }] }, { text: `Order ${SECRET} shipped.` }]);
    const manager = await open();
    const nested: LoopEvent[] = [];
    manager.onAgentEvent((e) => nested.push(e.event));
    try {
      const progress: string[] = [];
      const session = await manager.session({ onEvent: (e) => e.type === 'tool_progress' && progress.push(e.message) });
      const turn = await session.runTurn([{ id: 'a1', name: 'helper', arguments: { task: 'where is my order?' } }]);
      expect(turn.responses[0]).toMatchObject({ ok: true, content: expect.stringContaining('Order [redacted] shipped.') });
      expect(progress.length).toBeGreaterThan(0);
      for (const text of [JSON.stringify(turn), JSON.stringify(progress), JSON.stringify(nested)]) expect(text).not.toContain(SECRET);
    } finally {
      await manager.close();
    }
  });
});

describe('what a driver shows around a call', () => {
  it("the REPL's approval question shows the arguments without the secret (the call runs as made)", async () => {
    server.script([{ toolCalls: [{ name: 'refund_order', arguments: { order: SECRET } }] }, { text: 'Refunded.' }]);
    const h = await startRepl(server, { catalog: CATALOG, env: { SHOP_TOKEN: SECRET }, approvalGuardMs: 0 });
    try {
      await h.send('refund it');
      await h.waitFor('refund_order');
      await h.waitFor(() => h.controller.state.approval?.ready === true);
      expect(JSON.stringify(h.controller.state.approval)).not.toContain(SECRET);
      expect(JSON.stringify(h.controller.state.approval?.arguments)).toContain('[redacted]');
      expect(h.frames().join('')).not.toContain(SECRET);
      await h.write('n');
      await h.idle();
    } finally {
      await h.close();
    }
  });
});
