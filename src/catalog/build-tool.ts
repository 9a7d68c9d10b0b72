// A catalog entry (or an MCP server's converted tool, or an agent) made into a `Tool` with every
// field filled, and `overrides:` applied to tools: the same field rules for all three sources.
import { dirname, resolve } from 'node:path';
import { isRecord } from '../shared/is-record.js';
import { bool, num, oneOf, str, strings, type Raw } from './raw-values.js';
import { matchesPattern, parsePattern } from './tool-patterns.js';
import { TOOL_DEFAULTS, TRUNCATIONS, type Handler, type Override, type ReferenceSpec, type Tool, type ToolDefaults, type ToolSource } from './types.js';

/**
 * Applies `overrides:` to tools: deeper files first, so a file's overrides win over those of the
 * files it includes; within a file, in order. Used at load time, and again when MCP servers' tools
 * join the catalog.
 */
export function applyOverrides(tools: readonly Tool[], overrides: readonly Override[]): void {
  const ordered = overrides.map((o, i) => ({ o, i })).sort((a, b) => b.o.depth - a.o.depth || a.i - b.i).map(({ o }) => o);
  for (const override of ordered) {
    const patterns = override.tools.map(parsePattern).flatMap((p) => (p.ok ? [p.pattern] : []));
    for (const tool of tools) {
      if (tool.source.kind === 'meta' || !patterns.some((pattern) => matchesPattern(tool, pattern))) continue;
      const fields = Object.keys(override.set);
      setFields(tool, override.set, override.absolutePath, { file: override.file, pointer: `${override.pointer}/set/handler` });
      (tool.overriddenBy ??= []).push({ file: override.file, pointer: override.pointer, fields });
    }
  }
}

function setFields(tool: Tool, set: Raw, catalogFile: string, handlerAt: HandlerSite): void {
  const text = (key: string) => (typeof set[key] === 'string' ? (set[key] as string) : undefined);
  if (text('title') !== undefined) tool.title = text('title');
  if (text('summary') !== undefined) tool.summary = text('summary');
  if (text('description') !== undefined) tool.description = text('description');
  if (text('category') !== undefined) tool.category = text('category');
  for (const key of ['tags', 'keywords', 'profiles'] as const) if (strings(set[key])) tool[key] = strings(set[key])!;
  tool.effect = oneOf(set.effect, ['read', 'write', 'destructive'] as const) ?? tool.effect;
  tool.confirm = oneOf(set.confirm, ['auto', 'always', 'never'] as const) ?? tool.confirm;
  tool.concurrency = oneOf(set.concurrency, ['safe', 'serial'] as const) ?? tool.concurrency;
  tool.mode = oneOf(set.mode, ['direct', 'background', 'stateful'] as const) ?? tool.mode;
  tool.truncation = oneOf(set.truncation, TRUNCATIONS) ?? tool.truncation;
  tool.enabled = bool(set.enabled) ?? tool.enabled;
  tool.deferLoading = bool(set.defer_loading) ?? tool.deferLoading;
  tool.alwaysLoad = bool(set.always_load) ?? tool.alwaysLoad;
  tool.timeoutMs = num(set.timeout_ms) ?? tool.timeoutMs;
  tool.maxResultTokens = num(set.max_result_tokens) ?? tool.maxResultTokens;
  if (isRecord(set.prompts)) tool.prompts = { ...tool.prompts, ...(set.prompts as Tool['prompts']) };
  if (isRecord(set.output_schema)) tool.outputSchema = set.output_schema;
  if (set.references !== undefined) {
    const references = referenceSpec(set.references);
    if (references) tool.references = references;
  }
  if (strings(set.evaluation)) tool.evaluation = strings(set.evaluation)!;
  if (set.handler !== undefined) {
    const handler = buildHandler(set.handler, catalogFile, handlerAt);
    if (handler) {
      tool.handler = handler;
      tool.timeoutMs = handlerTimeout(set.handler) ?? tool.timeoutMs;
    }
  }
}

/**
 * A tool with every field filled: its own value, else the file's `defaults`, else toolman's.
 * Also builds MCP servers' tools (from their converted entries and the server's `defaults`).
 */
