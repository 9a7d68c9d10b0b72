import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { BIN, FIXTURES, ROOT } from '../helpers/paths.js';
import { mcpClient, textOf } from '../serve/serve-client.js';

// What toolman reports from real servers is what they sent, once (issue 19, items 2 and 12).
const FILESYSTEM = join(ROOT, 'node_modules', '.bin', 'mcp-server-filesystem');
const EVERYTHING = join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');
const SCRIPTED = [process.execPath, join(FIXTURES, 'mcp', 'servers', 'scripted-server.mjs'), 'plain'];

/** A folder (its real path: the filesystem server compares real paths) holding a ~15 KB text file of numbered lines. */
function folderWithFile(): { dir: string; file: string; text: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolman-fs-')));
  const text = Array.from({ length: 300 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}: the quick brown fox jumps over the lazy dog`).join('\n');
  const file = join(dir, 'notes.txt');
  writeFileSync(file, text);
  return { dir, file, text };
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

describe('structured content from a real MCP server is sent once', () => {
  it('call: the filesystem server\'s read_text_file gives the model the file\'s text, exactly and once', async () => {
    const { dir, file, text } = folderWithFile();
    expect(text.length).toBeGreaterThan(14_000);
    // Room for the whole file: the default 2,000-token result limit would cut it.
    writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1\nname: fs\nmcp_servers:\n  fs:\n    command: ${JSON.stringify(FILESYSTEM)}\n    args: [${JSON.stringify(dir)}]\n    defaults: { max_result_tokens: 8000 }\n`);
    const run = await runBin(['call', 'read_text_file', '--args', JSON.stringify({ path: file }), '--json'], { cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    const response = JSON.parse(run.stdout).responses[0] as { content: string; truncated: boolean };
    expect(response.truncated).toBe(false);
    // Before: {"structured":{"content":TEXT},"content":TEXT}, twice the tokens.
    expect(response.content).toBe(text);
  });

  it('mcp call: under the default result limit, the kept part is the file\'s own text, not a second copy', async () => {
    const { dir, file, text } = folderWithFile();
    const run = await runBin(['mcp', 'call', 'read_text_file', '--args', JSON.stringify({ path: file }), '--json', '--', FILESYSTEM, dir]);
    expect(run.code, run.stderr).toBe(0);
    const response = JSON.parse(run.stdout).responses[0] as { content: string; truncated: boolean; original_tokens: number };
    expect(response.truncated).toBe(true);
    // The estimate before truncation is the file's (4 characters a token), not twice it.
    expect(response.original_tokens).toBeLessThan(text.length / 4 + 50);
    expect(response.content).not.toContain('"structured"');
    // Smart truncation keeps the start and the end: both are the file's text (before: JSON around a second copy).
    expect(response.content.startsWith(text.slice(0, 3000))).toBe(true);
    expect(response.content.endsWith(text.slice(-3000))).toBe(true);
  });

  it('a server that restates structured content as JSON text gives it once, as the JSON', async () => {
    const run = await runBin(['mcp', 'call', 'get-structured-content', '--args', '{"location":"Chicago"}', '--json', '--', EVERYTHING]);
    expect(run.code, run.stderr).toBe(0);
    const content = JSON.parse(JSON.parse(run.stdout).responses[0].content) as Record<string, unknown>;
    expect(Object.keys(content).sort()).toEqual(['conditions', 'humidity', 'temperature']);
  });

  it('serve passes a proxied server\'s structuredContent on in the server\'s own shape, the text once beside it', async () => {
    const { dir, file, text } = folderWithFile();
    const catalog = join(dir, 'toolman.yaml');
    writeFileSync(catalog, `toolman: 1\nname: fs\nmcp_servers:\n  fs:\n    command: ${JSON.stringify(FILESYSTEM)}\n    args: [${JSON.stringify(dir)}]\n    defaults: { max_result_tokens: 8000 }\n`);
    const { client } = mcpClient();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--catalog', catalog, 'serve'],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' },
      stderr: 'pipe',
    });
    await client.connect(transport);
    open.push(client);
    const result = await client.callTool({ name: 'read_text_file', arguments: { path: file } });
    expect(result.isError).toBeFalsy();
    // Before: {structured: {content}, content} as toolman's own shape.
    expect(result.structuredContent).toEqual({ content: text });
    expect(textOf(result)).toBe(text);
    expect((result.content as unknown[]).length).toBe(1);
  });
});

describe('control sequences from tools never reach a pipe raw', () => {
  const hostile = 'a\u001b]0;pwned\u0007 b\u001b[2J c\u202e d\u009b e';

  it('mcp call: text output is cleaned off a terminal too; --json escapes every control character', async () => {
    const text = await runBin(['mcp', 'call', 'say', '--args', JSON.stringify({ text: hostile }), '--', ...SCRIPTED]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('said: a b c d e\n');
    const json = await runBin(['mcp', 'call', 'say', '--args', JSON.stringify({ text: hostile }), '--json', '--', ...SCRIPTED]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(json.stdout).toContain('\\u202e');
    expect(json.stdout).toContain('\\u009b');
    // Escaped, not lost: the document parses back to what the server said.
    expect(JSON.parse(json.stdout).responses[0].content).toBe(`said: ${hostile}`);
  });

  it('call: a tool\'s result and a tool\'s error are cleaned on stdout and stderr alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-escapes-'));
    writeFileSync(
      join(dir, 'toolman.yaml'),
      [
        'toolman: 1',
        'name: escapes',
        'tools:',
        '  - name: echo_text',
        '    description: Echoes the text it is given, for testing what reaches the terminal.',
        '    effect: read',
        '    parameters: { type: object, properties: { text: { type: string, description: The text } }, required: [text] }',
        '    handler: { mock: [{ result: "got {{args.text}}" }] }',
        '  - name: fail_text',
        '    description: Fails with the text it is given, for testing what reaches the terminal.',
        '    effect: read',
        '    parameters: { type: object, properties: { text: { type: string, description: The text } }, required: [text] }',
        '    handler: { mock: [{ error: "failed {{args.text}}" }] }',
        '',
      ].join('\n'),
    );
    const ok = await runBin(['call', 'echo_text', '--args', JSON.stringify({ text: hostile })], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('got a b c d e\n');
    const failed = await runBin(['call', 'fail_text', '--args', JSON.stringify({ text: hostile })], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(failed.stderr).toContain('failed a b c d e');
  });
});
