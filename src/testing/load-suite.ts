import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv } from '../catalog/create-ajv.js';
import { SourceFile } from '../catalog/source-file.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import type { ChatProvider } from '../providers/model-clients.js';
import { closest } from '../shared/did-you-mean.js';
import { ErrorCode, ToolmanError, type SourceLocation } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import { packageRoot } from '../shared/package-root.js';
import { MiB, readRegularFile } from '../shared/read-file.js';
import type { CallOrder, CountBound, Expectations, ProviderTarget, Stub, Suite, SuiteCase } from './suite-types.js';
import { MatcherError, parseArgMatchers, parseMatcher } from './value-matchers.js';

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

let validator: ValidateFunction | undefined;
function suiteValidator(): ValidateFunction {
  // Compiled on first use: only `toolman test` pays for it.
  validator ??= createAjv({ allErrors: true, verbose: true, strictTypes: false, strictRequired: false }).compile(JSON.parse(readFileSync(join(packageRoot(), 'schema', 'suite.schema.json'), 'utf8')) as object);
  return validator;
}

/**
 * Reads a suite file: bounded in size and depth like a catalog (it is untrusted input: suites
 * and recordings come from others), checked against schema/suite.schema.json, and every matcher
 * compiled. Problems are collected and thrown together as a SuiteError, each located.
 */
export function loadSuite(path: string, options: { cwd?: string } = {}): Suite {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, path);
  const text = readRegularFile(absolute, { maxBytes: MAX_SUITE_BYTES, label: 'suite' });
  const { file, diagnostics } = SourceFile.parse(path, absolute, text);
  const findings: SuiteFinding[] = diagnostics.filter((d) => d.severity === 'error').map((d) => ({ file: path, line: d.line, column: d.column, message: d.message }));
  if (findings.length) throw new SuiteError(findings);
  const at = (pointer: string, message: string, part: 'key' | 'value' = 'value') => {
    const span = file.locate(pointer, part);
    findings.push({ file: path, line: span.line, column: span.column, message });
  };
  const data = file.data;
  const validate = suiteValidator();
  if (!validate(data)) {
    for (const error of relevantErrors(validate.errors ?? [])) reportSchemaError(error, at);
    throw new SuiteError(findings);
  }
  const raw = data as Record<string, unknown>;
  const base = dirname(absolute);
  const catalogs = (Array.isArray(raw.catalog) ? raw.catalog : [raw.catalog]) as string[];
  const suite: Suite = {
    name: typeof raw.name === 'string' ? raw.name : basename(path).replace(/\.ya?ml$/i, ''),
    file: absolute,
    catalog: catalogs.map((c) => resolve(base, c)),
    ...(typeof raw.profile === 'string' ? { profile: raw.profile } : {}),
    providers: ((raw.providers as string[] | undefined) ?? ['openai']).map(parseProvider),
    ...(typeof raw.system === 'string' ? { system: raw.system } : {}),
    ...(typeof raw.max_rounds === 'number' ? { maxRounds: raw.max_rounds } : {}),
    tools: raw.tools === 'live' ? 'live' : 'mock',
    stream: raw.stream !== false,
    prices: (raw.prices as Suite['prices'] | undefined) ?? {},
    cases: [],
  };
  const names = new Map<string, number>();
  (raw.cases as Record<string, unknown>[]).forEach((c, i) => {
    const pointer = `/cases/${i}`;
    const name = c.name as string;
    if (names.has(name)) at(`${pointer}/name`, `two cases are named "${name}" (the other is case ${names.get(name)! + 1}); names identify cases in reports and recordings`);
    names.set(name, i);
    const span = file.locate(pointer);
    try {
      suite.cases.push(readCase(c, pointer, raw, { file: path, line: span.line, column: span.column }));
    } catch (error) {
      if (!(error instanceof MatcherError)) throw error;
      at(error.pointer, error.message, error.part);
    }
  });
  if (findings.length) throw new SuiteError(findings);
  return suite;
}

