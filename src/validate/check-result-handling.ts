import type { ValidateFunction } from 'ajv';
import generatedMetaValidator from '../generated/meta-schema-validator.js';
import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Reporter } from '../catalog/reporter.js';
import { dottedPath } from '../catalog/reporter.js';
import type { EvaluationDefinition, Tool } from '../catalog/types.js';
import { closest } from '../shared/did-you-mean.js';
import { isRecord } from '../shared/is-record.js';
import { parseSelector, select } from '../shared/json-selector.js';
import { linearRegExp } from '../shared/linear-regexp.js';
import { allowed, metaErrors } from './check-parameters.js';
import { reporterFor } from './check-tools.js';
import { runStrictJob } from './strict-compile.js';

/** The draft 2020-12 meta-schema, precompiled at build time (scripts/build-validators.mjs). */
const validateMetaSchema = generatedMetaValidator as unknown as ValidateFunction;

const KINDS = ['regex', 'not_regex', 'schema', 'rubric'] as const;

/**
 * What toolman does with results, checked (TM14xx): `truncation: summarize` needs a model
 * (TM1408, TM1412); `references:` selectors must parse (TM1406), find something in the tool's
 * mock results (TM1410), and `resource_links` needs an MCP tool (TM1407); `evaluations:` entries
 * have one kind each (TM1402), compile (TM1403, TM1404), set nothing their kind ignores (TM1409)
 * and are listed by some tool (TM1405); a tool lists only defined checks (TM1401), and its mock
 * results pass its result checks (TM1411).
 */
export function checkResultHandling(loaded: LoadedCatalog): void {
  const { catalog } = loaded;
  const listed = new Set<string>();
  const usable = checkEvaluations(loaded);
  let summarizes = false;
  for (const tool of catalog.tools) {
    if (tool.source.kind === 'meta') continue;
    if (tool.truncation === 'summarize') {
      summarizes = true;
      if (!catalog.budget.summarize) {
        const at = place(loaded, tool, 'truncation');
        at?.reporter.report('TM1408', at.pointer([]), 'truncation: summarize, but the catalog has no budget.summarize: its long results are cut with smart truncation instead', {
          hint: 'add budget: { summarize: { provider: openai, model: gpt-4o-mini } } (any small model), or use truncation: smart',
        });
      }
    }
    if (tool.references) checkReferences(loaded, tool);
    (tool.evaluation ?? []).forEach((name, i) => {
      listed.add(name);
      if (catalog.evaluations.has(name)) return;
      const at = place(loaded, tool, 'evaluation');
      at?.reporter.report('TM1401', at.pointer([i]), `no evaluation named "${name}" in evaluations:${meant(name, [...catalog.evaluations.keys()])}`, { hint: 'define it under evaluations: at the top of the catalog' });
    });
    checkMockResults(loaded, tool, usable);
  }
  for (const definition of catalog.evaluations.values()) {
    if (listed.has(definition.name)) continue;
    loaded.reporters.get(definition.file)?.report('TM1405', definition.pointer, 'no tool lists this check in its evaluation:, so it never runs', { part: 'key', subject: `evaluation "${definition.name}"`, hint: `add evaluation: [${definition.name}] to the tools whose answers it checks` });
  }
  const settings = catalog.budget.summarize;
  if (settings?.file && !summarizes) {
    loaded.reporters.get(settings.file)?.report('TM1412', '/budget/summarize', 'no tool has truncation: summarize, so this model is never called', { part: 'key', subject: 'budget' });
  }
}

