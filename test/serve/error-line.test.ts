import { afterEach, describe, expect, it } from 'vitest';
import { errorLine, MOST_LOGGED_CHARACTERS } from '../../src/serve/error-line.js';
import { serveInProcess, type InProcessServer } from './serve-in-process.js';

// Errors met while serving reach the operator's log as one bounded line each: a client's
// malformed message must not write tens of lines (the SDK's zod report) per request.

describe('errorLine', () => {
  it('puts a message on one line without control characters, and counts what passes the bound', () => {
    expect(errorLine('protocol error', new Error('a\n  b\tc\u001b]0;title\u0007'))).toBe('protocol error: a b c');
    const long = errorLine('HTTP request failed', new Error('x'.repeat(MOST_LOGGED_CHARACTERS + 50)));
    expect(long).toBe(`HTTP request failed: ${'x'.repeat(MOST_LOGGED_CHARACTERS)}… (50 more characters)`);
    expect(errorLine('protocol error', 'not an Error')).toBe('protocol error: not an Error');
  });
});

describe('serve logs a malformed message as one line', () => {
  let served: InProcessServer | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('in a 2025-11-25 session: one short line for a message with an unknown key, however many zod issues the SDK reports', async () => {
    served = await serveInProcess();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(served.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const bad = await fetch(served.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', ['\u001b]0;x\u0007'.repeat(40)]: 1 }) });
    expect(bad.status).toBe(400);
    // Every line of the log is an entry of its own (the SDK's report began a 70-line JSON dump).
    const log = served.stderr().split('\n');
    expect(log.filter((line) => !/^[a-z]/i.test(line))).toEqual([]);
    const lines = log.filter((line) => line.startsWith('protocol error'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(MOST_LOGGED_CHARACTERS + 60);
    expect(lines[0]).not.toMatch(/\u001b|\u0007/);
  });
});
