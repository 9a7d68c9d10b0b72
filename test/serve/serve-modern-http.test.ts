import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServeLimits } from '../../src/serve/call-slots.js';
import { FIXTURES } from '../helpers/paths.js';
import { connectModern, envelope, modernRequest, MODERN } from './modern-client.js';
import { connectHttp, textOf, waitUntil } from './serve-client.js';
import { serveInProcess } from './serve-in-process.js';

/**
 * `toolman serve --port` in the 2026-07-28 era, beside 2025-11-25 sessions on the same port: the
 * v2 SDK's client (pinned to 2026-07-28) and the v1 SDK's (initialize) against one server, and
 * raw requests for what a well-behaved client never sends. The server runs in this process.
 */
type Served = { url: string; stderr(): string; close(): Promise<void> };
const servers: Served[] = [];
const clients: (ModernClient | LegacyClient)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: { catalog?: string; yes?: boolean; limits?: Partial<ServeLimits>; token?: string; requireValid?: false } = {}): Promise<Served> {
  const served = await serveInProcess({ ...options, verbose: true });
  servers.push(served);
  return served;
}

async function modern(url: string, options: Parameters<typeof connectModern>[1] = {}) {
  const connected = await connectModern(url, options);
  clients.push(connected.client);
  return connected;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-serve-modern-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('both eras on one port', () => {
  it('serves a 2026-07-28 client and a 2025-11-25 client side by side, each in its own way', async () => {
    const served = await serve();
    const { client: v2 } = await modern(served.url);
    expect(v2.getProtocolEra()).toBe('modern');
    const { client: v1 } = await connectHttp(served.url);
    clients.push(v1);
    const modernNames = (await v2.listTools()).tools.map((t) => t.name);
    const legacyNames = (await v1.listTools()).tools.map((t) => t.name);
    // Deferred tools: 2025 sessions find them with tool_search; 2026 clients with the discover meta-tools.
    expect(modernNames).toEqual([...legacyNames.filter((n) => n !== 'tool_search'), 'discover_tools', 'get_tool_schema', 'invoke_tool']);
    expect(modernNames).not.toContain('archive_everything');
    expect(modernNames).not.toContain('weather_station');
    expect((await v2.callTool({ name: 'lookup', arguments: { key: 'm1' } })).structuredContent).toEqual({ key: 'm1', found: true });
    expect((await v1.callTool({ name: 'lookup', arguments: { key: 'l1' } })).structuredContent).toEqual({ key: 'l1', found: true });
    // Each 2026 result names the server (`basic/index.mdx` §_meta: serverInfo SHOULD be on every result).
    const raw = await modernRequest(served.url, 'tools/call', { name: 'lookup', arguments: { key: 'r1' } });
    expect(raw.response?.result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolman', version: '0.0.0' } } });
  });

  it('answers server/discover with its versions, capabilities, instructions and a cache hint', async () => {
    const served = await serve();
    const { response } = await modernRequest(served.url, 'server/discover');
    expect(response?.result).toMatchObject({
      supportedVersions: expect.arrayContaining([MODERN]),
      capabilities: { tools: { listChanged: true } },
      ttlMs: 300_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolman' } },
    });
    expect(String(response?.result?.instructions)).toContain('discover_tools finds them');
  });

  it('lists in catalog order, the same every time, with a five-minute public cache hint; private behind a token', async () => {
    const served = await serve();
    const first = await modernRequest(served.url, 'tools/list');
    const second = await modernRequest(served.url, 'tools/list');
    expect(first.response?.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public', resultType: 'complete' });
    expect(first.response?.result?.tools).toEqual(second.response?.result?.tools);
    const names = (first.response?.result?.tools as { name: string }[]).map((t) => t.name);
    expect(names.slice(0, 3)).toEqual(['lookup', 'add_note', 'remove_record']);
    expect(first.response?.result?.nextCursor).toBeUndefined();
    // A list that may hold what a token grants is private to that token (`server/utilities/caching.mdx`).
    const guarded = await serve({ token: 'modern-token-0123456789' });
    const behind = await modernRequest(guarded.url, 'tools/list', {}, { token: 'modern-token-0123456789' });
    expect(behind.response?.result).toMatchObject({ cacheScope: 'private', ttlMs: 300_000 });
    expect((await modernRequest(guarded.url, 'tools/list')).status).toBe(401);
  });

  it('pages a long list with an opaque cursor; a cursor it did not make is refused', async () => {
    const catalog = join(dir, 'many.yaml');
    const tools = Array.from({ length: 230 }, (_, i) => `  - { name: tool_${String(i).padStart(3, '0')}, description: Tool number ${i} of many for paging, handler: { mock: [{ result: ${i} }] } }`);
    writeFileSync(catalog, `toolman: 1\nname: many\ndefaults: { effect: read }\ntools:\n${tools.join('\n')}\n`);
    const served = await serve({ catalog });
    const page1 = await modernRequest(served.url, 'tools/list');
    const cursor1 = page1.response?.result?.nextCursor as string;
    expect((page1.response?.result?.tools as unknown[]).length).toBe(100);
    expect(cursor1).toMatch(/^[A-Za-z0-9_-]+$/);
    const page2 = await modernRequest(served.url, 'tools/list', { cursor: cursor1 });
    expect((page2.response?.result?.tools as { name: string }[])[0]!.name).toBe('tool_100');
    // Each page carries its own hint, the same scope (`caching.mdx` §Interaction with Pagination).
    expect(page2.response?.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const page3 = await modernRequest(served.url, 'tools/list', { cursor: page2.response?.result?.nextCursor });
    expect((page3.response?.result?.tools as unknown[]).length).toBe(30);
    expect(page3.response?.result?.nextCursor).toBeUndefined();
    // The SDK client walks every page.
    const { client } = await modern(served.url);
    expect((await client.listTools()).tools).toHaveLength(230);
    for (const forged of ['bm9wZQ', Buffer.from('100.0000000000000000').toString('base64url'), Buffer.from('7.' + cursor1).toString('base64url'), 'x'.repeat(100)]) {
      const refused = await modernRequest(served.url, 'tools/list', { cursor: forged });
      expect(refused.response?.error?.code, forged).toBe(-32602);
    }
  });

  it('calls a deferred tool by its name, and finds it with discover_tools', async () => {
    const served = await serve();
    const { client } = await modern(served.url);
    const found = await client.callTool({ name: 'discover_tools', arguments: { keyword: 'weather' } });
    expect(textOf(found)).toContain('weather_station');
    expect((await client.callTool({ name: 'weather_station', arguments: {} })).structuredContent).toEqual({ temp_c: 4, wind_kmh: 12 });
    // Calling it changed nothing anyone is told: the list stays as it was.
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('weather_station');
    // Denied tools stay unknown.
    await expect(client.callTool({ name: 'archive_everything', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

describe('approvals in the 2026-07-28 era (input_required)', () => {
  it('asks through input_required and runs the call when the client retries with the answer', async () => {
    const served = await serve();
    const { client, seen } = await modern(served.url, { elicit: () => ({ action: 'accept', content: {} }) });
    const result = await client.callTool({ name: 'remove_record', arguments: { key: 'k9' } });
    expect(result.structuredContent).toEqual({ deleted: 'k9' });
    expect(seen.elicitations).toHaveLength(1);
    expect(seen.elicitations[0]!.message).toMatch(/remove_record is destructive. Allow toolman to run remove_record/);
    // An anonymous client is not offered "for this session": there is no session to remember it in.
    expect(seen.elicitations[0]!.schema).toEqual({ type: 'object', properties: {} });
    // So the next call asks again.
    await client.callTool({ name: 'remove_record', arguments: { key: 'k10' } });
    expect(seen.elicitations).toHaveLength(2);
  });

  it('a declined answer declines the call, nothing runs', async () => {
    const served = await serve();
    const { client } = await modern(served.url, { elicit: () => ({ action: 'decline' }) });
    const result = await client.callTool({ name: 'remove_record', arguments: { key: 'k1' } });
    expect(result).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
  });

  it('a client that cannot answer forms gets the declined call with the reason, as in 2025', async () => {
    const served = await serve();
    const { client } = await modern(served.url);
    const result = await client.callTool({ name: 'remove_record', arguments: { key: 'k1' } });
    expect(result).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'declined' } });
    expect(textOf(result)).toMatch(/cannot ask for .*--yes/);
  });

  it('binds the state to the call: tampered, swapped arguments, another tool, a replay and a lone answer are refused', async () => {
    const served = await serve();
    const caps = { elicitation: { form: {} } };
    const ask = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'a' } }, { capabilities: caps });
    const asked = ask.response?.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests.approval!.method).toBe('elicitation/create');
    expect(typeof asked.requestState).toBe('string');
    const accept = { approval: { action: 'accept', content: {} } };
    const retry = (args: Record<string, unknown>, state: string, name = 'remove_record') => modernRequest(served.url, 'tools/call', { name, arguments: args, inputResponses: accept, requestState: state }, { capabilities: caps });

    // One character changed: the MAC fails (-32602, the SDK's frozen message).
    const at = asked.requestState.length - 3;
    const flipped = asked.requestState.slice(0, at) + (asked.requestState[at] === 'A' ? 'B' : 'A') + asked.requestState.slice(at + 1);
    expect((await retry({ key: 'a' }, flipped)).response?.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    // Another key under the same state: refused, nothing deleted.
    expect((await retry({ key: 'everything' }, asked.requestState)).response?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/issued for another call/) });
    // The state for another tool.
    expect((await retry({ key: 'a' }, asked.requestState, 'add_note')).response?.error?.code).toBe(-32602);
    // The call it was asked for runs, once.
    expect((await retry({ key: 'a' }, asked.requestState)).response?.result).toMatchObject({ structuredContent: { deleted: 'a' } });
    expect((await retry({ key: 'a' }, asked.requestState)).response?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/already answered/) });
    // An answer without state is no answer: the question comes again.
    const lone = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'b' }, inputResponses: accept }, { capabilities: caps });
    expect(lone.response?.result?.resultType).toBe('input_required');
    // State with no answer in it: asked again, with new state.
    const again = await modernRequest(served.url, 'tools/call', { name: 'remove_record', arguments: { key: 'b' }, requestState: (lone.response?.result as { requestState: string }).requestState }, { capabilities: caps });
    expect(again.response?.result?.resultType).toBe('input_required');
    expect(served.stderr()).not.toMatch(/deleted.*everything/);
  });

  it('runs with --yes without asking', async () => {
    const served = await serve({ yes: true });
    const { client, seen } = await modern(served.url, { elicit: () => ({ action: 'decline' }) });
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'y' } })).structuredContent).toEqual({ deleted: 'y' });
    expect(seen.elicitations).toHaveLength(0);
  });
});

