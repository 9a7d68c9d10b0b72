import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/import/detect-format.js';
import { importTools } from '../../src/import/import-tools.js';

describe('provider-defined tools in import', () => {
  it('detects the format from native entries alone', () => {
    expect(detectFormat([{ type: 'web_search_20250305', name: 'web_search' }])).toBe('anthropic');
    expect(detectFormat([{ type: 'bash_20250124', name: 'bash' }, { type: 'custom', name: 'x', input_schema: { type: 'object' } }])).toBe('anthropic');
    expect(detectFormat({ tools: [{ type: 'web_search' }] })).toBe('openai-responses');
    expect(detectFormat([{ type: 'web_search_2025_08_26' }])).toBe('openai-responses');
    expect(detectFormat({ tools: [{ googleSearch: {} }] })).toBe('gemini');
    expect(detectFormat({ tools: [{ url_context: {} }, { functionDeclarations: [] }] })).toBe('gemini');
  });

  it('every Anthropic server and client tool type of the reference becomes native; tool search and the MCP connector are refused', () => {
    const types = ['web_search_20260318', 'web_fetch_20250910', 'code_execution_20250825', 'advisor_20260301', 'memory_20250818', 'bash_20250124', 'text_editor_20250124', 'computer_20251124', 'browser_toolset_20260801', 'computer_toolset_20260801'];
    const result = importTools([...types.map((type) => ({ type, name: type.replace(/_\d{8}$/, '') })), { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }, { type: 'mcp_toolset', mcp_server_name: 'x' }], { from: 'anthropic' });
    expect(result.tools.map((t) => Object.keys(t.entry.native as object))).toEqual(types.map(() => ['anthropic']));
    expect(result.tools.every((t) => !('parameters' in t.entry))).toBe(true);
    expect(result.skipped.map((s) => s.index)).toEqual([10, 11]);
  });

  it('an unknown dated Anthropic type passes through, saying toolman does not know it', () => {
    const [tool] = importTools([{ type: 'telepathy_20270101', name: 'telepathy' }]).tools;
    expect(tool!.entry.native).toEqual({ anthropic: { type: 'telepathy_20270101', name: 'telepathy' } });
    expect(tool!.changes.join(' ')).toContain('not a tool toolman knows');
  });

  it('names a remote MCP built-in by its server label; a Chat Completions file refuses Responses built-ins', () => {
    expect(importTools({ tools: [{ type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp' }] }).tools[0]!.entry.name).toBe('mcp_deepwiki');
    const chat = importTools({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }, { type: 'web_search' }] });
    expect(chat.format).toBe('openai');
    expect(chat.skipped[0]!.reason).toContain('is a Responses API tool; Chat Completions takes none');
  });

  it('native names share the import\'s naming: a clash is renamed, with no shadowing alias', () => {
    const result = importTools([{ type: 'web_search_20250305', name: 'web_search' }, { name: 'web_search', description: 'Our own search', input_schema: { type: 'object' } }], { from: 'anthropic' });
    expect(result.tools.map((t) => t.entry.name)).toEqual(['web_search', 'web_search_2']);
    expect(result.tools[1]!.entry.aliases).toBeUndefined();
  });

  it('text from the file loses control sequences, and the note says so', () => {
    const [tool] = importTools([{ name: 'x', description: 'Clears\u001b[2J the screen', parameters: { type: 'object' } }]).tools;
    expect(tool!.entry.description).toBe('Clears the screen');
    expect(tool!.changes).toContain('control characters removed from the description');
  });
});
