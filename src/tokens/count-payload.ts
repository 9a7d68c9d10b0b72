import type { ParseCache } from '../catalog/parse-cache.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import { isRecord } from '../shared/is-record.js';
import type { FormatResult, ProviderName } from '../providers/types.js';
import { anthropicToolOverhead, estimateAnthropicDefinition, estimateAnthropicText, estimateGemini } from './estimates.js';
import { countOpenAiFunction, COOKBOOK_TOOL_CONSTANTS, loadOpenAiCounter, openAiEncodingFor, unmeasuredModelReason, type CountText, type OpenAiFunction } from './openai-tokens.js';

/** What the tool definitions of one request cost, per tool and in total. */
export interface DefinitionCost {
  provider: ProviderName;
  model: string;
  /** false: exact (a real tokenizer and rules measured against the provider's API); true: an estimate. */
  estimate: boolean;
  method: string;
  /** Why the count is an estimate (empty when exact). */
  reasons: string[];
  /**
   * Why each tool's own count is an estimate, by catalog name: what applies to every tool (the
   * model, the API, no public tokenizer) and what this tool's definition adds (a nested schema).
   * An empty list: that tool's count is exact.
   */
  toolReasons: Record<string, string[]>;
  /** Tokens per tool, by catalog name (tools not sent are absent). */
  tools: Record<string, number>;
  /** Fixed cost of sending any tools at all (OpenAI's func_end, Anthropic's tool-use system prompt). */
  overhead: number;
  /** The tools' system-prompt contributions. */
  system: number;
  total: number;
}

/** A counter for a provider's model, loaded once per process. */
const counters = new Map<string, Promise<CountText>>();
export function counterFor(provider: ProviderName, model: string): Promise<CountText> {
  const encoding = provider === 'openai' || provider === 'openai-responses' ? openAiEncodingFor(model) : 'o200k_base';
  let counter = counters.get(encoding);
  if (!counter) counters.set(encoding, (counter = loadOpenAiCounter(encoding)));
  return counter;
}

/**
 * Counts exactly what a formatter produced: tool definitions, the fixed overhead and system text.
 * With `cache`, a count made before for this very payload, provider and model is read back
 * instead (a pure function of them and the build): an unchanged catalog's `budget` or `diff`
 * then loads no tokenizer at all, which costs about 100 ms before counting anything.
 */
export async function countDefinitions(result: FormatResult, model: string = DEFAULT_MODELS[result.provider], options: { cache?: ParseCache } = {}): Promise<DefinitionCost> {
  const { cache } = options;
  if (!cache) return countNow(result, model);
  const key = JSON.stringify([result.provider, model, result.payload, result.systemPayload, result.sent]);
  const remembered = cache.get(key);
  // By tool name, without a prototype, as counted: a tool named `constructor` is looked up as itself.
  if (isDefinitionCost(remembered, result.provider, model)) return { ...remembered, tools: Object.assign(Object.create(null), remembered.tools), toolReasons: Object.assign(Object.create(null), remembered.toolReasons) };
  const cost = await countNow(result, model);
  cache.set(key, cost);
  return cost;
}

/** Whether a value read back from the cache has a definition cost's shape (anything else is a miss). */
function isDefinitionCost(value: unknown, provider: ProviderName, model: string): value is DefinitionCost {
  const counts = (v: unknown) => isRecord(v) && Object.values(v).every((n) => typeof n === 'number' && Number.isFinite(n));
  const texts = (v: unknown) => Array.isArray(v) && v.every((t) => typeof t === 'string');
  return (
    isRecord(value) &&
    value.provider === provider &&
    value.model === model &&
    typeof value.estimate === 'boolean' &&
    typeof value.method === 'string' &&
    texts(value.reasons) &&
    isRecord(value.toolReasons) &&
    Object.values(value.toolReasons).every(texts) &&
    counts(value.tools) &&
    counts({ overhead: value.overhead, system: value.system, total: value.total })
  );
}

/** Gemini's counts are 4 characters a token: no tokenizer is loaded for them. */
const NO_TOKENIZER: CountText = () => {
  throw new Error('no tokenizer for this provider');
};