export function buildTool(raw: Raw, defaults: ToolDefaults, source: ToolSource, catalogFile: string): Tool {
  const pick = <K extends keyof ToolDefaults>(key: K, value: unknown): ToolDefaults[K] | undefined => (value !== undefined ? (value as ToolDefaults[K]) : defaults[key]);
  const tool: Tool = {
    name: raw.name as string,
    title: str(raw.title),
    summary: str(raw.summary),
    description: str(raw.description),
    aliases: strings(raw.aliases) ?? [],
    category: str(pick('category', raw.category)),
    tags: strings(pick('tags', raw.tags)) ?? [],
    keywords: strings(raw.keywords) ?? [],
    profiles: strings(pick('profiles', raw.profiles)) ?? [],
    effect: oneOf(pick('effect', raw.effect), ['read', 'write', 'destructive'] as const) ?? TOOL_DEFAULTS.effect,
    confirm: oneOf(pick('confirm', raw.confirm), ['auto', 'always', 'never'] as const) ?? TOOL_DEFAULTS.confirm,
    enabled: bool(pick('enabled', raw.enabled)) ?? true,
    exclusive: bool(raw.exclusive) ?? false,
    takesControl: bool(raw.takes_control) ?? false,
    deferLoading: bool(pick('defer_loading', raw.defer_loading)) ?? false,
    alwaysLoad: bool(raw.always_load) ?? false,
    concurrency: oneOf(pick('concurrency', raw.concurrency), ['safe', 'serial'] as const) ?? TOOL_DEFAULTS.concurrency,
    mode: oneOf(pick('mode', raw.mode), ['direct', 'background', 'stateful'] as const) ?? TOOL_DEFAULTS.mode,
    dedupe: bool(raw.dedupe) ?? true,
    // A handler's own timeout (exec.timeout_ms, http.timeout_ms) is the more specific one.
    timeoutMs: handlerTimeout(raw.handler) ?? num(pick('timeout_ms', raw.timeout_ms)) ?? TOOL_DEFAULTS.timeout_ms,
    maxResultTokens: num(pick('max_result_tokens', raw.max_result_tokens)) ?? TOOL_DEFAULTS.max_result_tokens,
    truncation: oneOf(pick('truncation', raw.truncation), TRUNCATIONS) ?? TOOL_DEFAULTS.truncation,
    prompts: isRecord(raw.prompts) ? (raw.prompts as Tool['prompts']) : {},
    docs: str(raw.docs),
    parameters: isRecord(raw.parameters) ? raw.parameters : { type: 'object', properties: {} },
    ...(isRecord(raw.output_schema) ? { outputSchema: raw.output_schema } : {}),
    ...(referenceSpec(raw.references) ? { references: referenceSpec(raw.references)! } : {}),
    ...(strings(raw.evaluation) ? { evaluation: strings(raw.evaluation)! } : {}),
    examples: Array.isArray(raw.examples) ? raw.examples.filter(isRecord) : [],
    handler: buildHandler(raw.handler, catalogFile, 'file' in source ? { file: source.file, pointer: `${source.pointer}/handler` } : { file: catalogFile, pointer: '/handler' }),
    ...(isRecord(raw.native) ? { native: raw.native as Record<string, Record<string, unknown>> } : {}),
    source,
  };
  return tool;
}

/** `references:` as written: `resource_links`, or selectors (checked by validate: TM1406). */
function referenceSpec(raw: unknown): ReferenceSpec | undefined {
  if (raw === 'resource_links') return { kind: 'resource_links' };
  if (!isRecord(raw) || typeof raw.items !== 'string' || typeof raw.url !== 'string') return undefined;
  return { kind: 'select', items: raw.items, url: raw.url, ...(typeof raw.title === 'string' ? { title: raw.title } : {}), ...(typeof raw.snippet === 'string' ? { snippet: raw.snippet } : {}) };
}

function handlerTimeout(raw: unknown): number | undefined {
  if (!isRecord(raw)) return undefined;
  const spec = isRecord(raw.exec) ? raw.exec : isRecord(raw.http) ? raw.http : undefined;
  return num(spec?.timeout_ms);
}

/** Where a handler was written: a plugin's config errors point into it. */
interface HandlerSite {
  file: string;
  pointer: string;
}

function buildHandler(raw: unknown, catalogFile: string, at: HandlerSite): Handler | undefined {
  if (!isRecord(raw)) return undefined;
  if (typeof raw.plugin === 'string') {
    // `pkg#kind`; a scoped package's `@scope/pkg#kind` has its # after the name, so split at the last one.
    const hash = raw.plugin.lastIndexOf('#');
    const specifier = hash < 0 ? raw.plugin : raw.plugin.slice(0, hash);
    const pluginKind = hash < 0 ? '' : raw.plugin.slice(hash + 1);
    return { kind: 'plugin', spec: raw.plugin, specifier, pluginKind, config: isRecord(raw.config) ? raw.config : {}, catalogFile, file: at.file, pointer: at.pointer };
  }
  if (Array.isArray(raw.mock)) return { kind: 'mock', cases: raw.mock.filter(isRecord) };
  if (isRecord(raw.exec) && Array.isArray(raw.exec.argv)) return { kind: 'exec', exec: raw.exec as never };
  if (isRecord(raw.http) && typeof raw.http.url === 'string') return { kind: 'http', http: raw.http as never };
  if (typeof raw.module === 'string') {
    const [file = '', exportName = 'default'] = raw.module.split('#');
    return { kind: 'module', file: resolve(dirname(catalogFile), file), exportName, spec: raw.module };
  }
  return undefined;
}
