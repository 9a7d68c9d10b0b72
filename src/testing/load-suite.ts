import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { SourceFile, validateSuiteDocument } from '../manager/documents.js';
import { CHAT_PROVIDERS, DEFAULT_MODELS, META_TOOL_NAMES, profileNames } from '../manager/facts.js';
import type { ChatProvider } from '../providers/model-clients.js';
import { closest, nearest } from '../shared/did-you-mean.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { ErrorCode, ToolmanError, type SourceLocation } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import { MiB, readRegularFile } from '../shared/read-file.js';
import type { CallOrder, CountBound, ElicitationStub, Expectations, ProviderTarget, Stub, Suite, SuiteCase, ValueMatcher } from './suite-types.js';
import { MATCHER_KEYWORDS, MatcherError, parseArgMatchers, parseMatcher } from './value-matchers.js';

/** Suites are hand-written; anything bigger is a mistake or hostile. */
export const MAX_SUITE_BYTES = 8 * MiB;

export interface SuiteFinding extends SourceLocation {
  message: string;
}

/** A suite that cannot be used, with every problem found at its `file:line:column`. */
export class SuiteError extends ToolmanError {
  constructor(readonly findings: SuiteFinding[]) {
    const lines = findings.slice(0, 20).map((f) => `  ${f.file}:${f.line}:${f.column} ${f.message}`);
    if (findings.length > 20) lines.push(`  ... and ${findings.length - 20} more`);
    super(ErrorCode.USAGE, `the suite has ${findings.length} problem${findings.length === 1 ? '' : 's'}:\n${lines.join('\n')}`, {
      location: findings[0],
      hint: 'the format is described in docs/testing.md and schema/suite.schema.json',
    });
    this.name = 'SuiteError';
  }
}

/** Precompiled at build time from schema/suite.schema.json (catalog/document-validators.ts). */
const suiteValidator = (): ValidateFunction => validateSuiteDocument;

/**
 * Reads a suite file: bounded in size and depth like a catalog (it is untrusted input: suites
 * and recordings come from others), checked against schema/suite.schema.json, and every matcher
 * compiled. Problems are collected and thrown together as a SuiteError, each located. With
 * `catalog` (the one the suite will run on: the user's, never simply the one the suite names),
 * the suite's tool, argument and profile names are checked against it too.
 */
export function loadSuite(path: string, options: { cwd?: string; catalog?: Catalog } = {}): Suite {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, path);
  const text = readRegularFile(absolute, { maxBytes: MAX_SUITE_BYTES, label: 'suite' });
  return readSuite(text, path, absolute, options.catalog);
}

/** A suite from its text (what `toolman test init` drafts, checked before it is written), as `loadSuite` reads a file. */
export function loadSuiteText(text: string, absolute: string, options: { catalog?: Catalog } = {}): Suite {
  return readSuite(text, absolute, absolute, options.catalog);
}

interface ParsedSuite {
  file: SourceFile;
  raw: Record<string, unknown>;
  suite: Suite;
  /** Problems of the suite on its own (YAML, schema, matchers); the catalog's are found per catalog. */
  findings: SuiteFinding[];
}

/**
 * Suites parsed in this process, by path and content: a run reads each suite more than once
 * (planned, then checked against the catalog it runs on, per variant), and parsing a large suite
 * is a good part of a shard's start-up. Each caller gets its own copy (runs change repeats).
 */
const parsedSuites = new Map<string, ParsedSuite>();

function readSuite(text: string, path: string, absolute: string, catalog: Catalog | undefined): Suite {
  const key = `${path}\u0000${absolute}\u0000${createHash('sha256').update(text).digest('hex')}`;
  let parsed = parsedSuites.get(key);
  if (!parsed) {
    parsed = parseSuite(text, path, absolute);
    parsedSuites.set(key, parsed);
  }
  const findings = [...parsed.findings];
  if (catalog) {
    const source = parsed.file;
    checkAgainstCatalog(parsed.raw, catalog, (pointer, message, part = 'value') => {
      const span = source.locate(pointer, part);
      findings.push({ file: path, line: span.line, column: span.column, message });
    });
  }
  if (findings.length) throw new SuiteError(findings.sort((a, b) => a.line - b.line || a.column - b.column));
  return structuredClone(parsed.suite);
}

