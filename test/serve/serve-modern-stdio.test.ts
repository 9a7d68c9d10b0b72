import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, ROOT } from '../helpers/paths.js';
import { SERVE_CATALOG, textOf, waitUntil } from './serve-client.js';

/**
 * The built `toolman serve` over stdio in the 2026-07-28 era, driven by the v2 SDK's client:
 * `serveStdio` pins the connection's era from its first message, so a client that opens with
 * `server/discover` is served statelessly (2025 clients that open with `initialize` are tested in
 * serve-stdio.test.ts, on the v1 client).
 */
type Connected = { client: Client; stderr: () => string; transport: StdioClientTransport };
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.client.close().catch(() => undefined)));
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-serve-modern-stdio-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function connect(options: { catalog?: string; args?: string[]; elicit?: (message: string, schema: unknown) => { action: 'accept' | 'decline'; content?: Record<string, string | number | boolean | string[]> } } = {}) {
  const client = new Client({ name: 'toolman-test-modern-stdio', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const asked: { message: string; schema: unknown }[] = [];
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      asked.push({ message: params.message, schema: params.requestedSchema });
      return answer(params.message, params.requestedSchema);
    });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--catalog', options.catalog ?? SERVE_CATALOG, 'serve', '--verbose', ...(options.args ?? [])],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  await client.connect(transport);
  const connected = { client, stderr: () => stderr, transport };
  open.push(connected);
  return { ...connected, asked };
}

describe('toolman serve over stdio, 2026-07-28', () => {
  it('is served in the modern era: discover, a stable list with a cache hint, calls', async () => {
    const { client } = await connect();
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getDiscoverResult()).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']), capabilities: { tools: { listChanged: true } } });
    const raw = await client.request({ method: 'tools/list', params: {} });
    expect(raw).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('lookup');
    expect(names).toContain('discover_tools');
    expect(names).not.toContain('weather_station');
    expect((await client.callTool({ name: 'lookup', arguments: { key: 's1' } })).structuredContent).toEqual({ key: 's1', found: true });
    expect((await client.callTool({ name: 'weather_station', arguments: {} })).structuredContent).toEqual({ temp_c: 4, wind_kmh: 12 });
  });

  it('sends a result\'s sources as resource links and its verdicts in _meta, as in 2025-11-25 (no citation line in the instructions)', async () => {
    const { client } = await connect({ catalog: join(FIXTURES, 'catalogs', 'result-powers.yaml') });
    expect(client.getDiscoverResult()?.instructions ?? '').not.toContain('cite it as [n]');
    const result = await client.callTool({ name: 'web_search', arguments: { query: 'second' } });
    const [text, ...links] = result.content as { type: string; text?: string }[];
    expect(JSON.parse(text!.text!).results).toHaveLength(2);
    expect(links.map((l) => [l.type, (l as { uri?: string }).uri])).toEqual([['resource_link', 'https://example.org/b'], ['resource_link', 'https://example.org/a']]);
    expect((result._meta?.['toolman/evaluations'] as { name: string; verdict: string }[]).map((v) => `${v.name} ${v.verdict}`)).toEqual(['result_shape pass']);
  });

  it('asks for approval with input_required; the local client may allow a tool for the session', async () => {
    const { client, asked } = await connect({ elicit: () => ({ action: 'accept', content: { always: true } }) });
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'x1' } })).structuredContent).toEqual({ deleted: 'x1' });
    expect(asked).toHaveLength(1);
    // The one client that started toolman is a known principal: the form offers the box.
    expect(asked[0]!.schema).toMatchObject({ properties: { always: { type: 'boolean', title: 'Allow for this session' } } });
    expect((await client.callTool({ name: 'remove_record', arguments: { key: 'x2' } })).structuredContent).toEqual({ deleted: 'x2' });
    expect(asked).toHaveLength(1);
  });

  it('cancels a running call on notifications/cancelled', async () => {
    const { client, stderr } = await connect();
    const abort = new AbortController();
    const waiting = client.callTool({ name: 'wait_long', arguments: {} }, { signal: abort.signal }).catch((error: Error) => error);
    await waitUntil(() => stderr().includes('→ wait_long running'));
    abort.abort();
    await waiting;
    await waitUntil(() => /· wait_long cancelled/.test(stderr()));
    expect(textOf(await client.callTool({ name: 'lookup', arguments: { key: 'after' } }))).toContain('after');
  });

  it('tells a listen subscription when an MCP server of the catalog changes its tools', async () => {
    const catalog = join(dir, 'upstream.yaml');
    writeFileSync(catalog, `toolman: 1\nname: upstream\nmcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(FIXTURES, 'mcp', 'servers', 'scripted-server.mjs'))}, plain]\n    prefix: s_\n`);
    const { client } = await connect({ catalog });
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await client.callTool({ name: 's_add_tool', arguments: { name: 'later' } });
    await waitUntil(() => changed > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('s_later');
    subscription.close();
  });
});