describe('what the 2026-07-28 transport refuses', () => {
  it('checks the standard headers against the body: 400 with -32020', async () => {
    const served = await serve();
    const method = await modernRequest(served.url, 'tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } });
    expect(method.status).toBe(400);
    expect(method.response?.error?.code).toBe(-32020);
    const name = await modernRequest(served.url, 'tools/call', { name: 'lookup', arguments: { key: 'x' } }, { headers: { 'mcp-name': 'remove_record' } });
    expect(name.status).toBe(400);
    expect(name.response?.error?.code).toBe(-32020);
    const missing = await modernRequest(served.url, 'tools/call', { name: 'lookup', arguments: { key: 'x' } }, { headers: { 'mcp-name': null } });
    expect(missing.status).toBe(400);
    const version = await modernRequest(served.url, 'tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(version.status).toBe(400);
    expect(version.response?.error?.code).toBe(-32020);
    // A name outside plain ASCII comes in the Base64 sentinel form.
    const encoded = await modernRequest(served.url, 'tools/call', { name: 'lookup', arguments: { key: 'x' } }, { headers: { 'mcp-name': `=?base64?${Buffer.from('lookup').toString('base64')}?=` } });
    expect(encoded.status).toBe(200);
  });

  it('checks Mcp-Param headers against the arguments for a tool with x-mcp-header', async () => {
    // No catalog can carry the keyword yet (validate: TM0301; the MCP import drops it), so this
    // catalog is opened without validation: what is tested is serve's check, not the loader.
    const catalog = join(dir, 'headers.yaml');
    writeFileSync(catalog, 'toolman: 1\nname: headers\ntools:\n  - name: region_query\n    description: Runs a query in a region.\n    effect: read\n    parameters: { type: object, properties: { region: { type: string, description: Region, x-mcp-header: Region }, q: { type: string, description: Query } }, required: [region] }\n    handler: { mock: [{ result: "ran in {{region}}" }] }\n');
    const served = await serve({ catalog, requireValid: false });
    const listed = await modernRequest(served.url, 'tools/list');
    expect((listed.response?.result?.tools as { inputSchema: { properties: Record<string, Record<string, unknown>> } }[])[0]!.inputSchema.properties.region!['x-mcp-header']).toBe('Region');
    const call = (headers: Record<string, string | null>) => modernRequest(served.url, 'tools/call', { name: 'region_query', arguments: { region: 'us-west1', q: 'x' } }, { headers });
    const missing = await call({});
    expect(missing.status).toBe(400);
    expect(missing.response?.error).toMatchObject({ code: -32020, message: expect.stringMatching(/Mcp-Param-Region header is missing/) });
    expect((await call({ 'mcp-param-region': 'eu-west1' })).response?.error?.code).toBe(-32020);
    expect((await call({ 'mcp-param-region': '=?base64?SGVsbG8?=' })).status).toBe(400);
    const ok = await call({ 'mcp-param-region': 'us-west1' });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.response?.result)).toContain('ran in us-west1');
    // The SDK's client mirrors the header itself.
    const { client } = await modern(served.url);
    expect(textOf(await client.callTool({ name: 'region_query', arguments: { region: 'ap-south1' } }))).toContain('ap-south1');
  });

  it('answers an unknown version with -32022 and the versions it speaks', async () => {
    const served = await serve();
    const answer = await modernRequest(served.url, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, { headers: { 'mcp-protocol-version': '2099-01-01' } });
    expect(answer.status).toBe(400);
    expect(answer.response?.error).toMatchObject({ code: -32022, data: { supported: expect.arrayContaining([MODERN]) } });
  });

  it('GET and DELETE without a session are 405; an unknown session is 404; a stray Mcp-Session-Id on a 2026 request is ignored', async () => {
    const served = await serve();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(served.url, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toContain('POST');
    }
    expect((await fetch(served.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } })).status).toBe(404);
    const stray = await modernRequest(served.url, 'tools/list', {}, { headers: { 'mcp-session-id': 'made-up' } });
    expect(stray.status).toBe(200);
    expect(stray.headers.get('mcp-session-id')).toBeNull();
    // Methods 2026-07-28 removed are unknown methods: 404 with -32601.
    const ping = await modernRequest(served.url, 'ping');
    expect(ping.status).toBe(404);
    expect(ping.response?.error?.code).toBe(-32601);
  });

  it('refuses a body that is not JSON by its content type (415)', async () => {
    const served = await serve();
    const res = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(415);
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges what it honours, and tells a listener when an MCP server\'s tools change', async () => {
    const catalog = join(dir, 'upstream.yaml');
    writeFileSync(catalog, `toolman: 1\nname: upstream\nmcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(FIXTURES, 'mcp', 'servers', 'scripted-server.mjs'))}, plain]\n    prefix: s_\n`);
    const served = await serve({ catalog });
    const { client } = await modern(served.url);
    const changes: number[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void changes.push(Date.now()));
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    // Prompts never change here: only what toolman can honour is acknowledged.
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('s_add_tool');
    await client.callTool({ name: 's_add_tool', arguments: { name: 'fresh' } });
    await waitUntil(() => changes.length > 0);
    const after = (await client.listTools()).tools.map((t) => t.name);
    expect(after).toContain('s_fresh');
    expect(after.indexOf('s_fresh')).toBeGreaterThan(after.indexOf('s_say'));
    subscription.close();
  });
});