/** Each entry's kind, patterns and schema; returns the entries that compiled (their mock checks can run). */
function checkEvaluations(loaded: LoadedCatalog): Map<string, EvaluationDefinition> {
  const usable = new Map<string, EvaluationDefinition>();
  for (const definition of loaded.catalog.evaluations.values()) {
    const reporter = loaded.reporters.get(definition.file);
    const raw = reporter ? valueAt(reporter.file.data, segmentsOf(definition.pointer)) : undefined;
    if (!reporter || !isRecord(raw)) continue;
    const subject = { subject: `evaluation "${definition.name}"` };
    const at = (...path: string[]) => pointerOf([...segmentsOf(definition.pointer), ...path]);
    const kinds = KINDS.filter((k) => raw[k] !== undefined);
    if (kinds.length !== 1) {
      reporter.report('TM1402', definition.pointer, kinds.length ? `has ${kinds.join(' and ')}: a check is one of them` : 'says nothing to check: give one of regex, not_regex, schema or rubric', { part: 'key', ...subject });
      continue;
    }
    const kind = kinds[0]!;
    if (kind !== 'rubric') for (const key of ['provider', 'model'] as const) if (raw[key] !== undefined) reporter.report('TM1409', at(key), `${key} is for rubrics, which a model grades: a ${kind} check ignores it`, subject);
    if (kind === 'rubric' && raw.on === 'result') reporter.report('TM1409', at('on'), 'a rubric grades the answer (with the tools\' results beside it): on: result is ignored', subject);
    if (definition.kind === 'regex' || definition.kind === 'not_regex') {
      try {
        linearRegExp(definition.pattern);
      } catch (error) {
        reporter.report('TM1403', at(kind), `does not compile with RE2: ${error instanceof Error ? error.message : String(error)}`, { ...subject, hint: 'RE2 has no lookaround and no backreferences; rewrite the pattern without them' });
        continue;
      }
    }
    if (definition.kind === 'schema') {
      const { $schema: _dialect, ...schema } = definition.schema;
      if (!validateMetaSchema(schema)) {
        for (const error of metaErrors(validateMetaSchema.errors ?? [])) {
          const path = error.instancePath.split('/').slice(1);
          reporter.report('TM1404', at('schema', ...path), `schema${path.length ? '.' + dottedPath(path) : ''} ${error.message ?? 'is not valid JSON Schema'}${allowed(error)}`, subject);
        }
        continue;
      }
      const complaints = runStrictJob({ id: 0, schema, examples: [] }).complaints;
      for (const complaint of complaints) reporter.report('TM1404', at('schema'), `does not compile: ${complaint}`, subject);
      if (complaints.length) continue;
    }
    usable.set(definition.name, definition);
  }
  return usable;
}

/** Selectors that parse (TM1406), resource links only on MCP tools (TM1407), and a source found in some mock result (TM1410). */
function checkReferences(loaded: LoadedCatalog, tool: Tool): void {
  const spec = tool.references!;
  const at = place(loaded, tool, 'references');
  if (!at) return;
  if (spec.kind === 'resource_links') {
    if (tool.source.kind !== 'mcp') at.reporter.report('TM1407', at.pointer([]), 'resource_links reads the resource_link blocks of an MCP tool\'s result, and this tool is not an MCP server\'s: it finds no source', { hint: 'give selectors instead: references: { items: "$.results[*]", url: "$.url", title: "$.title" }' });
    return;
  }
  const selectors = new Map<string, ReturnType<typeof parseSelector>>();
  for (const field of ['items', 'url', 'title', 'snippet'] as const) {
    const text = spec[field];
    if (text === undefined) continue;
    const parsed = parseSelector(text);
    selectors.set(field, parsed);
    if (!parsed.ok) at.reporter.report('TM1406', at.pointer([field]), `${JSON.stringify(text)}: ${parsed.message} (at character ${parsed.offset + 1})`, { hint: 'a selector is $ then steps: .key, [\'key\'], [N] or [*] (e.g. $.pages[*], then $.url within each)' });
  }
  const items = selectors.get('items');
  const url = selectors.get('url');
  if (!items?.ok || !url?.ok) return;
  const results = mockResults(loaded, tool);
  if (!results.length) return;
  const finds = results.some(({ value }) => select(items.selector, typeof value === 'string' ? parse(value) : value, 50).some((item) => typeof select(url.selector, item, 1)[0] === 'string'));
  if (!finds) at.reporter.report('TM1410', at.pointer([]), `none of the tool's mock results has a source these selectors find (${spec.items}, then ${spec.url} in each): a typo in a selector finds nothing, silently`, { hint: 'check the selectors against what the tool returns' });
}

