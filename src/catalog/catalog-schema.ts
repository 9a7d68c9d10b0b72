import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import generatedValidator from '../generated/catalog-schema-validator.js';
import { closest } from '../shared/did-you-mean.js';
import type { Reporter } from './reporter.js';
import { segmentsOf } from './diagnostic.js';
import { renameKey, replaceValue, yamlScalar } from './text-fixes.js';

let cachedSchema: Record<string, unknown> | undefined;
/** Precompiled from schema/catalog.schema.json at build time (scripts/build-validators.mjs). */
const validateCatalog = generatedValidator as unknown as ValidateFunction;

/** The catalog format's JSON Schema, as shipped in schema/catalog.schema.json. */
export function catalogSchema(): Record<string, unknown> {
  cachedSchema ??= JSON.parse(readFileSync(join(packageRoot(), 'schema', 'catalog.schema.json'), 'utf8')) as Record<string, unknown>;
  return cachedSchema;
}

/** Checks one file's data against the catalog schema, reporting each violation at its node. */
export function checkCatalogSchema(data: unknown, reporter: Reporter): void {
  if (validateCatalog(data)) return;
  const taggedHandlers = new Set<string>();
  for (const error of relevantErrors(validateCatalog.errors ?? [])) {
    if (error.instancePath.endsWith('/handler') && kindTag(error.data)) {
      // `{kind: mock, result: ...}` is one mistake (a tagged union where toolman keys by kind): say it once.
      if (!taggedHandlers.has(error.instancePath)) reportTaggedHandler(error.instancePath, error.data as Record<string, unknown>, reporter);
      taggedHandlers.add(error.instancePath);
      continue;
    }
    // `version: 1` where `toolman: 1` belongs: the unknown key's "did you mean" says it all.
    if (error.keyword === 'required' && error.instancePath === '' && (error.params as { missingProperty?: string }).missingProperty === 'toolman' && isRootWithVersion(data)) continue;
    reportSchemaError(error, reporter);
  }
}

function isRootWithVersion(data: unknown): boolean {
  return data !== null && typeof data === 'object' && Object.hasOwn(data, 'version');
}

const HANDLER_KINDS = ['mock', 'exec', 'http', 'module'];

/** The kind a handler names in a `kind:` or `type:` field, when it is written as a tagged union. */
function kindTag(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const record = data as Record<string, unknown>;
  if (HANDLER_KINDS.some((kind) => Object.hasOwn(record, kind))) return undefined;
  const tag = Object.hasOwn(record, 'kind') ? record.kind : Object.hasOwn(record, 'type') ? record.type : undefined;
  return typeof tag === 'string' && HANDLER_KINDS.includes(tag) ? tag : undefined;
}

function reportTaggedHandler(pointer: string, handler: Record<string, unknown>, reporter: Reporter): void {
  const kind = kindTag(handler)!;
  const field = Object.hasOwn(handler, 'kind') ? 'kind' : 'type';
  const example: Record<string, string> = {
    mock: 'handler: { mock: [ { result: ... } ] }',
    exec: 'handler: { exec: { argv: [...] } }',
    http: 'handler: { http: { url: ... } }',
    module: 'handler: { module: ./file.js#name }',
  };
  reporter.report('TM0701', `${pointer}/${field}`, `the handler names its kind as \`${field}: ${kind}\`; toolman keys handlers by kind`, {
    part: 'key',
    hint: `write ${example[kind]}`,
  });
}

/** With allErrors, one bad node yields several errors (type + anyOf...); keep the useful ones. */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const typed = new Set(errors.filter((e) => e.keyword === 'type' && !e.schemaPath.includes('anyOf')).map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (typed.has(e.instancePath) && e.keyword !== 'type') continue;
    // anyOf branches: report the anyOf itself once, not each failed branch.
    if (e.schemaPath.includes('/anyOf/')) continue;
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

/**
 * What other formats call catalog keys (OpenAI's and Anthropic's tool definitions, MCP's): the
 * "did you mean" for these is not a matter of spelling.
 */
const KEY_ALIASES: Record<string, string> = {
  input_schema: 'parameters',
  inputSchema: 'parameters',
  parametersJsonSchema: 'parameters',
  outputSchema: 'output_schema',
  params: 'parameters',
  parameter: 'parameters',
  args: 'parameters',
  arguments: 'parameters',
  schema: 'parameters',
  desc: 'description',
  input_examples: 'examples',
  annotations: 'effect',
  version: 'toolman',
};

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
};