/** `openai:gpt-4.1-mini`, or a provider alone (its default model). */
export function parseProvider(spec: string): ProviderTarget {
  const colon = spec.indexOf(':');
  const provider = (colon < 0 ? spec : spec.slice(0, colon)) as ChatProvider;
  if (!['openai', 'openai-responses', 'anthropic'].includes(provider)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown provider "${provider}" in "${spec}"`, { hint: 'providers: openai, openai-responses, anthropic (as provider or provider:model)' });
  }
  const model = colon < 0 || colon === spec.length - 1 ? DEFAULT_MODELS[provider] : spec.slice(colon + 1);
  return { provider, model, label: `${provider}:${model}` };
}

function readCase(c: Record<string, unknown>, pointer: string, suite: Record<string, unknown>, location: SourceLocation): SuiteCase {
  const turns = Array.isArray(c.turns)
    ? (c.turns as Record<string, unknown>[]).map((t, i) => ({ prompt: t.prompt as string, ...(t.expect ? { expect: readExpect(t.expect as Record<string, unknown>, `${pointer}/turns/${i}/expect`) } : {}) }))
    : (Array.isArray(c.prompt) ? (c.prompt as string[]) : [c.prompt as string]).map((prompt) => ({ prompt }));
  const stubs: Stub[] = ((c.stubs as Record<string, unknown>[] | undefined) ?? []).map((s, i) => ({
    tool: s.tool as string,
    ...(isRecord(s.when) ? { when: parseArgMatchers(s.when, `${pointer}/stubs/${i}/when`) } : {}),
    ...('result' in s ? { result: s.result } : {}),
    ...(typeof s.error === 'string' ? { error: s.error } : {}),
  }));
  return {
    name: c.name as string,
    turns,
    ...(c.expect ? { expect: readExpect(c.expect as Record<string, unknown>, `${pointer}/expect`) } : {}),
    stubs,
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

function readExpect(e: Record<string, unknown>, pointer: string): Expectations {
  const rounds: CountBound | undefined = e.rounds !== undefined || e.max_rounds !== undefined ? { ...(e.rounds !== undefined ? bound(e.rounds) : {}), ...(typeof e.max_rounds === 'number' ? { max: e.max_rounds } : {}) } : undefined;
  const answer = e.answer as Record<string, unknown> | undefined;
  const contains = list(answer?.contains);
  const notContains = list(answer?.not_contains);
  if (typeof answer?.regex === 'string') parseMatcher({ regex: answer.regex }, `${pointer}/answer`);
  const counts = e.call_count as Record<string, unknown> | undefined;
  return {
    ...(Array.isArray(e.calls)
      ? { calls: (e.calls as Record<string, unknown>[]).map((call, i) => ({ tool: call.tool as string, ...(isRecord(call.args) ? { args: parseArgMatchers(call.args, `${pointer}/calls/${i}/args`) } : {}), source: call })) }
      : {}),
    order: (e.order as CallOrder | undefined) ?? 'in_order',
    ...(e.not_called ? { not_called: e.not_called as string[] } : {}),
    ...(e.no_tool ? { no_tool: true } : {}),
    ...(counts ? { call_count: Object.fromEntries(Object.entries(counts).map(([tool, n]) => [tool, bound(n)])) } : {}),
    ...(rounds ? { rounds } : {}),
    ...(answer
      ? { answer: { ...(contains ? { contains } : {}), ...(notContains ? { not_contains: notContains } : {}), ...(typeof answer.regex === 'string' ? { regex: answer.regex } : {}), ...(typeof answer.equals === 'string' ? { equals: answer.equals } : {}) } }
      : {}),
    ...(e.approvals ? { approvals: e.approvals as string[] } : {}),
    ...(e.tokens ? { tokens: e.tokens as Expectations['tokens'] } : {}),
    ...(typeof e.stop === 'string' ? { stop: e.stop } : {}),
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
