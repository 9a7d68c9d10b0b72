import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { Tool } from '../../src/catalog/types.js';
import { importTools } from '../../src/import/import-tools.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { toGeminiSchema } from '../../src/providers/gemini/gemini-schema.js';
import { formatTools } from '../../src/providers/format-tools.js';
import { toOpenAiStrict } from '../../src/providers/openai/openai-strict-schema.js';
import { PROVIDERS, type FormatOptions } from '../../src/providers/types.js';
import { CHECKERS } from './checkers.js';
import { ROOT } from '../helpers/paths.js';
import { realData, realToolFiles } from '../helpers/real-data.js';

const large = loadCatalog(['catalogs/large.yaml'], { cwd: ROOT }).catalog;
const TMP = mkdtempSync(join(tmpdir(), 'toolman-format-'));
const tool = (name: string) => large.tools.find((t) => t.name === name)!;
const auto = { type: 'auto' } as const;

describe('OpenAI strict conversion', () => {
  it('closes objects, requires every property and makes optional ones nullable', () => {
    const result = toOpenAiStrict({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer', enum: [1, 2] }, c: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['a'] });
    expect(result).toMatchObject({
      strict: true,
      schema: { additionalProperties: false, required: ['a', 'b', 'c'], properties: { a: { type: 'string' }, b: { type: ['integer', 'null'], enum: [1, 2, null] }, c: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] } } },
    });
  });

  it('moves unsupported keywords and formats into the description', () => {
    const result = toOpenAiStrict({ type: 'object', properties: { s: { type: 'string', minLength: 2, format: 'uri', description: 'A link' } }, required: ['s'] });
    expect(result.strict && result.schema.properties).toEqual({ s: { type: 'string', description: 'A link (at least 2 characters; format: uri)' } });
  });

  it('refuses what cannot be strict, with the reason', () => {
    expect(toOpenAiStrict({ type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } } } })).toMatchObject({ strict: false, reason: expect.stringMatching(/arbitrary keys/) });
    expect(toOpenAiStrict({ anyOf: [{ type: 'object' }] })).toMatchObject({ strict: false, reason: expect.stringMatching(/root is a union/) });
    expect(toOpenAiStrict({ type: 'object', properties: { x: { description: 'anything' } } })).toMatchObject({ strict: false, reason: expect.stringMatching(/needs a type/) });
  });
});

describe('Gemini schema conversion', () => {
  it('converts unions, const, non-string enums and refs into the OpenAPI subset', () => {
    const result = toGeminiSchema({
      type: 'object',
      additionalProperties: false,
      $defs: { unit: { type: 'string', enum: ['c', 'f'] } },
      properties: {
        when: { type: ['string', 'null'], format: 'date-time' },
        level: { enum: [1, 2, 3] },
        mode: { const: 'fast' },
        unit: { $ref: '#/$defs/unit' },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }], description: 'A or B' },
      },
    });
    expect(result.ok && result.schema).toEqual({
      type: 'OBJECT',
      properties: {
        when: { type: 'STRING', format: 'date-time', nullable: true },
        level: { type: 'STRING', format: 'enum', enum: ['1', '2', '3'] },
        mode: { type: 'STRING', format: 'enum', enum: ['fast'] },
        unit: { type: 'STRING', format: 'enum', enum: ['c', 'f'] },
        either: { anyOf: [{ type: 'STRING', description: 'A or B' }, { type: 'INTEGER', description: 'A or B' }] },
      },
    });
  });

  it('refuses recursive schemas', () => {
    const result = toGeminiSchema({ type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } });
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/recursive/) });
  });
});

