import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { ServeLimits } from '../../src/serve/call-slots.js';
import { FIXTURES } from '../helpers/paths.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectHttp, mcpClient } from './serve-client.js';
import { serveInProcess, type InProcessServer } from './serve-in-process.js';

// The official SDK client (StreamableHTTPClientTransport) against a 2025-11-25 session whose plain
// requests toolman answers itself (session-transport.ts): every kind of traffic a call can carry.

const servers: InProcessServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function served(options: { catalog?: string; limits?: Partial<ServeLimits> } = {}): Promise<InProcessServer> {
  const server = await serveInProcess(options);
  servers.push(server);
  return server;
}

describe('the SDK client over a session answered by toolman itself', () => {
  it('lists, calls, gets the progress of a call, its log lines, its approval question and list_changed on its stream', async () => {
    const { url, stderr } = await served();
    const { client, seen } = mcpClient({ elicit: () => ({ action: 'accept', content: { always: false } }) });
    // What each POST of a request was answered with: JSON when toolman answered first, else SSE.
    const answeredAs: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
      if (init?.method === 'POST' && body?.method && body.id !== undefined) answeredAs.push(`${body.method} ${response.headers.get('content-type')}`);
      return response;
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recording }));
    clients.push(client);
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('lookup');
    expect((await client.callTool({ name: 'lookup', arguments: { key: 'a' } })).structuredContent).toEqual({ key: 'a', found: true });
    const progress: string[] = [];
    const stepped = await client.callTool({ name: 'progress_steps', arguments: {} }, undefined, { onprogress: (p) => void progress.push(`${p.progress}:${p.message}`) });
    expect(stepped.structuredContent).toEqual({ done: true });
    expect(progress).toEqual(['1:step one', '2:step two']);
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'r' } })).structuredContent).toEqual({ deleted: 'r' });
    expect(seen.elicitations).toHaveLength(1);
    await client.callTool({ name: 'tool_search', arguments: { query: 'weather station temperature' } });
    expect(seen.listChanged).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('weather_station');
    await client.setLoggingLevel('debug');
    // A client without elicitation is told why a destructive call was declined, in a log line on the call's stream.
    const plain = await connectHttp(url);
    clients.push(plain.client);
    const plainLogs: string[] = [];
    plain.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void plainLogs.push(String(n.params.data)));
    const declined = await plain.client.callTool({ name: 'remove_record', arguments: { key: 'r' } });
    expect(declined).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
    expect(plainLogs.join('\n')).toMatch(/cannot ask for/);
    expect(answeredAs).toEqual([
      'initialize text/event-stream',
      'tools/list application/json',
      'tools/call application/json',
      'tools/call text/event-stream',
      'tools/call text/event-stream',
      'tools/call text/event-stream',
      'tools/list application/json',
      'logging/setLevel application/json',
    ]);
    expect(stderr()).not.toMatch(/protocol error|HTTP request failed/);
  });

  it('counts a session idle from the end of its last answer, not from when its request came in', async () => {
    // A call longer than the idle timeout keeps its session (it is busy); once it is answered the
    // client has the whole idle timeout for its next request, as when the SDK's transport answered.
    const { url, stderr } = await served({ catalog: join(FIXTURES, 'catalogs', 'serve', 'limits.yaml'), limits: { idleTimeoutMs: 400 } });
    const { client, transport } = await connectHttp(url);
    clients.push(client);
    expect((await client.callTool({ name: 'overlap', arguments: { ms: 1200 } })).isError).toBeFalsy();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(stderr()).not.toContain(`closing session ${transport.sessionId}`);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('overlap');
  });
});