describe('the listen stream on the wire', () => {
  it('opens with the acknowledgement, carrying the subscription id (the request\'s id)', async () => {
    const served = await serve();
    const controller = new AbortController();
    const res = await fetch(served.url, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///nothing'] }, _meta: envelope() } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const first = JSON.parse(text.split('\n').find((l) => l.startsWith('data:'))!.slice(5)) as { method: string; params: Record<string, unknown> };
    expect(first.method).toBe('notifications/subscriptions/acknowledged');
    expect(first.params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 77 });
    // Resources never change here, so no subscription to one is honoured.
    expect(first.params.notifications).toEqual({ toolsListChanged: true });
  });
});

describe('calls in the 2026-07-28 era', () => {
  it('sends progress on the call\'s stream and stops a call whose stream the client closes', async () => {
    const served = await serve();
    const { client } = await modern(served.url);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'progress_steps', arguments: {} }, { onprogress: (p) => void progress.push(p.progress) });
    expect(result.structuredContent).toEqual({ done: true });
    expect(progress).toEqual([1, 2]);
    const abort = new AbortController();
    const waiting = client.callTool({ name: 'wait_long', arguments: {} }, { signal: abort.signal }).catch((error: Error) => error);
    await waitUntil(() => served.stderr().includes('→ wait_long running'));
    abort.abort();
    await waiting;
    // Closing the stream is the cancellation (`basic/patterns/cancellation.mdx`): the executor stops the call.
    await waitUntil(() => /wait_long \(cancelled\)|· wait_long cancelled/.test(served.stderr()));
  });
});

