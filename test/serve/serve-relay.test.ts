import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/paths.js';
import { connectModern, modernRequest } from './modern-client.js';
import { serveInProcess, type InProcessServer } from './serve-in-process.js';
import { startHttp } from './serve-client.js';

// `toolman serve` relays what a catalog's MCP server asks during a call it forwards to serve's
// own client, the way that client's era asks: a 2025-11-25 session gets an `elicitation/create`
// request on the call's stream; a 2026-07-28 client gets `input_required` and answers in its
// retry (basic/patterns/mrtr.mdx, client/elicitation.mdx of both revisions; read 2026-11-24).
// Behind serve: the v2 fixture server as a 2026-07-28 server (prefix m_) and as a 2025-11-25
// one (prefix l_), both over stdio.

const MODERN_SERVER = join(FIXTURES, 'mcp', 'servers', 'modern-server.mjs');
const SECRET = 'sk-relay-0123456789abcdef';

function catalog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-relay-'));
  const file = join(dir, 'relay.yaml');
  const server = (protocol: string, prefix: string) =>
    `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(MODERN_SERVER)}, stdio]\n    protocol: ${protocol}\n    prefix: ${prefix}\n    env: { RELAY_TOOLS: "1", SECRET_ECHO: "\${env:RELAY_KEY}" }\n`;
  writeFileSync(file, `toolman: 1\nname: relay\nmcp_servers:\n  m:\n${server('"2026-07-28"', 'm_')}  l:\n${server('legacy', 'l_')}`);
  return file;
}

let served: InProcessServer;
let shortWait: InProcessServer;
beforeAll(async () => {
  const file = catalog();
  served = await serveInProcess({ catalog: file, relay: true, gateway: true, env: { RELAY_KEY: SECRET } });
  shortWait = await serveInProcess({ catalog: file, relay: true, env: { RELAY_KEY: SECRET }, parkedLimits: { max: 4, perPrincipal: 1, timeoutMs: 400 } });
}, 60_000);
afterAll(async () => {
  await served?.close();
  await shortWait?.close();
});

async function legacyClient(url: string, answer?: (message: string, schema: unknown) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> }) {
  const client = new LegacyClient({ name: 'legacy-test', version: '1' }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  const asked: { message: string; schema: unknown }[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      asked.push({ message: params.message, schema: params.requestedSchema });
      return answer(params.message, params.requestedSchema);
    });
  }
  await client.connect(new LegacyHttp(new URL(url)));
  return { client, asked };
}

