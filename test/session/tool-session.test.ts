import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/selection.yaml'], { cwd: ROOT });
const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe('ToolSession in tool_search mode', () => {
  it('offers the active tools plus tool_search while anything is deferred', () => {
    const session = new ToolSession(catalog, { profile: 'coding' });
    expect(names(session.offered(1).tools)).toEqual(['read_file', 'write_file', 'status', 'tool_search']);
    expect(session.offered(1).toolChoice).toEqual({ type: 'auto' });
    expect(session.isCallable('git_log')).toBe(false);
  });

  it('activates what tool_search finds for the rest of the session', () => {
    const session = new ToolSession(catalog, { profile: 'coding' });
    const outcome = session.callMetaTool('tool_search', { query: 'commit history', limit: 1 });
    expect(outcome).toMatchObject({ ok: true, activated: ['git_log'] });
    const content = (outcome as { content: { results: { name: string; parameters: unknown }[] } }).content;
    expect(content.results[0]).toMatchObject({ name: 'git_log', summary: 'Commit history', parameters: { type: 'object' } });
    expect(session.isCallable('git_log')).toBe(true);
    expect(names(session.offered(2).tools)).toEqual(['read_file', 'write_file', 'status', 'git_log', 'tool_search']);
  });

  it('answers bad calls with an error for the model, never a throw', () => {
    const session = new ToolSession(catalog, { profile: 'coding' });
    expect(session.callMetaTool('tool_search', {})).toEqual({ ok: false, error: expect.stringMatching(/query must be a non-empty string/) });
    expect(session.callMetaTool('tool_search', { query: 'zzqx' })).toMatchObject({ ok: true, activated: [] });
    expect(session.callMetaTool('frobnicate', {})).toMatchObject({ ok: false });
  });

  it('stops offering tool_search once everything deferred was found', () => {
    const session = new ToolSession(catalog, { profile: 'coding' });
    session.callMetaTool('tool_search', { query: 'commits push web search google', limit: 20 });
    expect(names(session.offered(2).tools)).not.toContain('tool_search');
  });

  it('offers forced tools as the required choice in the first round only', () => {
    const single = new ToolSession(catalog, { profile: 'reviewer' });
    expect(single.offered(1).toolChoice).toEqual({ type: 'tool', name: 'read_file' });
    expect(single.offered(2).toolChoice).toEqual({ type: 'auto' });
    const two = new ToolSession(catalog, { profile: 'reviewer', force: ['write_file'] });
    expect(two.offered(1).toolChoice).toEqual({ type: 'required', names: ['write_file', 'read_file'] });
  });

  it('offers a forced exclusive tool alone, without meta-tools', () => {
    const session = new ToolSession(catalog, { force: ['deep_research'] });
    expect(names(session.offered(1).tools)).toEqual(['deep_research']);
    expect(session.isCallable('read_file')).toBe(false);
    expect(session.isCallable('deep_research')).toBe(true);
  });
});

describe('ToolSession in discover mode', () => {
  const session = new ToolSession(catalog, { profile: 'coding', searchMode: 'discover' });

  it('offers discover_tools, get_tool_schema and invoke_tool with the deferred categories', () => {
    const offered = session.offered(1).tools;
    expect(names(offered)).toEqual(['read_file', 'write_file', 'status', 'discover_tools', 'get_tool_schema', 'invoke_tool']);
    const discover = offered.find((t) => t.name === 'discover_tools')!;
    expect((discover.parameters.properties as Record<string, { enum?: string[] }>).category!.enum).toEqual(['git', 'web']);
  });

  it('filters by category, tag and keyword', () => {
    const byCategory = session.callMetaTool('discover_tools', { category: 'git' });
    expect((byCategory as { content: { tools: { name: string }[] } }).content.tools.map((t) => t.name)).toEqual(['git_log', 'git_push']);
    const byTag = session.callMetaTool('discover_tools', { tag: 'search' });
    expect((byTag as { content: { tools: { name: string }[] } }).content.tools.map((t) => t.name)).toEqual(['web_search']);
    const byKeyword = session.callMetaTool('discover_tools', { keyword: 'upload commits' });
    expect((byKeyword as { content: { tools: { name: string }[] } }).content.tools[0]!.name).toBe('git_push');
  });

  it('returns a schema on demand and unwraps invoke_tool into the call it stands for', () => {
    expect(session.callMetaTool('get_tool_schema', { name: 'git_push' })).toMatchObject({ ok: true, content: { name: 'git_push', parameters: { type: 'object' } } });
    const invoke = (args: unknown) => session.decode([{ id: 'c1', name: 'invoke_tool', arguments: args }])[0]!;
    // Decoded once into the record of the call it stands for: the catalog tool, its arguments, how it came.
    expect(invoke({ name: 'git_push', arguments: { force: false } })).toEqual({ id: 'c1', name: 'invoke_tool', tool: 'git_push', arguments: { force: false }, via: 'invoke_tool', meta: false });
    expect(invoke(JSON.stringify({ name: 'git_push', arguments: { force: true } }))).toMatchObject({ tool: 'git_push', arguments: { force: true }, via: 'invoke_tool' });
    expect(invoke({ name: 'git_pus', arguments: {} }).refused).toEqual({ kind: 'unknown_tool', message: expect.stringMatching(/did you mean "git_push"/) });
    expect(invoke({ name: 'git_push', arguments: 'x' }).refused).toEqual({ kind: 'invalid_arguments', message: expect.stringMatching(/arguments must be an object/) });
    // Removed tools stay out of reach.
    expect(invoke({ name: 'delete_file', arguments: {} }).refused?.message).toMatch(/no tool named "delete_file" is available/);
    // Any other call is itself, with its arguments parsed once.
    expect(session.decode([{ id: 'c2', name: 'git_push', arguments: '{"force":false}' }])[0]).toEqual({ id: 'c2', name: 'git_push', tool: 'git_push', arguments: { force: false }, via: 'direct', meta: false });
    expect(session.decode([{ id: 'c3', name: 'get_tool_schema', arguments: {} }])[0]).toMatchObject({ tool: 'get_tool_schema', meta: true });
  });
});

describe('decoding a call once', () => {
  it('invoke_tool is still unwrapped after tools were found (the meta-tools are made again then)', () => {
    const session = new ToolSession(catalog, { profile: 'coding', searchMode: 'discover' });
    const invoke = () => session.decode([{ id: 'i', name: 'invoke_tool', arguments: { name: 'git_push', arguments: {} } }], 'openai')[0]!;
    expect(invoke()).toMatchObject({ tool: 'git_push', via: 'invoke_tool' });
    session.activate(['git_log']);
    expect(invoke()).toMatchObject({ tool: 'git_push', via: 'invoke_tool', meta: false });
  });

  it('a call refused for its depth keeps the catalog name it was made under', () => {
    let deep: unknown = {};
    for (let i = 0; i < 300; i++) deep = { a: deep };
    const record = session().decode([{ id: 'd', name: 'read_file', arguments: { path: deep } }], 'openai')[0]!;
    expect(record).toMatchObject({ tool: 'read_file', meta: false, refused: { kind: 'invalid_arguments' } });
  });
});

function session() {
  return new ToolSession(catalog, { profile: 'coding' });
}
