import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { McpToolsChange } from '../../src/mcp/mcp-servers.js';
import { toMcpTool } from '../../src/serve/mcp-tool.js';
import { catalogDir, EVERYTHING, FILESYSTEM, scripted } from './helpers.js';

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function open(yaml: string, options: { env?: Record<string, string>; requireValid?: boolean | 'all'; refreshMcp?: boolean; at?: { dir: string; file: string } } = {}) {
  const { dir, file } = options.at ?? catalogDir(yaml);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { ...process.env, TOOLMAN_CACHE_DIR: 'off', ...options.env }, requireValid: options.requireValid ?? false, ...(options.refreshMcp ? { refreshMcp: true } : {}) });
  managers.push(manager);
  return { manager, dir, file };
}

const HEADER = 'toolman: 1\nname: t\n';

describe('MCP servers in a catalog', () => {
  it('joins the reference server\'s tools with prefix, include/exclude, defaults, annotations and overrides', async () => {
    const { manager } = await open(`${HEADER}overrides:
  - tools: [ev_get-sum]
    set: { category: maths }
mcp_servers:
  everything:
    command: ${JSON.stringify(EVERYTHING)}
    prefix: ev_
    include: ["get-*", echo, gzip-file-as-resource]
    exclude: [get-env]
    defaults: { category: demo, defer_loading: true }
`);
    const tools = manager.catalog.tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain('ev_echo');
    expect(names).toContain('ev_get-tiny-image');
    expect(names).not.toContain('ev_get-env');
    expect(names).not.toContain('ev_trigger-long-running-operation');
    const echo = manager.tool('ev_echo');
    expect(echo).toMatchObject({ effect: 'read', category: 'demo', deferLoading: true, handler: { kind: 'mcp', server: 'everything', tool: 'echo' }, source: { kind: 'mcp', server: 'everything', tool: 'echo', pointer: '/mcp_servers/everything' } });
    expect(echo.tags).toContain('idempotent');
    // Served on (toolman serve), the server's own hints that have no catalog field pass through.
    expect(toMcpTool(echo).annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
    expect(toMcpTool(manager.tool('ev_gzip-file-as-resource')).annotations).toMatchObject({ openWorldHint: true });
    // destructiveHint false, readOnlyHint false: write.
    expect(manager.tool('ev_gzip-file-as-resource').effect).toBe('write');
    expect(manager.tool('ev_get-sum').category).toBe('maths');
    expect(manager.tool('ev_get-sum').overriddenBy?.[0]?.fields).toEqual(['category']);
    expect(manager.mcpServers()).toEqual([expect.objectContaining({ name: 'everything', source: 'live', tools: names.length })]);
  });

  it('validates their tools: findings point at the server entry and name the tool', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:
  everything:
    command: ${JSON.stringify(EVERYTHING)}
`);
    const findings = (await manager.validate()).filter((d) => d.tool === 'get-resource-reference');
    expect(findings.length).toBeGreaterThan(0);
    expect(findings[0]).toMatchObject({ code: 'TM0304', line: 4, column: 3, pointer: '/mcp_servers/everything' });
    expect(findings[0]!.message).toMatch(/^mcp server "everything" tool "get-resource-reference": parameters\.properties\.resourceType: /);
  });

  it('budgets and searches their tools like any other', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:
  files:
    command: ${JSON.stringify(FILESYSTEM)}
    args: [.]
    prefix: fs_
`);
    const report = await manager.budget({ provider: 'openai' });
    const names = JSON.stringify(report);
    expect(names).toContain('fs_read_text_file');
    const hits = (await manager.search()).search('read a file', { limit: 3 });
    expect(JSON.stringify(hits)).toContain('fs_read');
  });

  it('calls their tools through the executor: results, error results and progress', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:
  s:
${scripted('plain')}
  everything:
    command: ${JSON.stringify(EVERYTHING)}
`);
    const events: string[] = [];
    const session = await manager.session({ onEvent: (e) => events.push(e.type === 'tool_progress' ? `progress ${e.progress}/${e.total}` : e.type) });
    const turn = await session.runTurn([
      { id: 'a', name: 'say', arguments: { text: 'hello' } },
      { id: 'b', name: 'fail', arguments: {} },
      { id: 'c', name: 'get-structured-content', arguments: { location: 'Chicago' } },
      { id: 'd', name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
    ]);
    const [say, fail, structured, long] = turn.responses;
    expect(say).toMatchObject({ ok: true, content: 'said: hello' });
    expect(fail).toMatchObject({ ok: false });
    expect(JSON.stringify(fail)).toContain('the thing went wrong');
    expect(structured).toMatchObject({ ok: true });
    expect(JSON.parse((structured as { content: string }).content)).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
    expect(long).toMatchObject({ ok: true });
    expect(events).toContain('progress 1/2');
  });

  it('reports a server that exits at start, and the rest keeps working', async () => {
    const { manager } = await open(`${HEADER}tools:
  - name: local
    description: A local tool that keeps working when a server fails.
    handler: { mock: [{ result: ok }] }
mcp_servers:
  broken:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(join(__dirname, '..', 'fixtures', 'mcp', 'servers', 'exits-at-start.mjs'))}]
  good:
${scripted('plain')}
`, { requireValid: 'all' });
    expect(manager.catalog.tools.map((t) => t.name)).toEqual(['local', 'say', 'fail', 'wait', 'add_tool']);
    const finding = (await manager.validate()).find((d) => d.code === 'TM0802');
    expect(finding).toMatchObject({ severity: 'warning', pointer: '/mcp_servers/broken' });
    expect(finding!.message).toContain('exited with code 3');
    expect(finding!.message).toContain('fatal: cannot read config file');
    const session = await manager.session();
    const turn = await session.runTurn([{ id: '1', name: 'local', arguments: {} }]);
    expect(turn.responses[0]).toMatchObject({ ok: true });
  });

  it('refuses a tool whose name another tool has, naming both', async () => {
    const { manager } = await open(`${HEADER}tools:
  - name: say
    description: A catalog tool that has the server's tool name.
    handler: { mock: [{ result: ok }] }
mcp_servers:
  s:
${scripted('plain')}
`);
    const findings = (await manager.validate()).filter((d) => d.code === 'TM0801');
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(/tool "say" \(MCP name "say"\) has the same name as tool "say" at .*toolman\.yaml:4:11; left out/);
    expect(findings[0]!.severity).toBe('error');
    expect(manager.catalog.tools.filter((t) => t.name === 'say')).toHaveLength(1);
    expect(manager.tool('say').source.kind).toBe('catalog');
  });

  it('handles a hostile tool list: no escapes, a cut description, bad and deep schemas', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:
  h:
${scripted('hostile')}
`);
    const tools = manager.catalog.tools;
    const text = JSON.stringify(tools.map((t) => [t.name, t.title, t.description]));
    expect(text).not.toMatch(/\\u001b|\\u0007|\\u009b/);
    const evil = tools.find((t) => t.name.startsWith('evil'))!;
    expect(evil.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(evil.description).toBe('Clears the screen 31m and rings a bell.');
    expect(manager.tool('huge').description!.length).toBeLessThanOrEqual(8000);
    expect(manager.tool('huge').description!.length).toBeGreaterThan(7990);
    expect(manager.tool('bad_schema').parameters).toEqual({ type: 'object', properties: {} });
    expect(manager.tool('ok_tool')).toBeDefined();
    expect(tools.find((t) => t.name === 'deep')).toBeUndefined();
    const notes = (await manager.validate()).filter((d) => d.code === 'TM0804').map((d) => d.message);
    expect(notes).toEqual(expect.arrayContaining([expect.stringContaining('"huge": its description has 100000 characters'), expect.stringContaining('"deep": skipped'), expect.stringContaining('not a tool with a name')]));
  });

  it('fails the call, not toolman, when a server sends one message past the read limit', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:\n  h:\n${scripted('hostile')}`);
    // Tools without annotations are destructive by the MCP defaults: approved here.
    const session = await manager.session({ approve: async () => 'approve' });
    const [flood] = (await session.runTurn([{ id: 'f', name: 'flood', arguments: {} }])).responses;
    expect(flood!.ok).toBe(false);
    expect(flood!.error, flood!.error ?? '').toContain('sent a message over 16 MiB and was stopped');
    // A content block of an unknown kind is named, and the rest of the result is kept.
    const [odd] = (await session.runTurn([{ id: 'o', name: 'odd_blocks', arguments: {} }])).responses;
    expect(odd!.ok, odd!.error ?? '').toBe(true);
    expect(odd!.content).toContain('kept');
    expect(odd!.content).toContain('[weird content]');
    // The server starts again for the next call.
    const [again] = (await session.runTurn([{ id: 'g', name: 'ok_tool', arguments: {} }])).responses;
    expect(again!.error ?? '').not.toMatch(/not connected/i);
  }, 30_000);

  it('says when a tool list was cut short (a server repeating its page)', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:\n  l:\n${scripted('looping')}`);
    expect(manager.catalog.tools.map((t) => t.name)).toEqual(['say', 'fail', 'wait', 'add_tool']);
    const notes = (await manager.validate()).filter((d) => d.code === 'TM0804').map((d) => d.message);
    expect(notes).toEqual([expect.stringContaining('the tool list was cut: its tool list repeats a page')]);
  });

  it('leaves out a server tool that would get the catalog refused, says so, and keeps the rest', async () => {
    const yaml = `${HEADER}tools:\n  - name: own\n    description: The catalog's own tool, which must keep working.\n    parameters: { type: object, properties: {} }\n    handler: { mock: [ { result: ok } ] }\nmcp_servers:\n  h:\n${scripted('hostile')}`;
    const at = catalogDir(yaml);
    const { manager } = await open(yaml, { requireValid: 'all', at });
    expect(manager.leftOut.map((l) => l.tool)).toEqual(['remote_ref']);
    expect(manager.leftOut[0]!.reason).toMatch(/^TM\d{4} /);
    expect(manager.catalog.tools.some((t) => t.name === 'remote_ref')).toBe(false);
    expect(manager.tool('ok_tool')).toBeDefined();
    expect(manager.tool('own')).toBeDefined();
    // validate still shows it, at the server's entry.
    const checked = await open(yaml, { at });
    expect((await checked.manager.validate()).some((d) => d.severity === 'error' && d.tool === 'remote_ref')).toBe(true);
  });

  it('uses the cached tool list without starting the server, and --refresh asks again', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-mcp-cache-'));
    const starts = join(cache, 'starts');
    writeFileSync(starts, '');
    const yaml = `${HEADER}mcp_servers:
  s:
${scripted('plain', '    env: { STARTS_FILE: "${env:STARTS_FILE}" }\n')}`;
    const env = { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: join(cache, '..', 'state'), STARTS_FILE: starts };
    const at = catalogDir(yaml);
    const first = await open(yaml, { env, at });
    expect(first.manager.mcpServers()[0]!.source).toBe('live');
    await first.manager.close();
    const second = await open(yaml, { env, at });
    expect(second.manager.mcpServers()[0]).toMatchObject({ source: 'cache', stale: false });
    expect(second.manager.catalog.tools.map((t) => t.name)).toEqual(['say', 'fail', 'wait', 'add_tool']);
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
    await second.manager.close();
    const third = await open(yaml, { env, refreshMcp: true, at });
    expect(third.manager.mcpServers()[0]!.source).toBe('live');
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('shows a stale cached list with its age', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolman-mcp-cache-'));
    const yaml = `${HEADER}mcp_servers:\n  s:\n${scripted('plain')}`;
    const at = catalogDir(yaml);
    const first = await open(yaml, { env: { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: join(cache, '..', 'state') }, at });
    await first.manager.close();
    const later = Date.now() + 3 * 24 * 3600_000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      const { manager } = await open(yaml, { env: { TOOLMAN_CACHE_DIR: cache, XDG_STATE_HOME: join(cache, '..', 'state') }, at });
      expect(manager.mcpServers()[0]).toMatchObject({ source: 'cache', stale: true });
      const note = (await manager.validate()).find((d) => d.code === 'TM0803');
      expect(note?.message).toContain('3 days old');
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('refreshes the tools on notifications/tools/list_changed and says what changed', async () => {
    const { manager } = await open(`${HEADER}mcp_servers:\n  s:\n${scripted('plain')}`);
    const changes: McpToolsChange[] = [];
    manager.watchMcpServers((change) => changes.push(change));
    const session = await manager.session();
    await session.runTurn([{ id: '1', name: 'add_tool', arguments: { name: 'brand_new' } }], {});
    await vi.waitFor(() => expect(changes).toHaveLength(1));
    expect(changes[0]).toMatchObject({ server: 's', added: ['brand_new'], removed: [] });
    expect(manager.tool('brand_new').source).toMatchObject({ kind: 'mcp', server: 's' });
    const next = await manager.session();
    const turn = await next.runTurn([{ id: '2', name: 'say', arguments: { text: 'still here' } }]);
    expect(turn.responses[0]).toMatchObject({ ok: true, content: 'said: still here' });
  });
});