function reportSchemaError(error: ErrorObject, reporter: Reporter): void {
  const pointer = error.instancePath;
  const segments = segmentsOf(pointer);
  const field = segments.length ? segments[segments.length - 1] : 'the catalog';
  const where = /^\d+$/.test(field ?? '') ? `item ${field}` : `"${field}"`;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys(((error.parentSchema as Record<string, unknown>)?.properties ?? {}) as object);
      const alias = Object.hasOwn(KEY_ALIASES, key) ? KEY_ALIASES[key] : undefined;
      const suggestion = alias && known.includes(alias) ? alias : closest(key, known);
      const keyPointer = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      // Renaming is the fix unless the right key is there too (then one of them is a duplicate to resolve by hand).
      const present = error.data !== null && typeof error.data === 'object' && suggestion !== undefined && Object.hasOwn(error.data, suggestion);
      const fix = suggestion && !present ? renameKey(reporter.file, keyPointer, suggestion, `renamed "${key}" to "${suggestion}"`) : undefined;
      reporter.report('TM0101', keyPointer, `unknown key "${key}"` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
        part: 'key',
        hint: suggestion ? `rename it to "${suggestion}"` : `allowed keys here: ${known.join(', ')}`,
        ...(fix ? { fix } : {}),
      });
      return;
    }
    case 'type': {
      const expected = String((error.params as { type: string }).type);
      if (pointer.endsWith('/handler/exec/argv') && typeof error.data === 'string') {
        const list = argvList(error.data);
        const fix = list ? replaceValue(reporter.file, pointer, list, `split argv ${JSON.stringify(error.data)} into ${list}`) : undefined;
        reporter.report('TM0702', pointer, 'exec.argv is a string; it must be a list of arguments, since toolman never runs a shell', {
          hint: `write it as a list, e.g. argv: [${error.data.trim().split(/\s+/).slice(0, 3).map((w) => JSON.stringify(w)).join(', ')}]`,
          ...(fix ? { fix } : {}),
        });
        return;
      }
      // `exec: "ls -la"`: the command line where a mapping with its argv list belongs.
      const execLine = pointer.endsWith('/handler/exec') && typeof error.data === 'string' && error.data.trim() !== '';
      const list = execLine ? argvList(error.data as string) : undefined;
      const fix = list ? replaceValue(reporter.file, pointer, `{ argv: ${list} }`, `wrote exec ${JSON.stringify(error.data)} as { argv: ${list} }`) : undefined;
      reporter.report('TM0102', pointer, `${where} must be ${TYPE_WORDS[expected] ?? expected}, not ${describeType(error.data)}`, {
        ...(execLine ? { hint: `write exec: { argv: [${(error.data as string).trim().split(/\s+/).slice(0, 6).map((w) => JSON.stringify(w)).join(', ')}] }: a list of arguments, since toolman never runs a shell` } : {}),
        ...(fix ? { fix } : {}),
      });
      return;
    }
    case 'enum':
    case 'const': {
      const allowed = error.keyword === 'enum' ? ((error.params as { allowedValues: unknown[] }).allowedValues ?? []) : [(error.params as { allowedValue: unknown }).allowedValue];
      const suggestion = typeof error.data === 'string' ? closest(error.data, allowed.filter((a): a is string => typeof a === 'string')) : undefined;
      const fix = suggestion ? replaceValue(reporter.file, pointer, yamlScalar(suggestion), `changed ${JSON.stringify(error.data)} to ${JSON.stringify(suggestion)}`) : undefined;
      reporter.report(
        'TM0103',
        pointer,
        `${where} is ${describeType(error.data)}; allowed: ${allowed.map((a) => JSON.stringify(a)).join(', ')}` + (suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ''),
        fix ? { fix } : {},
      );
      return;
    }
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      const subject = /^\/(tools|policies)\/\d+$|^\/(profiles|agents|mcp_servers)\/[^/]+$/.test(pointer) || segments.length === 0;
      reporter.report('TM0104', pointer, `missing required key "${missing}"` + (subject ? '' : ` in ${where}`), {
        hint: missing === 'toolman' ? 'add `toolman: 1` at the top of the file' : undefined,
      });
      return;
    }
    case 'minProperties':
    case 'maxProperties':
      if (pointer.endsWith('/handler')) {
        const kinds = error.data && typeof error.data === 'object' ? Object.keys(error.data) : [];
        reporter.report(
          'TM0701',
          pointer,
          kinds.length === 0 ? 'the handler names no kind; give exactly one of mock, exec, http, module' : `the handler has ${kinds.length} kinds (${kinds.join(', ')}); give exactly one`,
        );
        return;
      }
      break;
    case 'minimum':
    case 'maximum':
    case 'minLength':
    case 'minItems':
      reporter.report('TM0103', pointer, `${where} ${error.message ?? 'is out of range'}`.replace('must NOT have fewer than 1 characters', 'must not be empty').replace('must NOT have fewer than 1 items', 'must not be empty'));
      return;
  }
  reporter.report('TM0105', pointer, `${where} ${error.message ?? 'violates the catalog schema'}`);
}

/**
 * A command line as a YAML argv list (`ls -la` -> `[ls, -la]`), when splitting at spaces is
 * certainly right: no quotes, escapes or shell syntax, which only a person can split correctly.
 */
function argvList(command: string): string | undefined {
  const words = command.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || /["'\\`$|&;<>(){}*?~]/.test(command)) return undefined;
  return `[${words.map(yamlScalar).join(', ')}]`;
}
