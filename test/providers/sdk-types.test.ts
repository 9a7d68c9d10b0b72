import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { Tool } from '../../src/catalog/types.js';
import { importTools } from '../../src/import/import-tools.js';
import { formatTools } from '../../src/providers/format-tools.js';
import type { FormatOptions, ProviderName } from '../../src/providers/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { ROOT } from '../helpers/paths.js';
import { realData, realToolFiles } from '../helpers/real-data.js';

/**
 * Every payload toolman formats must type-check against the official SDKs' request types
 * (openai, @anthropic-ai/sdk, @google/genai): payloads are written as typed constants into a
 * TypeScript file and checked with tsc. Object literals get TypeScript's excess-property check, so
 * a key the SDK does not know fails as surely as a wrong type. Each distinct tool definition is
 * checked once (sets and variants repeat most of them), and where an SDK types a schema's contents
 * as `unknown` (OpenAI's parameters, Anthropic's properties) those contents are left out: tsc
 * would accept anything there, and checking megabytes of it took minutes. Gemini's Schema is typed
 * all the way down, so its schemas are checked whole.
 */
const DIR = join(ROOT, 'test', '.tmp', 'sdk-types');

const HEADER: Record<ProviderName, string> = {
  openai: `import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';\ntype Payload = Partial<Pick<ChatCompletionCreateParamsNonStreaming, 'tools' | 'tool_choice' | 'messages'>>;`,
  'openai-responses': `import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';\ntype Payload = Partial<Pick<ResponseCreateParamsNonStreaming, 'tools' | 'tool_choice' | 'instructions'>>;`,
  anthropic: `import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';\ntype Payload = Partial<Pick<MessageCreateParamsNonStreaming, 'tools' | 'tool_choice' | 'system'>>;`,
  // The SDK types Schema.type and the calling mode as TypeScript string enums; on the wire each is
  // the enum's string value (`${E}` turns a string enum into the union of its values).
  gemini: `import type { Content, Tool, ToolConfig } from '@google/genai';\ntype Wire<T> = T extends string ? \`\${T}\` : T extends (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;\ntype Payload = Wire<{ tools?: Tool[]; toolConfig?: ToolConfig; systemInstruction?: Content }>;`,
};

/** What tsc checks of one tool entry: the SDKs type schema contents as unknown (see above). */
function checkable(provider: ProviderName, entry: Record<string, unknown>): Record<string, unknown> {
  const strip = (schema: unknown) => {
    if (schema === null || typeof schema !== 'object') return schema;
    const { properties: _p, $defs: _d, definitions: _f, ...rest } = schema as Record<string, unknown>;
    void _p, _d, _f;
    // Keep what the SDK types (type, required); the rest is an index signature of unknown.
    return Object.fromEntries(Object.entries(rest).filter(([k]) => ['type', 'required', 'additionalProperties'].includes(k)));
  };
  if (provider === 'openai' && entry.function && typeof entry.function === 'object') return { ...entry, function: { ...(entry.function as object), parameters: {} } };
  if (provider === 'openai-responses' && entry.type === 'function') return { ...entry, parameters: {} };
  if (provider === 'anthropic' && entry.input_schema) return { ...entry, input_schema: strip(entry.input_schema), ...(entry.input_examples ? { input_examples: [] } : {}) };
  return entry;
}

const VARIANTS: Record<ProviderName, [string, FormatOptions][]> = {
  openai: [['plain', {}], ['strict', { strict: true }]],
  'openai-responses': [['plain', {}], ['strict', { strict: true }], ['native', { nativeToolSearch: 'bm25' }]],
  anthropic: [['plain', {}], ['strict', { strict: true }], ['native', { nativeToolSearch: 'regex', cacheControl: true }], ['strict-native', { strict: true, nativeToolSearch: 'bm25', cacheControl: true }]],
  gemini: [['plain', {}], ['json-schema', { geminiJsonSchema: true }]],
};

function loadTools(file: string): Tool[] {
  const { tools } = importTools(JSON.parse(readFileSync(realData(file), 'utf8')));
  mkdirSync(DIR, { recursive: true });
  const path = join(DIR, `${file.replace(/[/.]/g, '_')}.json`);
  writeFileSync(path, JSON.stringify({ toolman: 1, tools: tools.map((t) => t.entry) }));
  return loadCatalog([path]).catalog.tools;
}

describe('[real data] formatted payloads type-check against the official SDKs', () => {
  it('for every provider, every variant, every real and shipped tool set', () => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    const sets: { name: string; tools: Tool[]; deferred: Tool[] }[] = realToolFiles().map((file) => {
      const tools = loadTools(file);
      // Defer half of each set, so native deferral is exercised on real schemas too.
      return { name: file, tools: tools.slice(0, Math.ceil(tools.length / 2)), deferred: tools.slice(Math.ceil(tools.length / 2)) };
    });
    for (const catalog of ['assistant', 'coding', 'enterprise', 'large']) {
      const { catalog: loaded } = loadCatalog([join(ROOT, 'catalogs', `${catalog}.yaml`)]);
      const session = new ToolSession(loaded, { profile: catalog === 'large' ? 'minimal' : undefined });
      sets.push({ name: catalog, tools: session.offered(1).tools, deferred: session.selection.deferred });
    }
    // Shapes the real sets have few or none of: open maps without additionalProperties, tuples,
    // allOf of object parts, tools without parameters; and the provider-rule fixtures.
    for (const fixture of ['schema-shapes', 'provider-rules']) {
      const { catalog: loaded } = loadCatalog([join(ROOT, 'test', 'fixtures', 'catalogs', `${fixture}.yaml`)]);
      sets.push({ name: fixture, tools: loaded.tools, deferred: [] });
    }
    const files: string[] = [];
    for (const provider of Object.keys(HEADER) as ProviderName[]) {
      const tools = new Set<string>();
      const rest = new Set<string>();
      for (const set of sets) {
        for (const [, options] of VARIANTS[provider]) {
          const forced = set.tools[0] ? [{ type: 'tool', name: set.tools[0].name } as const, { type: 'required', names: set.tools.slice(0, 2).map((t) => t.name) } as const] : [];
          for (const toolChoice of [{ type: 'auto' } as const, ...forced]) {
            const { payload } = formatTools(provider, { tools: set.tools, deferred: set.deferred, toolChoice, options });
            const { tools: list, ...others } = payload;
            for (const entry of (list as Record<string, unknown>[] | undefined) ?? []) tools.add(JSON.stringify(checkable(provider, entry)));
            rest.add(JSON.stringify(others));
          }
        }
      }
      // One constant per definition: one array of thousands of union-typed literals is too much for tsc.
      const lines = [HEADER[provider], `type Entry = NonNullable<Payload['tools']>[number];`, ...[...tools].map((entry, i) => `export const t${i}: Entry = ${entry};`)];
      [...rest].forEach((others, i) => lines.push(`export const p${i}: Payload = ${others};`));
      const file = join(DIR, `${provider}.ts`);
      writeFileSync(file, lines.join('\n') + '\n');
      files.push(file);
    }
    writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, types: [] }, files }));
    let output = '';
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(DIR, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // tsc's own words, shortened: which file, which payload, what the SDK says.
    expect(output.split('\n').filter((l) => /error TS/.test(l)).slice(0, 25).map((l) => l.slice(0, 400))).toEqual([]);
  }, 240_000);
});
