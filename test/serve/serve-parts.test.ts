import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/catalog/types.js';
import type { ToolResponse } from '../../src/execute/types.js';
import { toCallToolResult } from '../../src/serve/call-result.js';
import { HttpGuard, isLoopbackHost } from '../../src/serve/http-guard.js';
import { toMcpTool } from '../../src/serve/mcp-tool.js';

const base = { name: 't', aliases: [], tags: [], keywords: [], profiles: [], effect: 'write', confirm: 'auto', enabled: true, exclusive: false, takesControl: false, deferLoading: false, alwaysLoad: false, concurrency: 'safe', mode: 'direct', dedupe: true, timeoutMs: 1000, maxResultTokens: 100, truncation: 'smart', prompts: {}, parameters: { type: 'object', properties: {} }, examples: [], source: { kind: 'catalog', file: 'x.yaml', pointer: '' } } as unknown as Tool;
const tool = (over: Partial<Tool>): Tool => ({ ...base, ...over }) as Tool;

describe('toMcpTool: effect, confirmation and handler as MCP annotations (spec 2025-11-25)', () => {
  it.each([
    [{ effect: 'read', handler: { kind: 'mock', cases: [] } }, { readOnlyHint: true, openWorldHint: false }],
    [{ effect: 'write', handler: { kind: 'http', http: { url: 'https://x' } } }, { readOnlyHint: false, destructiveHint: false, openWorldHint: true }],
    [{ effect: 'destructive', handler: { kind: 'exec', exec: { argv: ['rm'] } } }, { readOnlyHint: false, destructiveHint: true, openWorldHint: true }],
    [{ effect: 'read', handler: { kind: 'meta' } }, { readOnlyHint: true, openWorldHint: false }],
    // No handler: nothing known about its world, so the spec's default (open) is stated.
    [{ effect: 'write' }, { readOnlyHint: false, destructiveHint: false, openWorldHint: true }],
  ] as [Partial<Tool>, object][])('%j → %j', (over, annotations) => {
    expect(toMcpTool(tool(over)).annotations).toEqual(annotations);
  });

  it('carries title, description, the schema and toolman\'s terms', () => {
    const mcp = toMcpTool(tool({ title: 'T', summary: 'short', description: 'long', category: 'c', confirm: 'always', parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } }));
    expect(mcp).toMatchObject({ name: 't', title: 'T', description: 'long', inputSchema: { type: 'object', required: ['a'] }, annotations: { title: 'T' } });
    expect(mcp._meta).toEqual({ 'toolman/effect': 'write', 'toolman/confirm': 'ask', 'toolman/category': 'c' });
    expect(toMcpTool(tool({ summary: 'short' })).description).toBe('short');
  });
});

const response = (over: Partial<ToolResponse>): ToolResponse => ({ id: '1', name: 't', tool: 't', ok: true, content: '', error: null, error_kind: null, deduplicated: false, truncated: false, original_tokens: null, duration_ms: 1, ...over });

describe('toCallToolResult', () => {
  it('gives JSON objects as structured content beside the text, other results as text only', () => {
    expect(toCallToolResult(response({ content: '{"a":1}' }))).toMatchObject({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    for (const content of ['[1,2]', 'plain text', '"quoted"', '{broken']) expect(toCallToolResult(response({ content })).structuredContent).toBeUndefined();
  });

  it('marks failures isError with the text for the model', () => {
    const result = toCallToolResult(response({ ok: false, content: 'boom', error: 'boom', error_kind: 'tool_error' }));
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'boom' }], _meta: { 'toolman/error_kind': 'tool_error' } });
    expect(toCallToolResult(response({ ok: false, error: 'x', error_kind: 'declined' }), { errorText: 'why' }).content).toEqual([{ type: 'text', text: 'why' }]);
  });
});

describe('HttpGuard', () => {
  it('knows loopback names', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'app.localhost']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', 'localhost.example.com']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('on loopback without a token: checks Host and Origin', () => {
    const guard = new HttpGuard('127.0.0.1', undefined);
    expect(guard.check({ host: '127.0.0.1:8808' })).toBeUndefined();
    expect(guard.check({ host: 'localhost:8808', origin: 'http://localhost:3000' })).toBeUndefined();
    expect(guard.check({ host: '[::1]:8808' })).toBeUndefined();
    expect(guard.check({ host: 'attacker.example:8808' })?.status).toBe(403);
    expect(guard.check({})?.status).toBe(403);
    expect(guard.check({ host: '127.0.0.1:8808', origin: 'https://attacker.example' })?.status).toBe(403);
    expect(guard.check({ host: '127.0.0.1:8808', origin: 'null' })?.status).toBe(403);
  });

  it('keeps its verdict on an accepted Host only for that same header: none, or another, is checked again', () => {
    const guard = new HttpGuard('127.0.0.1', undefined);
    expect(guard.check({})?.status).toBe(403);
    expect(guard.check({ host: '127.0.0.1:8808' })).toBeUndefined();
    expect(guard.check({ host: '127.0.0.1:8808' })).toBeUndefined();
    expect(guard.check({})?.status).toBe(403);
    expect(guard.check({ host: 'attacker.example:8808' })?.status).toBe(403);
    expect(guard.check({ host: '127.0.0.1:8808', origin: 'https://attacker.example' })?.status).toBe(403);
  });

  it('with a token: requires it, whatever the origin', () => {
    const guard = new HttpGuard('0.0.0.0', 'secret-token-123456');
    expect(guard.check({ host: 'server.lan:8808' })?.status).toBe(401);
    expect(guard.check({ host: 'server.lan:8808', authorization: 'Bearer nope' })?.status).toBe(401);
    expect(guard.check({ host: 'server.lan:8808', authorization: 'Basic c2VjcmV0' })?.status).toBe(401);
    expect(guard.check({ host: 'server.lan:8808', authorization: 'Bearer secret-token-123456' })).toBeUndefined();
    expect(guard.check({ host: 'server.lan:8808', origin: 'https://app.example', authorization: 'bearer secret-token-123456' })).toBeUndefined();
  });
});