function parseSuite(text: string, path: string, absolute: string): ParsedSuite {
  const { file, diagnostics } = SourceFile.parse(path, absolute, text);
  const findings: SuiteFinding[] = diagnostics.filter((d) => d.severity === 'error').map((d) => ({ file: path, line: d.line, column: d.column, message: d.message }));
  if (findings.length) throw new SuiteError(findings);
  const at = (pointer: string, message: string, part: 'key' | 'value' = 'value') => {
    const span = file.locate(pointer, part);
    findings.push({ file: path, line: span.line, column: span.column, message });
  };
  const data = file.data;
  const validate = suiteValidator();
  const schemaValid = validate(data);
  if (!schemaValid) for (const error of relevantErrors(validate.errors ?? [])) reportSchemaError(error, at);
  if (!isRecord(data)) throw new SuiteError(findings);
  const raw = data;
  const base = dirname(absolute);
  const catalogs = (Array.isArray(raw.catalog) ? raw.catalog : [raw.catalog]).filter((c): c is string => typeof c === 'string');
  const suite: Suite = {
    name: typeof raw.name === 'string' ? raw.name : basename(path).replace(/\.ya?ml$/i, ''),
    file: absolute,
    catalog: catalogs.map((c) => resolve(base, c)),
    ...(typeof raw.profile === 'string' ? { profile: raw.profile } : {}),
    providers: schemaValid ? ((raw.providers as string[] | undefined) ?? ['openai']).map(parseProvider) : [],
    ...(typeof raw.system === 'string' ? { system: raw.system } : {}),
    ...(typeof raw.max_rounds === 'number' ? { maxRounds: raw.max_rounds } : {}),
    tools: raw.tools === 'live' ? 'live' : 'mock',
    stream: raw.stream !== false,
    prices: (raw.prices as Suite['prices'] | undefined) ?? {},
    cases: [],
  };
  // Every matcher problem is reported, not only the first of a case.
  const report = (error: unknown) => {
    if (!(error instanceof MatcherError)) throw error;
    at(error.pointer, error.message, error.part);
  };
  const names = new Map<string, number>();
  (Array.isArray(raw.cases) ? raw.cases : []).forEach((c: unknown, i) => {
    if (!isRecord(c)) return;
    const pointer = `/cases/${i}`;
    const name = c.name as string;
    if (typeof name === 'string') {
      if (names.has(name)) at(`${pointer}/name`, `two cases are named "${name}" (the other is case ${names.get(name)! + 1}); names identify cases in reports and recordings`);
      names.set(name, i);
    }
    const span = file.locate(pointer);
    try {
      suite.cases.push(readCase(c, pointer, raw, { file: path, line: span.line, column: span.column }, report));
    } catch (error) {
      // With schema errors the case may not have the shape readCase expects; those are reported already.
      if (error instanceof MatcherError) report(error);
      else if (schemaValid) throw error;
    }
  });
  return { file, raw, suite, findings };
}

type At = (pointer: string, message: string, part?: 'key' | 'value') => void;
const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const sorted = (w: string) => [...w.toLowerCase()].sort().join('');
const meant = (word: string, candidates: readonly string[]) => {
  // Edit distance misses swapped letters in short names (qurey for query): same letters count too.
  const near = nearest(word, candidates);
  if (!near.length) near.push(...candidates.filter((c) => sorted(c) === sorted(word)).slice(0, 3));
  return near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : '';
};

/**
 * Names in the suite checked against the catalog: tools (force, calls, not_called, call_count,
 * approvals, stubs; aliases count), argument names against the tool's parameters, profiles, and
 * mappings that look like misspelled matchers. A typo in a safety check would otherwise always pass.
 */
