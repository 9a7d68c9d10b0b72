import type { IncomingHttpHeaders } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isLegacyPost } from '../../src/serve/http-host.js';

const MODERN = '2026-07-28';
const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };

/** What the SDK's own predicate says of the same POST, built as a web Request the way its docs show. */
async function sdkSays(headers: IncomingHttpHeaders, body: unknown): Promise<boolean> {
  const web = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) web.set(name, Array.isArray(value) ? value.join(', ') : value);
  return isLegacyRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: web, body: JSON.stringify(body) }));
}

const cases: { what: string; headers: IncomingHttpHeaders; body: unknown }[] = [
  { what: 'initialize', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } },
  { what: 'a 2025 call without a session', headers: { 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } } },
  { what: 'a 2025 notification', headers: {}, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { what: 'a posted response', headers: {}, body: { jsonrpc: '2.0', id: 3, result: {} } },
  { what: 'a batch', headers: {}, body: [{ jsonrpc: '2.0', id: 4, method: 'ping' }] },
  { what: 'a 2026-07-28 call', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'x' }, body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: envelope } } },
  { what: 'server/discover', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' }, body: { jsonrpc: '2.0', id: 6, method: 'server/discover', params: { _meta: envelope } } },
  { what: 'a modern header without the envelope', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 7, method: 'tools/list' } },
  { what: 'headers that disagree with the body', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' }, body: { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: envelope } } },
  { what: 'header values with spaces around them', headers: { 'mcp-protocol-version': ` ${MODERN} `, 'mcp-method': ' tools/list' }, body: { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: envelope } } },
  { what: 'an envelope naming an unknown revision', headers: {}, body: { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } } },
  { what: 'not JSON-RPC', headers: {}, body: { hello: 'world' } },
  // Bodies with the envelope's claim (answered without the classifier, claimsEnvelope): never legacy.
  { what: 'a 2026-07-28 call without the standard headers', headers: {}, body: { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: envelope } } },
  { what: 'a 2026-07-28 notification', headers: { 'mcp-protocol-version': MODERN }, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope } } },
  { what: 'a claim naming a 2025 revision', headers: {}, body: { jsonrpc: '2.0', id: 12, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } } },
  { what: 'a claim that is not a string', headers: {}, body: { jsonrpc: '2.0', id: 13, method: 'tools/list', params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': 7 } } } },
  { what: 'a claim with the rest of the envelope missing', headers: {}, body: { jsonrpc: '2.0', id: 14, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } } },
  { what: 'a claim on a 2025 session\'s header', headers: { 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 15, method: 'tools/list', params: { _meta: envelope } } },
  // ...and those the shortcut leaves to the classifier.
  { what: 'initialize with a modern claim', headers: {}, body: { jsonrpc: '2.0', id: 16, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' }, _meta: envelope } } },
  { what: 'initialize with a broken claim', headers: {}, body: { jsonrpc: '2.0', id: 17, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } } },
  { what: 'a posted response with a method and a claim', headers: {}, body: { jsonrpc: '2.0', id: 18, method: 'tools/list', result: {}, params: { _meta: envelope } } },
  { what: 'a posted error with a method and a claim', headers: {}, body: { jsonrpc: '2.0', id: 19, method: 'tools/list', error: { code: 1, message: 'm' }, params: { _meta: envelope } } },
  { what: 'a batch of claims', headers: {}, body: [{ jsonrpc: '2.0', id: 20, method: 'tools/list', params: { _meta: envelope } }] },
  { what: 'a claim in params that are an array', headers: {}, body: { jsonrpc: '2.0', id: 21, method: 'tools/list', params: [{ _meta: envelope }] } },
  { what: 'null', headers: {}, body: null },
];

describe('the era of a POST', () => {
  // serve classifies with the SDK's classifier directly (no web Request per request, issue 24);
  // it must answer as the SDK's own predicate does, or a request could reach the wrong era.
  it.each(cases)('$what: the same answer as the SDK\'s isLegacyRequest', async ({ headers, body }) => {
    expect(isLegacyPost({ headers }, body)).toBe(await sdkSays(headers, body));
  });

  it('takes both eras\' requests apart', () => {
    expect(isLegacyPost({ headers: {} }, cases[0]!.body)).toBe(true);
    expect(isLegacyPost({ headers: cases[5]!.headers }, cases[5]!.body)).toBe(false);
  });
});
