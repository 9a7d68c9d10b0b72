import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { catalogDir, startModernHttp } from './helpers.js';

// The standard headers and x-mcp-header mirroring of MCP 2026-07-28
// (basic/transports/streamable-http.mdx, "Standard Request Headers", "Custom Headers from Tool
// Parameters", "Value Encoding"; read 2026-11-24), checked on what a v2 server received.

const stops: (() => void)[] = [];
const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
afterAll(() => stops.forEach((stop) => stop()));

async function serve(env: Record<string, string> = {}) {
  const headersFile = join(mkdtempSync(join(tmpdir(), 'toolman-headers-')), 'headers.jsonl');
  writeFileSync(headersFile, '');
  const server = await startModernHttp([], { HEADERS_FILE: headersFile, ...env });
  stops.push(server.stop);
  const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  web:\n    url: ${JSON.stringify(server.url)}\n`);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
  managers.push(manager);
  const received = () => readFileSync(headersFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method: string; headers: Record<string, string> });
  return { manager, received };
}

async function call(manager: ToolManager, name: string, args: Record<string, unknown>) {
  const session = await manager.session({ approve: async () => 'approve' });
  const [response] = (await session.runTurn([{ id: '1', name, arguments: args }])).responses;
  return response!;
}

describe('HTTP headers of a 2026-07-28 request', () => {
  it('sends Mcp-Method, Mcp-Name and MCP-Protocol-Version, and mirrors x-mcp-header parameters as the spec\'s table encodes them', async () => {
    const { manager, received } = await serve();
    const table: [string, string][] = [
      ['us-west1', 'us-west1'],
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ];
    for (const [region, header] of table) {
      const response = await call(manager, 'weather', { region, days: 3 });
      expect(response.ok, response.error ?? '').toBe(true);
      const last = received().filter((r) => r.headers['mcp-method'] === 'tools/call').at(-1)!;
      expect(last.headers).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': 'weather', 'mcp-protocol-version': '2026-07-28', 'mcp-param-region': header, 'mcp-param-days': '3' });
    }
    // A parameter with no value gets no header.
    expect((await call(manager, 'weather', { region: 'eu' })).ok).toBe(true);
    const last = received().filter((r) => r.headers['mcp-method'] === 'tools/call').at(-1)!;
    expect(last.headers['mcp-param-region']).toBe('eu');
    expect(last.headers).not.toHaveProperty('mcp-param-days');
    // Every request names its method; the list has no Mcp-Name.
    const list = received().find((r) => r.headers['mcp-method'] === 'tools/list')!;
    expect(list.headers).not.toHaveProperty('mcp-name');
  });

  it('lists again and retries once when the server says the headers do not match (the tool gained a mark)', async () => {
    const { manager, received } = await serve({ MARK_LATER: '1' });
    const response = await call(manager, 'weather', { region: 'us-west1' });
    expect(response.ok, response.error ?? '').toBe(true);
    expect(response.content).toContain('weather in us-west1');
    const calls = received().filter((r) => r.headers['mcp-method'] === 'tools/call');
    expect(calls.map((c) => c.headers['mcp-param-region'] ?? null)).toEqual([null, 'us-west1']);
  });

  it('leaves out tools whose marks break the rules, and says so (TM0830)', async () => {
    const { manager } = await serve({ BAD_HEADERS: '1' });
    const names = manager.catalog.tools.map((t) => t.name);
    expect(names).toContain('weather');
    expect(names).not.toContain('bad_header_space');
    const findings = manager.loaded.diagnostics.filter((d) => d.code === 'TM0830');
    expect(findings.map((d) => d.message)).toEqual([
      'mcp server "web": tool "bad_header_space": left out: invalid x-mcp-header: property "a": x-mcp-header "Bad Name" is not an HTTP header token',
      'mcp server "web": tool "bad_header_number": left out: invalid x-mcp-header: property "n": x-mcp-header on a parameter of type number (only integer, string or boolean)',
      'mcp server "web": tool "bad_header_twice": left out: invalid x-mcp-header: x-mcp-header "NAME" differs only in case from "Name"',
    ]);
  });
});