describe('formatters', () => {
  const session = new ToolSession(large, { profile: 'coding' });

  it('openai: function tools, the meta-tool, and forced tools as tool_choice', () => {
    const forced = new ToolSession(large, { profile: 'coding', force: ['git_log'] });
    const result = forced.format('openai', 1);
    expect(result.payload.tool_choice).toEqual({ type: 'function', function: { name: 'git_log' } });
    expect(forced.format('openai', 2).payload.tool_choice).toBeUndefined();
    const names = (result.payload.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).toContain('tool_search');
    // The system prompt's contributions come apart from the tools' keys: a client writes the whole system prompt itself.
    expect(result.payload.messages).toBeUndefined();
    expect(result.systemPayload.messages).toEqual([{ role: 'system', content: expect.stringContaining('Commands run without a shell') }]);
    const two = new ToolSession(large, { profile: 'coding', force: ['git_log', 'git_diff'] }).format('openai-responses', 1);
    expect(two.payload.tool_choice).toEqual({ type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'git_log' }, { type: 'function', name: 'git_diff' }] });
  });

  it('openai-responses: native deferral sends deferred tools with defer_loading and a tool_search tool', () => {
    const result = session.format('openai-responses', 1, { nativeToolSearch: 'bm25' });
    const tools = result.payload.tools as Record<string, unknown>[];
    expect(tools.filter((t) => t.defer_loading === true).map((t) => t.name)).toEqual(session.selection.deferred.map((t) => t.name));
    expect(tools).toContainEqual({ type: 'tool_search' });
    expect(tools.some((t) => t.name === 'tool_search')).toBe(false);
    expect(CHECKERS['openai-responses'](result.payload)).toEqual([]);
  });

  it('anthropic: native deferral with the BM25 search tool, cache_control on the last loaded tool, examples as input_examples', () => {
    const result = session.format('anthropic', 1, { nativeToolSearch: 'bm25', cacheControl: true });
    const tools = result.payload.tools as Record<string, unknown>[];
    // A deferred tool with cache_control is refused by the API: the breakpoint goes on the last tool that is loaded.
    expect(tools.filter((t) => t.cache_control)).toEqual([{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25', cache_control: { type: 'ephemeral' } }]);
    expect(tools[tools.length - 1]!.defer_loading).toBe(true);
    expect(tools.find((t) => t.name === 'read_file')!.input_examples).toEqual([{ path: 'src/index.ts' }, { path: 'README.md', start_line: 1, end_line: 40 }]);
    expect(CHECKERS.anthropic(result.payload)).toEqual([]);
  });

  it('anthropic: strict within the per-request limits, the rest non-strict with a warning', () => {
    const tools = large.tools.filter((t) => t.enabled && !t.native).slice(0, 60);
    const result = formatTools('anthropic', { tools, deferred: [], toolChoice: auto, options: { strict: true } });
    const sent = result.payload.tools as Record<string, unknown>[];
    expect(sent.filter((t) => t.strict === true).length).toBeGreaterThan(0);
    expect(sent.filter((t) => t.strict === true).length).toBeLessThanOrEqual(20);
    expect(result.warnings.some((w) => /non-strict: more than 24 optional parameters|more than 20 strict tools|not supported in strict mode/.test(w.message))).toBe(true);
    expect(CHECKERS.anthropic(result.payload)).toEqual([]);
  });

  it('gemini: declarations in the subset, forced tools as functionCallingConfig, system instruction', () => {
    const forced = new ToolSession(large, { profile: 'coding', force: ['git_log'] });
    const result = forced.format('gemini', 1);
    expect(result.payload.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['git_log'] } });
    expect(result.systemPayload.systemInstruction).toEqual({ parts: [{ text: expect.stringContaining('Commands run without a shell') }] });
    expect(CHECKERS.gemini(result.payload)).toEqual([]);
  });

  it('passes provider-native tools through where declared and warns elsewhere', () => {
    const native: Tool = { ...tool('web_search'), name: 'native_search', native: { anthropic: { type: 'web_search_20250305', name: 'web_search' }, gemini: { googleSearch: {} } } };
    const anthropic = formatTools('anthropic', { tools: [native], deferred: [], toolChoice: auto, options: {} });
    expect(anthropic.payload.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    const gemini = formatTools('gemini', { tools: [native], deferred: [], toolChoice: auto, options: {} });
    expect(gemini.payload.tools).toEqual([{ googleSearch: {} }]);
    const openai = formatTools('openai', { tools: [native], deferred: [], toolChoice: auto, options: {} });
    expect(openai.payload.tools).toBeUndefined();
    expect(openai.warnings[0]!.message).toMatch(/native_search: a provider-native tool with no definition for openai/);
  });
});