function checkAgainstCatalog(raw: Record<string, unknown>, catalog: Catalog, at: At): void {
  const byName = new Map<string, Tool>();
  for (const tool of catalog.tools) {
    byName.set(tool.name, tool);
    for (const alias of tool.aliases) if (!byName.has(alias)) byName.set(alias, tool);
  }
  // Tools of MCP servers are known only once connected: names cannot be checked then.
  const closed = catalog.mcpServers.size === 0;
  const known = [...byName.keys()];
  const tool = (name: unknown, pointer: string, part: 'key' | 'value' = 'value'): Tool | undefined => {
    if (typeof name !== 'string') return undefined;
    const found = byName.get(name);
    if (found || !closed || (META_TOOL_NAMES as readonly string[]).includes(name)) return found;
    if (/[*?]/.test(name)) {
      // A glob (not_called: [delete_*]) must match some tool, or the check it makes is empty.
      const regex = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
      if (!known.some((k) => regex.test(k)) && !META_TOOL_NAMES.some((k) => regex.test(k))) at(pointer, `"${name}" matches no tool in the catalog${meant(name.replace(/[*?]/g, ''), known)}`, part);
      return undefined;
    }
    at(pointer, `no tool named "${name}" in the catalog${meant(name, known)}`, part);
    return undefined;
  };
  const profiles = profileNames(catalog);
  const profile = (name: unknown, pointer: string) => {
    if (typeof name === 'string' && !profiles.includes(name)) at(pointer, `no profile named "${name}" in the catalog${meant(name, profiles)}`);
  };
  profile(raw.profile, '/profile');
  const expectations = (e: unknown, pointer: string) => {
    if (!isRecord(e)) return;
    if (Array.isArray(e.calls)) {
      e.calls.forEach((call: unknown, i) => {
        if (!isRecord(call)) return;
        const t = tool(call.tool, `${pointer}/calls/${i}/tool`);
        if (isRecord(call.args)) checkArgs(call.args, t, `${pointer}/calls/${i}/args`, at);
      });
    }
    for (const key of ['not_called', 'approvals'] as const) {
      const value = e[key];
      if (Array.isArray(value)) value.forEach((name, i) => tool(name, `${pointer}/${key}/${i}`));
      else tool(value, `${pointer}/${key}`);
    }
    if (isRecord(e.call_count)) for (const name of Object.keys(e.call_count)) tool(name, `${pointer}/call_count/${escapeKey(name)}`, 'key');
    if (isRecord(e.answer) && Array.isArray(e.answer.cites)) e.answer.cites.forEach((name, i) => name !== '*' && tool(name, `${pointer}/answer/cites/${i}`));
    if (isRecord(e.evaluations)) {
      const defined = [...catalog.evaluations.keys()];
      for (const name of Object.keys(e.evaluations)) if (!catalog.evaluations.has(name)) at(`${pointer}/evaluations/${escapeKey(name)}`, `no evaluation named "${name}" in the catalog${meant(name, defined)}`, 'key');
    }
  };
  (Array.isArray(raw.cases) ? raw.cases : []).forEach((c: unknown, i) => {
    if (!isRecord(c)) return;
    const pointer = `/cases/${i}`;
    profile(c.profile, `${pointer}/profile`);
    if (Array.isArray(c.force)) c.force.forEach((name: unknown, j) => tool(name, `${pointer}/force/${j}`));
    expectations(c.expect, `${pointer}/expect`);
    if (Array.isArray(c.turns)) c.turns.forEach((t: unknown, j) => isRecord(t) && expectations(t.expect, `${pointer}/turns/${j}/expect`));
    if (Array.isArray(c.stubs)) {
      c.stubs.forEach((s: unknown, j) => {
        if (!isRecord(s)) return;
        const t = tool(s.tool, `${pointer}/stubs/${j}/tool`);
        if (isRecord(s.when)) checkArgs(s.when, t, `${pointer}/stubs/${j}/when`, at);
      });
    }
  });
}

