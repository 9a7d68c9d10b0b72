import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

// What import makes of provider tools, server snapshots and clashing names (issue 19, items 3, 4, 11).
const FILESYSTEM = join(ROOT, 'node_modules', '.bin', 'mcp-server-filesystem');

function folder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-import-results-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

interface Report {
  format: string;
  tools: { name: string; original: string; changes: string[] }[];
  skipped: { index: number; reason: string }[];
  validation: { errors: number; warnings: number };
}

describe('provider-native tools import as native:, never as empty custom functions', () => {
  const anthropic = [
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
    { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
    { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    { name: 'get_weather', description: 'Get the current weather for a city, in degrees Celsius.', input_schema: { type: 'object', properties: { city: { type: 'string', description: 'The city' } }, required: ['city'] } },
  ];

  it('an Anthropic tools file: server and client tools pass to Anthropic as written, to nobody else', async () => {
    const dir = folder({ 'tools.json': anthropic });
    const run = await runBin(['import', 'tools.json', '-o', 'catalog.yaml', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    // Before: detected as openai-functions, type dropped without a note, an empty schema.
    expect(report.format).toBe('anthropic');
    expect(report.validation).toMatchObject({ errors: 0, warnings: 0 });
    expect(report.skipped).toEqual([{ index: 2, reason: expect.stringContaining('toolman adds Anthropic\'s tool search itself') }]);
    const catalog = load(readFileSync(join(dir, 'catalog.yaml'), 'utf8')) as { tools: Record<string, unknown>[] };
    expect(catalog.tools[0]).toMatchObject({ name: 'web_search', native: { anthropic: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 } } });
    expect(catalog.tools[0]).not.toHaveProperty('parameters');
    expect(catalog.tools[1]).toMatchObject({ name: 'str_replace_based_edit_tool', native: { anthropic: { type: 'text_editor_20250728' } } });
    expect(report.tools[1]!.changes.join(' ')).toContain("Claude's calls to it are the application's to run");

    const sent = await runBin(['-c', 'catalog.yaml', 'format', '-P', 'anthropic'], { cwd: dir });
    expect(sent.code, sent.stderr).toBe(0);
    const tools = JSON.parse(sent.stdout).tools as Record<string, unknown>[];
    expect(tools.slice(0, 2)).toEqual([anthropic[0], anthropic[1]]);
    expect(tools[2]).toMatchObject({ name: 'get_weather', input_schema: { required: ['city'] } });

    const openai = await runBin(['-c', 'catalog.yaml', 'format', '-P', 'openai', '--json'], { cwd: dir });
    const names = (JSON.parse(openai.stdout).payload.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).toEqual(['get_weather']);
  });

  it('OpenAI built-in tools become native for the Responses API; a custom (free-text) tool is refused with a note', async () => {
    const dir = folder({
      'tools.json': {
        tools: [
          { type: 'web_search' },
          { type: 'file_search', vector_store_ids: ['vs_1'] },
          { type: 'code_interpreter', container: { type: 'auto' } },
          { type: 'custom', name: 'sql_grammar', description: 'Free-form SQL' },
          { type: 'function', name: 'lookup_order', description: 'Look up an order by its number and return its status.', parameters: { type: 'object', properties: { number: { type: 'string', description: 'Order number' } }, required: ['number'] } },
        ],
      },
    });
    const run = await runBin(['import', 'tools.json', '-o', 'catalog.yaml', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.format).toBe('openai-responses');
    expect(report.tools.map((t) => t.name)).toEqual(['web_search', 'file_search', 'code_interpreter', 'lookup_order']);
    expect(report.skipped).toEqual([{ index: 3, reason: expect.stringContaining('"sql_grammar": a custom tool takes free-form text') }]);
    const responses = await runBin(['-c', 'catalog.yaml', 'format', '-P', 'openai-responses'], { cwd: dir });
    expect(JSON.parse(responses.stdout).tools.slice(0, 3)).toEqual([{ type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'code_interpreter', container: { type: 'auto' } }]);
    const anthropicPayload = await runBin(['-c', 'catalog.yaml', 'format', '-P', 'anthropic'], { cwd: dir });
    expect((JSON.parse(anthropicPayload.stdout).tools as { name: string }[]).map((t) => t.name)).toEqual(['lookup_order']);
  });

  it('Gemini built-ins in a tools array become native for Gemini', async () => {
    const dir = folder({ 'tools.json': [{ functionDeclarations: [{ name: 'lookup_order', description: 'Look up an order by its number.', parameters: { type: 'OBJECT', properties: { number: { type: 'STRING', description: 'Order number' } } } }] }, { googleSearch: {} }] });
    const run = await runBin(['import', 'tools.json', '-o', 'catalog.yaml'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const gemini = await runBin(['-c', 'catalog.yaml', 'format', '-P', 'gemini'], { cwd: dir });
    expect(JSON.parse(gemini.stdout).tools).toEqual([{ functionDeclarations: [expect.objectContaining({ name: 'lookup_order' })] }, { googleSearch: {} }]);
  });
});

describe('import --mcp and a file import of the same tools/list are one import', () => {
  it('the same tools, the same notes (outputSchema and execution included)', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolman-import-same-')));
    const client = new Client({ name: 'toolman-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: FILESYSTEM, args: [dir], stderr: 'ignore' }));
    const listed = await client.listTools();
    await client.close();
    writeFileSync(join(dir, 'tools.json'), JSON.stringify({ tools: listed.tools }));
    const fromFile = await runBin(['import', 'tools.json', '--json'], { cwd: dir });
    const fromServer = await runBin(['import', '--mcp', '--json', '--', FILESYSTEM, dir], { cwd: dir });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromServer.code, fromServer.stderr).toBe(0);
    const file = JSON.parse(fromFile.stdout) as Report;
    const server = JSON.parse(fromServer.stdout) as Report;
    expect(server.tools).toEqual(file.tools);
    // Before: --mcp kept only name, title, description, inputSchema and annotations, and said nothing.
    const notes = server.tools.flatMap((t) => t.changes);
    expect(notes.filter((n) => n.startsWith('outputSchema became output_schema'))).toHaveLength(listed.tools.filter((t) => t.outputSchema).length);
    expect(notes).toContain('dropped field "execution" (the catalog has no place for it)');
  });
});

describe('an alias never shadows a tool', () => {
  it('import: two tools named a become a and a_2, and a_2 keeps no alias a', async () => {
    const same = (description: string) => ({ name: 'a', description, parameters: { type: 'object', properties: {} } });
    const dir = folder({ 'tools.json': [same('The first tool named a, which keeps the name.'), same('The second tool named a, renamed on import.')] });
    const run = await runBin(['import', 'tools.json', '-o', 'catalog.yaml', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.tools.map((t) => t.name)).toEqual(['a', 'a_2']);
    expect(report.tools[1]!.changes[0]).toBe('renamed from "a" (the name is already used by another tool); no alias: "a" is the name of another tool, which it would shadow');
    const catalog = load(readFileSync(join(dir, 'catalog.yaml'), 'utf8')) as { tools: Record<string, unknown>[] };
    expect(catalog.tools[1]).not.toHaveProperty('aliases');
  });

  it('validate: an alias that is another tool\'s name (or alias) is TM0210, at the alias', async () => {
    const dir = folder({
      'toolman.yaml': [
        'toolman: 1',
        'tools:',
        '  - name: a',
        '    description: The first tool named a, which keeps its name.',
        '  - name: a_2',
        '    description: The second tool, renamed from a by an older import.',
        '    aliases: [a, old]',
        '  - name: b',
        '    description: A tool that claims the old name too.',
        '    aliases: [old]',
        '',
      ].join('\n'),
    });
    const run = await runBin(['validate', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const found = (JSON.parse(run.stdout).diagnostics as { code: string; line: number; column: number; message: string }[]).filter((d) => d.code === 'TM0210');
    expect(found.map((d) => [d.line, d.column])).toEqual([[7, 15], [10, 15]]);
    expect(found[0]!.message).toContain('alias "a" is the name of tool "a" (toolman.yaml:3:11): that name reaches "a", never this tool');
    expect(found[1]!.message).toContain('alias "old" is also an alias of tool "a_2"');
  });
});