describe('[real data] real tools format for every provider', () => {
  const inputs = realToolFiles();
  const variants: [string, FormatOptions][] = [['plain', {}], ['strict', { strict: true }]];
  for (const input of inputs) {
    for (const [label, options] of variants) {
      it(`${input} (${label})`, () => {
        const { tools: imported } = importTools(JSON.parse(readFileSync(realData(input), 'utf8')));
        const yaml = { toolman: 1, tools: imported.map((t) => t.entry) };
        const tools = loadFromObject(yaml);
        for (const provider of PROVIDERS) {
          // Send in batches within each provider's per-request tool limit.
          for (let start = 0; start < tools.length; start += 100) {
            const batch = tools.slice(start, start + 100);
            const result = formatTools(provider, { tools: batch, deferred: [], toolChoice: auto, options });
            expect(CHECKERS[provider](result.payload), `${provider} ${input}`).toEqual([]);
            // No tool silently dropped: each is sent or named in a warning.
            for (const t of batch) expect(t.name in result.sent || result.warnings.some((w) => w.tool === t.name), `${provider}: ${t.name}`).toBe(true);
          }
        }
      });
    }
  }
});

function loadFromObject(doc: unknown): Tool[] {
  const file = join(TMP, `import-${Math.random().toString(36).slice(2)}.json`);
  // The loader reads files; JSON is YAML.
  writeFileSync(file, JSON.stringify(doc));
  return loadCatalog([file]).catalog.tools;
}

describe('the checkers themselves', () => {
  it('catch what each API rejects', () => {
    expect(CHECKERS.openai({ tools: [{ type: 'function', function: { name: 'a.b', parameters: { type: 'string' } } }] }).length).toBe(2);
    expect(CHECKERS.openai({ tools: [{ type: 'function', function: { name: 'a', strict: true, parameters: { type: 'object', properties: { x: { type: 'string', minLength: 1 } } } } }] }).length).toBeGreaterThanOrEqual(3);
    expect(CHECKERS['openai-responses']({ tools: [{ type: 'function', name: 'a', defer_loading: true, parameters: { type: 'object' } }] })).toContain('deferred functions need a tool_search tool');
    expect(CHECKERS.anthropic({ tools: [{ name: 'a', input_schema: { type: 'object' }, defer_loading: true }] })).toEqual(expect.arrayContaining(['deferred tools need a tool search tool', 'at least one tool must stay loaded']));
    expect(CHECKERS.gemini({ tools: [{ functionDeclarations: [{ name: '1a', parameters: { type: 'object', additionalProperties: false, properties: { e: { type: 'INTEGER', enum: [1] } } } }] }] }).length).toBeGreaterThanOrEqual(4);
    // Shapes the APIs refuse or cannot satisfy: an OBJECT without properties, items: false, closed allOf parts.
    expect(CHECKERS.gemini({ tools: [{ functionDeclarations: [{ name: 'a', parameters: { type: 'OBJECT', properties: { m: { type: 'OBJECT', properties: {} }, t: { type: 'ARRAY', items: false } } } }] }] })).toEqual(['a #/properties/m: properties should be non-empty for OBJECT type', 'a #/properties/t: items must be a Schema']);
    expect(CHECKERS.openai({ tools: [{ type: 'function', function: { name: 'a', parameters: { type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } } } }] })).toEqual(['a #/properties/t: items: false is not a schema']);
    expect(CHECKERS.anthropic({ tools: [{ name: 'a', strict: true, input_schema: { type: 'object', additionalProperties: false, properties: { u: { allOf: [{ type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false }, { type: 'object', properties: { y: { type: 'string' } }, additionalProperties: false }] } } } }] })).toContain('a #/properties/u: allOf of closed objects accepts only {}');
  });
});