/** Argument names against the tool's parameters (when it declares them and takes no others), and misspelled matchers. */
function checkArgs(args: Record<string, unknown>, tool: Tool | undefined, pointer: string, at: At): void {
  const parameters = tool?.parameters as Record<string, unknown> | undefined;
  const properties = isRecord(parameters?.properties) ? parameters.properties : undefined;
  const open = parameters !== undefined && (parameters.additionalProperties === true || isRecord(parameters.additionalProperties) || parameters.patternProperties !== undefined);
  for (const [name, value] of Object.entries(args)) {
    const at2 = `${pointer}/${escapeKey(name)}`;
    if (properties && !open && !Object.hasOwn(properties, name) && !(MATCHER_KEYWORDS as readonly string[]).includes(name)) {
      at(at2, `"${tool!.name}" has no parameter "${name}"${meant(name, Object.keys(properties))} (parameters: ${Object.keys(properties).join(', ') || 'none'})`, 'key');
    }
    checkMatcherTypos(value, properties && isRecord(properties[name]) ? properties[name] : undefined, at2, at, 0);
  }
}

/** A mapping whose every key looks like a misspelled matcher keyword (and is no property of the value) is a typo, not a literal. */
function checkMatcherTypos(value: unknown, schema: Record<string, unknown> | undefined, pointer: string, at: At, depth: number): void {
  if (depth > 32) return;
  if (Array.isArray(value)) return value.forEach((v, i) => checkMatcherTypos(v, isRecord(schema?.items) ? schema.items : undefined, `${pointer}/${i}`, at, depth + 1));
  if (!isRecord(value)) return;
  const keys = Object.keys(value);
  const keywords = MATCHER_KEYWORDS as readonly string[];
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  if (keys.some((k) => keywords.includes(k))) {
    for (const k of ['includes', 'equals'] as const) if (k in value) checkMatcherTypos(value[k], k === 'includes' && isRecord(schema?.items) ? schema.items : schema, `${pointer}/${k}`, at, depth + 1);
    return;
  }
  const typos = keys.map((k) => (Object.hasOwn(properties, k) ? undefined : closest(k, keywords)));
  if (keys.length && typos.every((t) => t !== undefined)) {
    keys.forEach((k, i) => at(`${pointer}/${escapeKey(k)}`, `"${k}" is not a matcher; did you mean "${typos[i]}"? (a mapping of only misspelled matchers would be compared as a literal value)`, 'key'));
    return;
  }
  for (const k of keys) checkMatcherTypos(value[k], isRecord(properties[k]) ? properties[k] : undefined, `${pointer}/${escapeKey(k)}`, at, depth + 1);
}