async function countNow(result: FormatResult, model: string): Promise<DefinitionCost> {
  const provider = result.provider;
  const count = provider === 'gemini' ? NO_TOKENIZER : await counterFor(provider, model);
  const byProviderName = new Map(Object.entries(result.sent).map(([catalog, sentAs]) => [sentAs, catalog]));
  const tools: Record<string, number> = Object.create(null) as Record<string, number>;
  let overhead = 0;
  let system = 0;
  const reasons = new Set<string>();
  const ownReasons: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  let method = '';
  const entries = (result.payload.tools as Record<string, unknown>[] | undefined) ?? [];

  if (provider === 'openai' || provider === 'openai-responses') {
    const encoding = openAiEncodingFor(model);
    method = `${encoding}, OpenAI cookbook num_tokens_for_tools`;
    // The cookbook's rules were measured on Chat Completions requests (docs/providers.md).
    if (provider === 'openai-responses') reasons.add('Responses API: Chat Completions rules applied (--exact asks the API)');
    const unmeasured = unmeasuredModelReason(model);
    if (unmeasured) reasons.add(unmeasured);
    let functions = 0;
    for (const entry of entries) {
      const fn = (provider === 'openai' ? entry.function : entry.type === 'function' ? entry : undefined) as (OpenAiFunction & { defer_loading?: boolean }) | undefined;
      const fnDeferred = provider === 'openai-responses' && entry.defer_loading === true;
      const name = (fn?.name ?? (entry.name as string | undefined)) ?? String(entry.type);
      const catalogName = byProviderName.get(name) ?? name;
      if (fn && entry.type === 'function') {
        functions++;
        // A natively deferred function shows only its name and description up front.
        if (fnDeferred) {
          tools[catalogName] = count(`${fn.name}:${fn.description ?? ''}`);
          reasons.add('natively deferred functions');
          ownReasons[catalogName] = ['natively deferred functions'];
        } else {
          const counted = countOpenAiFunction(fn, count, encoding);
          tools[catalogName] = counted.tokens;
          for (const reason of counted.reasons) reasons.add(reason);
          ownReasons[catalogName] = [...counted.reasons];
        }
      } else {
        tools[catalogName] = count(JSON.stringify(entry));
        reasons.add('provider-native tools');
        ownReasons[catalogName] = ['provider-native tools'];
      }
    }
    if (functions) overhead = COOKBOOK_TOOL_CONSTANTS[encoding].funcEnd;
    const text = provider === 'openai' ? ((result.systemPayload.messages as { content: string }[] | undefined)?.[0]?.content ?? '') : String(result.systemPayload.instructions ?? '');
    system = text ? count(text) : 0;
  } else if (provider === 'anthropic') {
    reasons.add('no public tokenizer for current Claude models');
    const choice = (result.payload.tool_choice as { type?: string } | undefined)?.type;
    const tokens = anthropicToolOverhead(model, choice === 'any' || choice === 'tool' ? 'any' : 'auto');
    method = `estimate: o200k_base × 0.79 for definitions + tool-use system prompt (${tokens.label}: ${tokens.tokens})`;
    for (const entry of entries) {
      const name = String(entry.name ?? entry.type);
      // Deferred tools are not in the initial prompt (Anthropic: "defer_loading").
      tools[byProviderName.get(name) ?? name] = entry.defer_loading === true ? 0 : estimateAnthropicDefinition(entry, count, model);
    }
    if (entries.length) overhead = tokens.tokens;
    system = typeof result.systemPayload.system === 'string' ? estimateAnthropicText(result.systemPayload.system, count, model) : 0;
  } else {
    reasons.add('no public tokenizer for Gemini models');
    method = 'estimate: 4 characters per token';
    for (const entry of entries) {
      const declarations = entry.functionDeclarations as Record<string, unknown>[] | undefined;
      if (declarations) for (const d of declarations) tools[byProviderName.get(String(d.name)) ?? String(d.name)] = estimateGemini(d);
      else tools[Object.keys(entry)[0] ?? 'native'] = estimateGemini(entry);
    }
    const instruction = result.systemPayload.systemInstruction as { parts: { text: string }[] } | undefined;
    system = instruction ? estimateGemini(instruction.parts.map((p) => p.text).join('\n')) : 0;
  }
  const total = Object.values(tools).reduce((a, b) => a + b, 0) + overhead + system;
  // What is not any one tool's doing (the model, the API, no tokenizer) applies to every tool.
  const own = new Set(Object.values(ownReasons).flat());
  const shared = [...reasons].filter((r) => !own.has(r));
  const toolReasons: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const name of Object.keys(tools)) toolReasons[name] = [...shared, ...(ownReasons[name] ?? [])];
  return { provider, model, estimate: reasons.size > 0, method, reasons: [...reasons], toolReasons, tools, overhead, system, total };
}
