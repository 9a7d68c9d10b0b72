import { describe, expect, it } from 'vitest';
import { MAX_TOOL_PAGES, MAX_TOOLS_PER_SERVER, NoToolsList, readToolListPages } from '../../src/mcp/tool-list-pages.js';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

describe('readToolListPages', () => {
  it('follows cursors to the end and keeps the order', async () => {
    const pages: Record<string, Record<string, unknown>> = { start: { tools: [tool('a'), tool('b')], nextCursor: 'p2' }, p2: { tools: [tool('c')] } };
    const asked: (string | undefined)[] = [];
    const list = await readToolListPages(async (cursor) => (asked.push(cursor), pages[cursor ?? 'start']!), false);
    expect(list.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(asked).toEqual([undefined, 'p2']);
    expect(list.cut).toBeUndefined();
  });

  it('stops a server whose cursors never end after MAX_TOOL_PAGES pages, and says so', async () => {
    let served = 0;
    const list = await readToolListPages(async () => ({ tools: [tool(`t${served}`)], nextCursor: `c${served++}` }), false);
    expect(served).toBe(MAX_TOOL_PAGES);
    expect(list.tools).toHaveLength(MAX_TOOL_PAGES);
    expect(list.cut).toMatch(/more than 100 pages/);
  });

  it('cuts one page of several hundred thousand tools to MAX_TOOLS_PER_SERVER, and says so', async () => {
    const huge = Array.from({ length: 300_000 }, (_, i) => ({ name: `t${i}` }));
    const list = await readToolListPages(async () => ({ tools: huge }), false);
    expect(list.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(list.tools.at(-1)!.name).toBe(`t${MAX_TOOLS_PER_SERVER - 1}`);
    expect(list.cut).toMatch(/more than 5000 tools/);
  });

  it('stops at a cursor it has seen', async () => {
    let served = 0;
    const list = await readToolListPages(async () => ({ tools: [tool(`t${served++}`)], nextCursor: 'same' }), false);
    expect(served).toBe(2);
    expect(list.cut).toMatch(/repeats a page \(cursor "same"\)/);
  });

  it('keeps at most MAX_TOOLS_PER_SERVER tools', async () => {
    const many = Array.from({ length: MAX_TOOLS_PER_SERVER + 3 }, (_, i) => tool(`t${i}`));
    const list = await readToolListPages(async () => ({ tools: many }), false);
    expect(list.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(list.cut).toMatch(/more than 5000 tools/);
  });

  it('keeps the first entry of a name listed twice, and leaves out entries that are not objects', async () => {
    const list = await readToolListPages(async () => ({ tools: [{ ...tool('a'), description: 'first' }, 'junk', null, { ...tool('a'), description: 'second' }] }), false);
    expect(list.tools).toEqual([{ ...tool('a'), description: 'first' }]);
    expect(list.cut).toBe('it lists 1 tool name(s) twice; the first of each is used');
  });

  it('takes the stalest page\'s ttl and private over public, only from a 2026-07-28 server', async () => {
    const pages: Record<string, Record<string, unknown>> = {
      start: { tools: [tool('a')], nextCursor: 'p2', ttlMs: 60_000, cacheScope: 'public' },
      p2: { tools: [tool('b')], ttlMs: 5_000, cacheScope: 'private' },
    };
    const read = async (cursor: string | undefined) => pages[cursor ?? 'start']!;
    expect((await readToolListPages(read, true)).hints).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
    expect((await readToolListPages(read, false)).hints).toBeUndefined();
  });

  it('rejects a page without a tools list', async () => {
    await expect(readToolListPages(async () => ({ tools: 'no' }), false)).rejects.toBeInstanceOf(NoToolsList);
  });
});