/** The tool's mock results against its result checks (TM1411): a result that fails one fails it in every conversation. */
function checkMockResults(loaded: LoadedCatalog, tool: Tool, usable: ReadonlyMap<string, EvaluationDefinition>): void {
  const checks = (tool.evaluation ?? []).map((name) => usable.get(name)).filter((d): d is EvaluationDefinition => d !== undefined && d.on === 'result');
  if (!checks.length) return;
  for (const mock of mockResults(loaded, tool)) {
    for (const check of checks) {
      const problem = failure(check, mock.value);
      if (problem) mock.reporter.report('TM1411', mock.pointer, `this mock result fails the evaluation ${check.name}: ${problem}`, { hint: `make the result pass ${check.name}, or correct the check` });
    }
  }
}

/** Why a value fails a regex, not_regex or schema check, or undefined when it passes. */
function failure(check: EvaluationDefinition, value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (check.kind === 'regex') return linearRegExp(check.pattern).test(text) ? undefined : `it does not match /${check.pattern}/`;
  if (check.kind === 'not_regex') return linearRegExp(check.pattern).test(text) ? `it matches /${check.pattern}/` : undefined;
  if (check.kind !== 'schema') return undefined;
  const data = typeof value === 'string' ? parse(value) : value;
  if (data === undefined) return 'it is not JSON';
  const failed = runStrictJob({ id: 0, schema: check.schema, examples: [data] }).examples[0];
  const first = failed?.errors[0];
  return failed ? `${first?.instancePath ? `result${first.instancePath.replace(/\//g, '.')}` : 'the result'} ${first?.message ?? 'is invalid'}` : undefined;
}

/** Where a tool's field was written: the last override that set it, or the tool's own entry (a server's tool: the server's entry). */
function place(loaded: LoadedCatalog, tool: Tool, field: string): { reporter: Reporter; pointer: (path: readonly (string | number)[]) => string } | undefined {
  const setBy = [...(tool.overriddenBy ?? [])].reverse().find((o) => o.fields.includes(field));
  const overrideReporter = setBy ? loaded.reporters.get(setBy.file) : undefined;
  if (setBy && overrideReporter) return { reporter: overrideReporter, pointer: (path) => pointerOf([...segmentsOf(setBy.pointer), 'set', field, ...path]) };
  const reporter = reporterFor(loaded, tool);
  if (!reporter || tool.source.kind === 'meta') return undefined;
  const base = segmentsOf(tool.source.pointer);
  return { reporter, pointer: (path) => pointerOf([...base, field, ...path]) };
}

/** The tool's mock results as written (not error cases, no `{{...}}` templates: those are filled per call). */
function mockResults(loaded: LoadedCatalog, tool: Tool): { value: unknown; reporter: Reporter; pointer: string }[] {
  if (tool.handler?.kind !== 'mock' || tool.source.kind !== 'catalog') return [];
  const reporter = reporterFor(loaded, tool);
  if (!reporter) return [];
  const base = segmentsOf(tool.source.pointer);
  return tool.handler.cases.flatMap((mockCase, i) =>
    mockCase.error !== undefined || !('result' in mockCase) || JSON.stringify(mockCase.result ?? null).includes('{{') ? [] : [{ value: mockCase.result, reporter, pointer: pointerOf([...base, 'handler', 'mock', i, 'result']) }],
  );
}

function meant(name: string, known: readonly string[]): string {
  const near = closest(name, known);
  return near ? `; did you mean "${near}"?` : '';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function valueAt(data: unknown, segments: readonly string[]): unknown {
  let node = data;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isRecord(node)) node = node[segment];
    else return undefined;
  }
  return node;
}