describe('background jobs in the 2026-07-28 era', () => {
  it('gives each job an id of at least 128 random bits, and collects it by that id', async () => {
    const catalog = join(dir, 'jobs.yaml');
    writeFileSync(catalog, 'toolman: 1\nname: jobs\ndefaults: { effect: read }\ntools:\n  - name: slow_report\n    description: Builds a report in the background and answers later.\n    mode: background\n    handler: { mock: [{ latency_ms: 50, result: { report: ready } }] }\n');
    const served = await serve({ catalog });
    const { client } = await modern(served.url);
    const started = await client.callTool({ name: 'slow_report', arguments: {} });
    const jobId = (started._meta as Record<string, string>)['toolman/job_id']!;
    // job_ and 16 random bytes as 22 base64url characters.
    expect(jobId).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(textOf(await client.callTool({ name: 'job_result', arguments: { job_id: jobId } }))).toContain('ready');
    expect((await client.callTool({ name: 'job_status', arguments: { job_id: 'job_guessed' } })).isError).toBe(true);
  });
});

describe('limits hold in the 2026-07-28 era', () => {
  it('at most --max-session-calls calls of one client run at once; past the queue, busy', async () => {
    const served = await serve({ limits: { maxCallsPerSession: 1, maxCalls: 10 } });
    const { client } = await modern(served.url);
    const calls = Array.from({ length: 6 }, () => client.callTool({ name: 'wait_long', arguments: {} }, { timeout: 60_000 }).catch((error: Error) => error));
    // One runs, four wait (four times the limit), the sixth is turned away at once.
    const busy = await Promise.race(calls);
    expect(busy).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'busy' } });
    expect(served.stderr()).toMatch(/busy: 1 calls are running for this client/);
  });
});
