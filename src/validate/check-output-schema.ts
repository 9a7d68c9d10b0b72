import type { ValidateFunction } from 'ajv';
import generatedMetaValidator from '../generated/meta-schema-validator.js';
import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Reporter } from '../catalog/reporter.js';
import { dottedPath } from '../catalog/reporter.js';
import type { Tool } from '../catalog/types.js';
import { allowed, metaErrors } from './check-parameters.js';
import { reporterFor } from './check-tools.js';
import { runStrictJob } from './strict-compile.js';

/** The draft 2020-12 meta-schema, precompiled at build time (scripts/build-validators.mjs). */
const validateMetaSchema = generatedMetaValidator as unknown as ValidateFunction;

/**
 * Output schemas (`output_schema`, an MCP server's `outputSchema`), checked as `parameters` are:
 * against the draft 2020-12 meta-schema and compiled with ajv in strict mode (TM0330), since the
 * executor checks every result against them; a root that is not an object, which `serve` cannot
 * advertise to 2025-11-25 clients (TM0331); and the tool's mock results, each of which would
 * otherwise fail every call it answers (TM0332). Results with `{{...}}` templates are filled per
 * call, so they are not checked here.
 */
export function checkOutputSchemas(loaded: LoadedCatalog): void {
  for (const tool of loaded.catalog.tools) {
    const schema = tool.outputSchema;
    if (!schema) continue;
    const where = schemaPlace(loaded, tool);
    if (!where) continue;
    const { reporter, at } = where;
    const { $schema: _dialect, ...checked } = schema;
    if (!validateMetaSchema(checked)) {
      for (const error of metaErrors(validateMetaSchema.errors ?? [])) {
        const path = error.instancePath.split('/').slice(1);
        reporter.report('TM0330', at(path), `output_schema${path.length ? '.' + dottedPath(path) : ''} ${error.message ?? 'is not valid JSON Schema'}${allowed(error)}`, { hint: 'write it as JSON Schema draft 2020-12, as parameters are' });
      }
      continue;
    }
    const mockResults = mockResultsOf(loaded, tool);
    const result = runStrictJob({ id: 0, schema: checked, examples: mockResults.map((m) => m.value) });
    for (const complaint of result.complaints) {
      reporter.report('TM0330', at([]), `output_schema does not compile: ${complaint}`, { hint: 'results are checked against it; fix the schema so ajv compiles it in strict mode' });
    }
    if (schema.type !== 'object') {
      reporter.report('TM0331', at(schema.type === undefined ? [] : ['type']), `output_schema's root is ${schema.type === undefined ? 'untyped' : `type ${JSON.stringify(schema.type)}`}: results are still checked, but serve does not advertise it (MCP 2025-11-25 takes only type: object at the root of outputSchema)`, {
        hint: 'wrap the result in an object (type: object, properties: { value: {...} }) if MCP clients should see it',
      });
    }
    for (const failed of result.examples) {
      const mock = mockResults[failed.index]!;
      const first = failed.errors[0];
      const path = first?.instancePath ? `result${first.instancePath.replace(/\//g, '.')}` : 'the result';
      mock.reporter.report('TM0332', mock.pointer, `this mock result does not match the tool's output_schema: ${path} ${first?.message ?? 'is invalid'}${failed.errors.length > 1 ? ` (and ${failed.errors.length - 1} more)` : ''}; every call it answers fails with invalid_output`, {
        hint: 'make the result match output_schema, or correct the schema',
      });
    }
  }
}

/** Where a tool's output schema was written: its entry, the last override that set it, or (for a server's tool) the server's entry. */
function schemaPlace(loaded: LoadedCatalog, tool: Tool): { reporter: Reporter; at: (path: readonly string[]) => string } | undefined {
  const setBy = [...(tool.overriddenBy ?? [])].reverse().find((o) => o.fields.includes('output_schema'));
  const overrideReporter = setBy ? loaded.reporters.get(setBy.file) : undefined;
  if (setBy && overrideReporter) {
    const base = [...segmentsOf(setBy.pointer), 'set', 'output_schema'];
    return { reporter: naming(overrideReporter, tool.name, loaded), at: (path) => pointerOf([...base, ...path]) };
  }
  const reporter = reporterFor(loaded, tool);
  if (!reporter || tool.source.kind === 'meta') return undefined;
  const base = [...segmentsOf(tool.source.pointer), 'output_schema'];
  return { reporter, at: (path) => pointerOf([...base, ...path]) };
}

/** An override's findings name the tool they are about: the override's own pointer does not. */
function naming(reporter: Reporter, tool: string, loaded: LoadedCatalog): Reporter {
  return Object.assign(Object.create(reporter) as Reporter, {
    report(code: Parameters<Reporter['report']>[0], pointer: string, message: string, options?: Parameters<Reporter['report']>[3]) {
      const before = loaded.diagnostics.length;
      reporter.report(code, pointer, `${tool}: ${message}`, options);
      for (const d of loaded.diagnostics.slice(before)) d.tool = tool;
    },
  });
}

/**
 * The tool's mock results that can be checked as written: not an error case, no `{{...}}`
 * templates (those are filled per call). None for a stateful tool: its calls answer with job
 * reports, which no result rule reads (TM0736 says so instead).
 */
export function mockResultsOf(loaded: LoadedCatalog, tool: Tool): { value: unknown; reporter: Reporter; pointer: string }[] {
  if (tool.handler?.kind !== 'mock' || tool.source.kind !== 'catalog' || tool.mode === 'stateful') return [];
  const reporter = reporterFor(loaded, tool);
  if (!reporter) return [];
  const base = segmentsOf(tool.source.pointer);
  const out: { value: unknown; reporter: Reporter; pointer: string }[] = [];
  tool.handler.cases.forEach((mockCase, i) => {
    if (mockCase.error !== undefined || !('result' in mockCase) || JSON.stringify(mockCase.result ?? null).includes('{{')) return;
    out.push({ value: mockCase.result, reporter, pointer: pointerOf([...base, 'handler', 'mock', i, 'result']) });
  });
  return out;
}
