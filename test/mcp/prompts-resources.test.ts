import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/catalog/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { blockText, cleanBlock, ContentNotes, MAX_BINARY_BYTES } from '../../src/mcp/content-blocks.js';
import { promptArgumentsProblem, promptResult, promptText, serverPrompts } from '../../src/mcp/server-prompts.js';
import { attachmentText, resourceRead, serverResources, templateMatches } from '../../src/mcp/server-resources.js';
import { catalogDir, EVERYTHING, MODERN, NODE } from './helpers.js';

// The prompts and resources of a catalog's MCP servers in the core (src/mcp/server-content.ts and
// the modules it uses): cleaning and bounds in units, then in-process against the v2 fixture and
// server-everything (v1 SDK).

const config = (prefix = ''): McpServerConfig => ({ name: 'srv', command: 'x', args: [], env: {}, headers: {}, prefix, include: [], exclude: [], defaults: {}, file: 'toolman.yaml', pointer: '/mcp_servers/srv' });

describe('content from a server, cleaned and bounded', () => {
  it('keeps text, media, embedded resources and links, cleaned; anything else becomes a line naming it', () => {
    const notes = new ContentNotes();
    expect(cleanBlock({ type: 'text', text: 'hi\u001b[2J there\u200b' }, notes)).toEqual({ type: 'text', text: 'hi there' });
    expect(cleanBlock({ type: 'image', mimeType: 'image/png', data: 'AAAA' }, notes)).toEqual({ type: 'image', mimeType: 'image/png', data: 'AAAA' });
    expect(cleanBlock({ type: 'image', mimeType: 'image/png\u001b]0;x\u0007', data: 'AAAA' }, notes)).toEqual({ type: 'text', text: '[image content left out]' });
    expect(cleanBlock({ type: 'audio', mimeType: 'audio/wav', data: 'not base64!' }, notes)).toEqual({ type: 'text', text: '[audio content audio/wav left out]' });
    expect(cleanBlock({ type: 'resource', resource: { uri: 'a://b', text: 'x\u0007y' } }, notes)).toEqual({ type: 'resource', resource: { uri: 'a://b', text: 'xy' } });
    expect(cleanBlock({ type: 'resource_link', uri: 'a://b', name: 'b\nc', description: 'd' }, notes)).toEqual({ type: 'resource_link', uri: 'a://b', name: 'b c', description: 'd' });
    expect(cleanBlock({ type: 'hologram\u001b' }, notes)).toEqual({ type: 'text', text: '[hologram content]' });
    expect(cleanBlock('nope', notes)).toEqual({ type: 'text', text: '[malformed content]' });
    expect(notes.notes).toContain('an audio left out: its data is not base64');
  });

  it('leaves out binary data past the bound and cuts long text, saying both', () => {
    const notes = new ContentNotes();
    const big = 'A'.repeat(Math.ceil(((MAX_BINARY_BYTES + 3) * 4) / 3 / 4) * 4);
    expect(cleanBlock({ type: 'image', mimeType: 'image/png', data: big }, notes).type).toBe('text');
    const cut = cleanBlock({ type: 'text', text: 'y'.repeat(100_010) }, notes);
    expect(blockText(cut)).toMatch(/\n\[cut: 10 more characters\]$/);
    expect(notes.notes).toEqual(['an image left out: 2.0 MiB, more than 2 MiB', 'a text cut to 100,000 of 100,010 characters']);
  });

  it('names prompts like tools (prefix), leaves out a name it would have to change, and checks arguments', () => {
    const { prompts, notes } = serverPrompts(config('s_'), [
      { name: 'ok', arguments: [{ name: 'city', required: true }, { name: 'state' }, 'junk'] },
      { name: 'bad\u001b[31m' },
      { description: 'nameless' },
      { name: 'ok' },
    ]);
    expect(prompts).toEqual([{ name: 's_ok', server: 'srv', mcpName: 'ok', arguments: [{ name: 'city', required: true }, { name: 'state', required: false }] }]);
    expect(notes).toEqual(['prompt 1 left out: its name holds control or invisible characters, or is longer than 2,000 characters', 'prompt 2 left out: it has no name']);
    const prompt = prompts[0]!;
    expect(promptArgumentsProblem(prompt, {})).toBe('prompt s_ok needs city');
    expect(promptArgumentsProblem(prompt, { city: 'Paris', zip: '1' })).toBe('prompt s_ok has no argument "zip" (its arguments: city, state)');
    expect(promptArgumentsProblem(prompt, { city: 3 })).toBe('prompt arguments are text: city is not');
    expect(promptArgumentsProblem(prompt, { city: 'Paris' })).toBeUndefined();
  });

  it('joins a prompt\'s messages into one message, labelling roles only when an assistant speaks', () => {
    const prompt = serverPrompts(config(), [{ name: 'p' }]).prompts[0]!;
    const plain = promptResult(prompt, { messages: [{ role: 'user', content: { type: 'text', text: 'one' } }, { role: 'user', content: { type: 'text', text: 'two' } }] });
    expect(promptText(plain)).toBe('one\n\ntwo');
    const mixed = promptResult(prompt, { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }, { role: 'assistant', content: { type: 'text', text: 'hello' } }, { role: 'system', content: { type: 'text', text: 'x' } }] });
    expect(promptText(mixed)).toBe('[user]\nhi\n\n[assistant]\nhello');
    expect(mixed.notes).toEqual(['a malformed message left out']);
  });

  it('cleans resources and reads; an attachment names its server and URI', () => {
    const { resources, notes } = serverResources(config('s_'), [{ uri: 'a://1', name: 'one', size: 12, mimeType: 'text/plain' }, { uri: 'a://\u200b2', name: 'two' }, { name: 'no uri' }]);
    expect(resources).toEqual([{ uri: 'a://1', server: 'srv', name: 's_one', mimeType: 'text/plain', size: 12 }]);
    expect(notes).toHaveLength(2);
    const read = resourceRead('srv', 'a://1', { contents: [{ uri: 'a://1', mimeType: 'text/plain', text: 'body\u001b[0m' }, { uri: 'a://1', blob: 'AAAA' }, { junk: true }] });
    expect(read.contents).toEqual([{ uri: 'a://1', mimeType: 'text/plain', text: 'body' }, { uri: 'a://1', blob: 'AAAA' }]);
    expect(attachmentText(read)).toBe('<resource server="srv" uri="a://1">\n[resource a://1 (text/plain)]\nbody\n\n[resource a://1: binary, 3 bytes]\n</resource>');
  });

  it('matches URIs against templates by their literal parts, in linear time whatever the template', () => {
    expect(templateMatches('note://daily/{date}', 'note://daily/2026-11-24')).toBe(true);
    expect(templateMatches('note://daily/{date}', 'note://weekly/1')).toBe(false);
    expect(templateMatches('file:///{+path}.md', 'file:///a/b.md')).toBe(true);
    expect(templateMatches('plain://x', 'plain://x')).toBe(true);
    const hostile = `${'{a}x'.repeat(500)}y`;
    const started = performance.now();
    expect(templateMatches(hostile, 'x'.repeat(5_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('prompts and resources of a catalog\'s servers', () => {
  const managers: ToolManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
  });
  async function open(yaml: string) {
    const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n${yaml}`);
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { ...process.env, TOOLMAN_CACHE_DIR: 'off' } });
    managers.push(manager);
    return manager;
  }
  const modern = (name: string, extra = '') => `  ${name}:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio]\n${extra}`;

  it('lists both SDK generations in catalog order; a second prompt of one name is left out and said', async () => {
    const manager = await open(`${modern('a')}${modern('b')}  every:\n    command: ${JSON.stringify(EVERYTHING)}\n`);
    const content = await manager.mcpContent();
    const { prompts, problems } = await content.prompts();
    expect(prompts.map((p) => `${p.server}:${p.name}`)).toEqual(['a:review_code', 'a:greet', 'a:with_image', 'a:confirm_first', 'a:hostile', 'every:simple-prompt', 'every:args-prompt', 'every:completable-prompt', 'every:resource-prompt']);
    expect(problems.filter((p) => p.server === 'b').map((p) => p.message)).toContain('prompt "review_code" left out: MCP server "a" has a prompt of that name (give one of them a `prefix`)');
    const { resources, templates } = await content.resources();
    expect(resources.filter((r) => r.server === 'every').length).toBeGreaterThan(0);
    expect(templates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const read = await content.readResource({ uri: 'demo://resource/dynamic/text/2' });
    expect(read.server).toBe('every');
  });

  it('leaves malformed entries out of a 2026-07-28 answer and keeps the rest (the tolerant transport), saying so', async () => {
    const manager = await open(modern('bad', '    env: { BAD_CONTENT: "1" }\n'));
    const content = await manager.mcpContent();
    const { prompts, problems } = await content.prompts();
    expect(prompts.map((p) => p.name)).toEqual(['review_code', 'greet', 'with_image', 'confirm_first', 'hostile']);
    expect(problems.map((p) => p.message)).toContain('2 malformed prompts left out of its answer');
    const { resources, problems: resourceProblems } = await content.resources();
    expect(resources).toHaveLength(3);
    expect(resourceProblems.map((p) => p.message)).toContain('1 malformed resource left out of its answer');
  });

  it('cuts a list of several hundred thousand resources in one page to 10,000, saying so', async () => {
    const manager = await open(modern('many', '    env: { MANY_RESOURCES: "300000" }\n'));
    const { resources, problems } = await (await manager.mcpContent()).resources();
    expect(resources).toHaveLength(10_000);
    expect(resources.at(-1)!.uri).toBe('m://9996');
    expect(problems.map((p) => p.message)).toEqual(['its resources/list answer has more than 10,000 entries; the rest are missing']);
  }, 30_000);

  it('hears that a server\'s prompts changed, and lists them again', async () => {
    const manager = await open(modern('a'));
    const content = await manager.mcpContent();
    expect((await content.prompts()).prompts).toHaveLength(5);
    let heard = false;
    content.onChange(() => (heard = true));
    const session = await manager.session({ approve: async () => 'approve' });
    // The listen stream opens in the background: the change is made again until it is heard (at most 5 times).
    for (let attempt = 0; attempt < 5 && !heard; attempt++) {
      await session.runTurn([{ id: String(attempt), name: 'add_prompt', arguments: { name: 'fresh' } }]);
      for (let wait = 0; wait < 20 && !heard; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(heard).toBe(true);
    expect((await content.prompts()).prompts.map((p) => p.name)).toContain('fresh');
  });

  it('a catalog without MCP servers has no prompts or resources', async () => {
    const { dir, file } = catalogDir('toolman: 1\ntools:\n  - name: t\n    description: A tool.\n');
    const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
    managers.push(manager);
    const content = await manager.mcpContent();
    expect(await content.prompts()).toEqual({ prompts: [], problems: [] });
    await expect(content.getPrompt('x', {})).rejects.toThrow('no MCP prompt "x"');
  });
});