/** `openai:gpt-4.1-mini`, or a provider alone (its default model). */
export function parseProvider(spec: string): ProviderTarget {
  const colon = spec.indexOf(':');
  const provider = (colon < 0 ? spec : spec.slice(0, colon)) as ChatProvider;
  if (!(CHAT_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown provider "${provider}" in "${spec}"`, { hint: `providers: ${CHAT_PROVIDERS.join(', ')} (as provider or provider:model)` });
  }
  const model = colon < 0 || colon === spec.length - 1 ? DEFAULT_MODELS[provider] : spec.slice(colon + 1);
  return { provider, model, label: `${provider}:${model}` };
}

type Report = (error: unknown) => void;

/** `parse()`, with a MatcherError reported rather than thrown (undefined then). */
function attempt<T>(parse: () => T, report: Report): T | undefined {
  try {
    return parse();
  } catch (error) {
    report(error instanceof MatcherError ? betterMessage(error) : error);
    return undefined;
  }
}

/** RE2 calls a lookbehind an "invalid named capture": say what is wrong. */
function betterMessage(error: MatcherError): MatcherError {
  if (/invalid named capture: `\(\?<[=!]/.test(error.message)) return new MatcherError(error.pointer, 'the regex does not compile: it uses a lookbehind ((?<= or (?<!), which RE2 does not support (no lookaround, no backreferences)', error.part);
  return error;
}

/**
 * `{arg: matcher}`, each argument parsed on its own so every bad matcher is reported (parseArgMatchers
 * stops at the first).
 */
function argMatchers(raw: Record<string, unknown>, pointer: string, report: Report): Record<string, ValueMatcher> {
  const keys = Object.keys(raw);
  if (keys.length && keys.every((k) => (MATCHER_KEYWORDS as readonly string[]).includes(k))) return attempt(() => parseArgMatchers(raw, pointer), report) ?? {};
  const out: Record<string, ValueMatcher> = {};
  for (const key of keys) {
    const parsed = attempt(() => parseArgMatchers({ [key]: raw[key] }, pointer), report);
    if (parsed) Object.defineProperty(out, key, { value: parsed[key], enumerable: true, writable: true });
  }
  return out;
}

function readCase(c: Record<string, unknown>, pointer: string, suite: Record<string, unknown>, location: SourceLocation, report: Report): SuiteCase {
  const readExpect = (e: Record<string, unknown>, p: string) => readExpectations(e, p, report);
  const turns = Array.isArray(c.turns)
    ? (c.turns as Record<string, unknown>[]).map((t, i) => ({ prompt: t.prompt as string, ...(t.expect ? { expect: readExpect(t.expect as Record<string, unknown>, `${pointer}/turns/${i}/expect`) } : {}) }))
    : (Array.isArray(c.prompt) ? (c.prompt as string[]) : [c.prompt as string]).map((prompt) => ({ prompt }));
  const stubs: Stub[] = ((c.stubs as Record<string, unknown>[] | undefined) ?? []).map((s, i) => ({
    tool: s.tool as string,
    ...(isRecord(s.when) ? { when: argMatchers(s.when, `${pointer}/stubs/${i}/when`, report) } : {}),
    ...('result' in s ? { result: s.result } : {}),
    ...(typeof s.error === 'string' ? { error: s.error } : {}),
    ...(Array.isArray(s.yields) ? { yields: s.yields } : {}),
  }));
  const elicitation: ElicitationStub[] = ((c.elicitation as Record<string, unknown>[] | undefined) ?? []).map((e, i) => {
    const at = `${pointer}/elicitation/${i}/when`;
    const when = isRecord(e.when) ? e.when : undefined;
    const matcher = (key: 'server' | 'message' | 'schema' | 'url') => (when && key in when ? attempt(() => parseMatcher(when[key], `${at}/${key}`), report) : undefined);
    const parsed: NonNullable<ElicitationStub['when']> = {};
    for (const key of ['server', 'message', 'schema', 'url'] as const) {
      const m = matcher(key);
      if (m) parsed[key] = m;
    }
    if (when?.mode === 'form' || when?.mode === 'url') parsed.mode = when.mode;
    if (Array.isArray(when?.fields)) parsed.fields = when.fields as string[];
    return { ...(when ? { when: parsed } : {}), action: e.action as ElicitationStub['action'], ...(isRecord(e.content) ? { content: e.content } : {}) };
  });
  return {
    name: c.name as string,
    turns,
    ...(c.expect ? { expect: readExpect(c.expect as Record<string, unknown>, `${pointer}/expect`) } : {}),
    stubs,
    elicitation,
    minPassRate: (c.min_pass_rate ?? suite.min_pass_rate ?? 1) as number,
    repeat: (c.repeat ?? suite.repeat ?? 1) as number,
    ...(typeof c.profile === 'string' ? { profile: c.profile } : {}),
    force: (c.force as string[] | undefined) ?? [],
    approve: (c.approve ?? suite.approve ?? true) as boolean,
    ...(typeof c.system === 'string' ? { system: c.system } : {}),
    location,
  };
}

const bound = (value: unknown): CountBound => (typeof value === 'number' ? { min: value, max: value } : (value as CountBound));
const list = (value: unknown): string[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? (value as string[]) : [value as string]);

function readExpectations(e: Record<string, unknown>, pointer: string, report: Report): Expectations {
  const rounds: CountBound | undefined = e.rounds !== undefined || e.max_rounds !== undefined ? { ...(e.rounds !== undefined ? bound(e.rounds) : {}), ...(typeof e.max_rounds === 'number' ? { max: e.max_rounds } : {}) } : undefined;
  const answer = e.answer as Record<string, unknown> | undefined;
  const contains = list(answer?.contains);
  const notContains = list(answer?.not_contains);
  if (typeof answer?.regex === 'string') attempt(() => parseMatcher({ regex: answer.regex }, `${pointer}/answer`), report);
  const counts = e.call_count as Record<string, unknown> | undefined;
  return {
    ...(Array.isArray(e.calls)
      ? { calls: (e.calls as Record<string, unknown>[]).map((call, i) => ({ tool: call.tool as string, ...(isRecord(call.args) ? { args: argMatchers(call.args, `${pointer}/calls/${i}/args`, report) } : {}), source: call })) }
      : {}),
    order: (e.order as CallOrder | undefined) ?? 'in_order',
    ...(e.not_called ? { not_called: e.not_called as string[] } : {}),
    ...(e.no_tool ? { no_tool: true } : {}),
    ...(counts ? { call_count: Object.fromEntries(Object.entries(counts).map(([tool, n]) => [tool, bound(n)])) } : {}),
    ...(rounds ? { rounds } : {}),
    ...(answer
      ? {
          answer: {
            ...(contains ? { contains } : {}),
            ...(notContains ? { not_contains: notContains } : {}),
            ...(typeof answer.regex === 'string' ? { regex: answer.regex } : {}),
            ...(typeof answer.equals === 'string' ? { equals: answer.equals } : {}),
            ...(Array.isArray(answer.cites) ? { cites: answer.cites as string[] } : {}),
          },
        }
      : {}),
    ...(e.approvals ? { approvals: e.approvals as string[] } : {}),
    ...(e.tokens ? { tokens: e.tokens as Expectations['tokens'] } : {}),
    ...(typeof e.stop === 'string' ? { stop: e.stop } : {}),
    ...(isRecord(e.evaluations) ? { evaluations: e.evaluations as Expectations['evaluations'] } : {}),
  };
}

/** ajv reports every failed branch of a oneOf; keep the oneOf itself and one error per node. */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  const out: ErrorObject[] = [];
  const failedOneOf = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.schemaPath.includes('/oneOf/') && failedOneOf.has(e.instancePath)) continue;
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

function reportSchemaError(error: ErrorObject, at: (pointer: string, message: string, part?: 'key' | 'value') => void): void {
  const pointer = error.instancePath;
  const field = pointer.split('/').pop() || 'the suite';
  const where = /^\d+$/.test(field) ? `item ${field}` : `"${field}"`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys(((error.parentSchema as Record<string, unknown> | undefined)?.properties ?? {}) as object);
      const suggestion = closest(key, known);
      at(`${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, `unknown key "${key}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (allowed: ${known.join(', ')})`, 'key');
      return;
    }
    case 'required':
      at(pointer, `missing required key "${String(params.missingProperty)}"`);
      return;
    case 'oneOf':
      if (/^\/cases\/\d+$/.test(pointer)) at(pointer, isRecord(error.data) && 'prompt' in error.data && 'turns' in error.data ? 'a case has `prompt` or `turns`, not both' : 'a case needs `prompt` (one message, or a list) or `turns`');
      else at(pointer, `${where} has the wrong form: ${/rounds|call_count/.test(pointer) ? 'a number or {min, max}' : field === 'catalog' ? 'a file name or a list of them' : 'text or a list of texts'}`);
      return;
    case 'enum':
    case 'const':
      at(pointer, `${where} must be ${error.keyword === 'enum' ? `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` : JSON.stringify(params.allowedValue)}`);
      return;
    case 'pattern':
      at(pointer, `${where} is not a provider spec: use openai, openai-responses or anthropic, optionally :MODEL`);
      return;
    default:
      at(pointer, `${where} ${error.message ?? 'violates the suite schema'}`);
  }
}
