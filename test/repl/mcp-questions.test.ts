import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/execute/types.js';
import { ReplMcpQuestions } from '../../src/repl/mcp-questions.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { catalogDir, MODERN, NODE } from '../mcp/helpers.js';

// The REPL's answers to what an MCP server asks during a call, through a real v2 server
// (2026-07-28 input_required) and, for sampling, the conversation's own model (a fake OpenAI).

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

async function setUp(decide: (request: ApprovalRequest) => ApprovalDecision) {
  const questions = new ReplMcpQuestions();
  const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio, --modern-only]\n`);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${model.url}/v1` }, mcpInteraction: questions });
  const conversation = await manager.conversation({ model: 'gpt-test' });
  const asked: ApprovalRequest[] = [];
  const notes: string[] = [];
  const opened: string[] = [];
  questions.bind({ ask: async (request) => (asked.push(request), decide(request)), note: (text) => notes.push(text), open: async (url) => void opened.push(url), conversation });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const session = await manager.session({ approve: async () => 'approve' });
    return (await session.runTurn([{ id: '1', name, arguments: args }])).responses[0]!;
  };
  return { manager, conversation, questions, asked, notes, opened, call };
}

describe('the REPL asked by an MCP server', () => {
  it('asks a yes/no form like an approval, naming the server', async () => {
    const { manager, conversation, asked, call } = await setUp(() => 'approve');
    try {
      expect((await call('delete_note', { id: 'n7' })).content).toBe('deleted n7');
      expect(asked.map((a) => [a.tool.name, a.reason])).toEqual([['MCP server "m" asks', 'Delete note n7?']]);
    } finally {
      conversation.close();
      await manager.close();
    }
  });

  it('asks to accept a form whose every field has a default, showing the values, and sends them after a yes', async () => {
    const { manager, conversation, asked, call } = await setUp(() => 'approve');
    try {
      expect((await call('set_prefs')).content).toBe('prefs: {"theme":"dark","size":12,"sounds":false}');
      expect(asked.map((a) => [a.tool.name, a.reason, a.arguments])).toEqual([['MCP server "m" asks to accept its defaults', 'Your preferences', { theme: 'dark', size: 12, sounds: false }]]);
    } finally {
      conversation.close();
      await manager.close();
    }
  });

  it('declines a form of several fields, with a note', async () => {
    const { manager, conversation, asked, notes, call } = await setUp(() => 'approve');
    try {
      const account = await call('make_account');
      expect(account.error).toContain('no account (decline)');
      expect(asked).toEqual([]);
      expect(notes).toEqual(['MCP server "m" asked "Account details" (a form of 2 fields): declined; the REPL answers yes/no questions and forms whose every field has a default']);
    } finally {
      conversation.close();
      await manager.close();
    }
  });

  it('shows the host before opening a page, and opens it only after a yes', async () => {
    const yes = await setUp(() => 'approve');
    try {
      expect((await yes.call('open_link')).content).toBe('visited: accept');
      expect(yes.asked[0]!.tool.name).toBe('MCP server "m" asks you to open a page on auth.example.com');
      expect(yes.opened).toEqual(['https://auth.example.com/start?x=1']);
    } finally {
      yes.conversation.close();
      await yes.manager.close();
    }
    const no = await setUp(() => 'decline');
    try {
      expect((await no.call('open_link')).content).toBe('visited: decline');
      expect(no.opened).toEqual([]);
    } finally {
      no.conversation.close();
      await no.manager.close();
    }
  });

  it('runs a sampling request through the conversation\'s model after a yes: no tools, at most 4096 tokens', async () => {
    const { manager, conversation, asked, call } = await setUp(() => 'approve');
    try {
      model.script([{ text: 'A short summary.' }]);
      const before = model.requests.length;
      const summary = await call('summarize', { text: 'a very long text' });
      expect(summary.content).toBe('summary by gpt-test: A short summary.');
      expect(asked[0]!.tool.name).toBe('MCP server "m" asks to run a prompt through openai gpt-test (at most 4096 tokens)');
      const request = model.requests[before]!;
      expect(request.body).not.toHaveProperty('tools');
      expect(JSON.stringify(request.body)).toContain('Summarize: a very long text');
      expect(JSON.stringify(request.body)).toContain('Be brief.');
      expect(request.body.max_completion_tokens ?? request.body.max_tokens).toBe(4096);
    } finally {
      conversation.close();
      await manager.close();
    }
  });

  it('declines everything before it is bound and after the REPL left', async () => {
    const questions = new ReplMcpQuestions();
    const signal = new AbortController().signal;
    expect(await questions.elicit({ mode: 'form', server: 's', message: 'ok?', schema: { properties: { ok: { type: 'boolean' } }, required: [] }, confirmation: 'ok' }, signal)).toEqual({ action: 'decline' });
    expect(await questions.sample({ server: 's', messages: [], maxTokens: 10 }, signal)).toEqual({ declined: 'the REPL is not running' });
  });
});