const texts = (result: unknown) => ((result as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '');

describe.each([
  ['a 2026-07-28 server', 'm_'],
  ['a 2025-11-25 server', 'l_'],
])('serve relays the question of %s', (_, prefix) => {
  it('to a 2026-07-28 client (input_required, answered in the retry)', async () => {
    const { client, seen } = await connectModern(served.url, { elicit: () => ({ action: 'accept', content: { name: 'alice', plan: 'pro' } }) });
    try {
      const result = await client.callTool({ name: `${prefix}make_account`, arguments: {} });
      expect(texts(result)).toEqual(['account alice on pro']);
      expect(seen.elicitations).toEqual([{ message: `MCP server "${prefix[0]}" asks: Account details`, schema: { type: 'object', properties: { name: { type: 'string', title: 'Name' }, plan: { type: 'string', enum: ['free', 'pro'], default: 'free' } }, required: ['name'] } }]);
    } finally {
      await client.close();
    }
  });

  it('to a 2025-11-25 client (elicitation/create during the call)', async () => {
    const { client, asked } = await legacyClient(served.url, () => ({ action: 'accept', content: { name: 'bob' } }));
    try {
      const result = await client.callTool({ name: `${prefix}make_account`, arguments: {} });
      expect(texts(result)).toEqual(['account bob on free']);
      expect(asked.map((a) => a.message)).toEqual([`MCP server "${prefix[0]}" asks: Account details`]);
    } finally {
      await client.close();
    }
  });

  it('a client that declines: the server gets the decline', async () => {
    const { client } = await connectModern(served.url, { elicit: () => ({ action: 'decline' }) });
    try {
      const result = await client.callTool({ name: `${prefix}make_account`, arguments: {} });
      expect(result.isError).toBe(true);
      expect(texts(result)[0]).toBe('no account (decline)');
    } finally {
      await client.close();
    }
  });

  it('a client without elicitation: the server is declined, the client told why, nothing waits (both eras)', async () => {
    const started = Date.now();
    const modern = await connectModern(served.url);
    const legacy = await legacyClient(served.url);
    try {
      for (const client of [modern.client, legacy.client]) {
        const result = (await client.callTool({ name: `${prefix}make_account`, arguments: {} })) as { isError?: boolean };
        expect(result.isError).toBe(true);
        expect(texts(result)).toEqual(['no account (decline)', `toolman serve: MCP server "${prefix[0]}" asked "Account details", and this MCP client cannot answer such questions (it did not declare elicitation); toolman declined for it.`]);
      }
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await modern.client.close();
      await legacy.client.close();
    }
  });

  it('cleans, bounds and redacts the question, and passes on only the answer\'s asked fields, cleaned (raw 2026-07-28 requests)', async () => {
    const form = { elicitation: { form: {} } };
    const first = await modernRequest(served.url, 'tools/call', { name: `${prefix}hostile_question`, arguments: {} }, { capabilities: form });
    const asked = first.response!.result as { requestState: string; inputRequests: { question1: { params: { message: string; requestedSchema: { properties: Record<string, unknown> } } } } };
    const question = JSON.stringify(asked.inputRequests);
    expect(question).not.toContain(SECRET);
    expect(question).not.toMatch(/\\u001b|\\u200b|\\u0007|x-evil/);
    const params = asked.inputRequests.question1.params;
    expect(params.message.length).toBeLessThan(2_100);
    expect(Object.keys(params.requestedSchema.properties)).toHaveLength(50);
    expect(params.requestedSchema.properties.name).toEqual({ type: 'string', title: 'Name', description: 'the key [redacted]' });
    // The client is as untrusted as the server: only the asked fields go on, primitives only, cleaned.
    const content = { name: 'eve\u001b[2J\u200b', extra: 'not asked', f1: { nested: true }, f2: 7 };
    const done = await modernRequest(served.url, 'tools/call', { name: `${prefix}hostile_question`, arguments: {}, requestState: asked.requestState, inputResponses: { question1: { action: 'accept', content } } }, { capabilities: form });
    expect(done.response?.result?.content).toEqual([{ type: 'text', text: 'got {"action":"accept","content":{"name":"eve","f2":7}}' }]);
  });
});

describe('a 2025-11-25 server\'s question while two calls run on its connection', () => {
  it('goes to neither client: toolman cannot tell whose it is, so it is declined and said', async () => {
    const other = await connectModern(served.url, { elicit: () => ({ action: 'accept', content: { name: 'wrong-client', plan: 'pro' } }) });
    const asker = await connectModern(served.url, { elicit: () => ({ action: 'accept', content: { name: 'right', plan: 'pro' } }) });
    try {
      const napping = other.client.callTool({ name: 'l_nap', arguments: { ms: 2_000 } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const account = await asker.client.callTool({ name: 'l_make_account', arguments: {} });
      expect(texts(account)[0]).toBe('no account (decline)');
      expect(texts(await napping)).toEqual(['rested']);
      expect(other.seen.elicitations).toEqual([]);
      expect(asker.seen.elicitations).toEqual([]);
      expect(served.stderr()).toContain('MCP server "l" asked "Account details" where toolman cannot tell which client call it is about; declined');
    } finally {
      await other.client.close();
      await asker.client.close();
    }
  });
});

describe('serve\'s requestState for a relayed question (2026-07-28, raw requests)', () => {
  const form = { elicitation: { form: {} } };
  const ask = async (url: string, name = 'm_make_account', args: Record<string, unknown> = {}) => {
    const first = await modernRequest(url, 'tools/call', { name, arguments: args }, { capabilities: form });
    expect(first.response?.result?.resultType).toBe('input_required');
    return first.response!.result as { requestState: string; inputRequests: Record<string, unknown> };
  };
  const answer = (url: string, state: string, name = 'm_make_account', args: Record<string, unknown> = {}) =>
    modernRequest(url, 'tools/call', { name, arguments: args, requestState: state, inputResponses: { question1: { action: 'accept', content: { name: 'mallory' } } } }, { capabilities: form });

  it('names the question `question1`, and resumes the waiting call once', async () => {
    const asked = await ask(served.url);
    expect(Object.keys(asked.inputRequests)).toEqual(['question1']);
    const done = await answer(served.url, asked.requestState);
    expect(done.response?.result?.content).toEqual([{ type: 'text', text: 'account mallory on free' }]);
    // The same state again: spent.
    const replay = await answer(served.url, asked.requestState);
    expect(replay.response?.error?.code).toBe(-32602);
    expect(replay.response?.error?.message).toContain('already answered');
  });

  it('asks again when the retry leaves the question unanswered (mrtr.mdx §Error Handling)', async () => {
    const asked = await ask(served.url);
    const bare = await modernRequest(served.url, 'tools/call', { name: 'm_make_account', arguments: {}, requestState: asked.requestState, inputResponses: {} }, { capabilities: form });
    const again = bare.response?.result as { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    expect(again.resultType).toBe('input_required');
    expect(again.inputRequests).toEqual(asked.inputRequests);
    expect(again.requestState).not.toBe(asked.requestState);
    expect((await answer(served.url, again.requestState)).response?.result?.content).toEqual([{ type: 'text', text: 'account mallory on free' }]);
  });

  it('refuses a forged state, a state for another tool or other arguments, and one from another method', async () => {
    const asked = await ask(served.url);
    const forged = asked.requestState.slice(0, -4) + (asked.requestState.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await answer(served.url, forged)).response?.error?.code).toBe(-32602);
    const other = await answer(served.url, asked.requestState, 'l_make_account');
    expect(other.response?.error).toMatchObject({ code: -32602, message: expect.stringContaining('issued for another call') });
    const otherArgs = await answer(served.url, asked.requestState, 'm_make_account', { x: 1 });
    expect(otherArgs.response?.error?.code).toBe(-32602);
    const prompt = await modernRequest(served.url, 'prompts/get', { name: 'm_make_account', requestState: asked.requestState, inputResponses: {} }, { capabilities: form });
    expect(prompt.response?.error?.code).toBe(-32602);
    // Those refusals spent nothing: the real retry still resumes the call.
    expect((await answer(served.url, asked.requestState)).response?.result?.content).toEqual([{ type: 'text', text: 'account mallory on free' }]);
  });

  it('a call whose client never answers is cancelled after the wait, and its state then says so', async () => {
    const asked = await ask(shortWait.url);
    await new Promise((resolve) => setTimeout(resolve, 900));
    const late = await answer(shortWait.url, asked.requestState);
    expect(late.response?.error).toMatchObject({ code: -32602, message: expect.stringContaining('no longer waiting') });
    expect(shortWait.stderr()).toContain('waited 0 s for the client\'s answer');
  });

  it('a principal holds no more waiting calls than its share: the next question is declined, not parked', async () => {
    const asked = await ask(shortWait.url);
    const second = await modernRequest(shortWait.url, 'tools/call', { name: 'm_make_account', arguments: {} }, { capabilities: form });
    expect(second.response?.result?.content).toEqual([{ type: 'text', text: 'no account (decline)' }]);
    expect((await answer(shortWait.url, asked.requestState)).response?.result?.content).toEqual([{ type: 'text', text: 'account mallory on free' }]);
  });

  it('relays a prompt\'s question too (prompts/get)', async () => {
    const { client, seen } = await connectModern(served.url, { elicit: () => ({ action: 'accept', content: { ok: true } }) });
    try {
      const prompt = await client.getPrompt({ name: 'm_confirm_first' });
      expect(JSON.stringify(prompt.messages)).not.toContain('not confirmed');
      expect(seen.elicitations[0]!.message).toBe('MCP server "m" asks: Use the confirmed prompt?');
    } finally {
      await client.close();
    }
  });
});

describe('toolman serve (the built binary) relays a question', () => {
  it('over HTTP to a 2026-07-28 client and a 2025-11-25 one, from a stdio server of each era', async () => {
    const served = await startHttp([], { RELAY_KEY: SECRET }, catalog());
    try {
      const modern = await connectModern(served.url, { elicit: () => ({ action: 'accept', content: { name: 'carol', plan: 'pro' } }) });
      const legacy = await legacyClient(served.url, () => ({ action: 'accept', content: { name: 'dave' } }));
      try {
        expect(texts(await modern.client.callTool({ name: 'm_make_account', arguments: {} }))).toEqual(['account carol on pro']);
        expect(texts(await legacy.client.callTool({ name: 'l_make_account', arguments: {} }))).toEqual(['account dave on free']);
        expect(modern.seen.elicitations.map((e) => e.message)).toEqual(['MCP server "m" asks: Account details']);
      } finally {
        await modern.client.close();
        await legacy.client.close();
      }
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  }, 60_000);
});
