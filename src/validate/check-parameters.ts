import type { ErrorObject, ValidateFunction } from 'ajv';
import generatedMetaValidator from '../generated/meta-schema-validator.js';
import { pointerOf } from '../catalog/diagnostic.js';
import { resolveLocalRef, walkSchema } from '../catalog/json-schema.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { JsonSchema } from '../catalog/types.js';
import type { Reporter } from '../catalog/reporter.js';
import { dottedPath } from '../catalog/reporter.js';

/** The draft 2020-12 meta-schema, precompiled at build time (scripts/build-validators.mjs). */
const validateMetaSchema = generatedMetaValidator as unknown as ValidateFunction;

/** A schema's `$schema` names its draft; we check every tool schema as draft 2020-12. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/**
 * Checks a tool's `parameters` (at `base`, a pointer into the file) against the meta-schema and
 * toolman's own rules. Returns the schema to compile with ajv (strict) when it is fit for that:
 * compiling is the expensive part, so the caller compiles each distinct shape once.
 */
export function checkParameters(parameters: unknown, base: string[], reporter: Reporter): JsonSchema | undefined {
  const at = (path: readonly string[]) => pointerOf([...base, ...path]);
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) return undefined; // the catalog schema reported it
  const schema = parameters as Record<string, unknown>;
  if (schema.type !== 'object') {
    reporter.report(
      'TM0302',
      at(schema.type === undefined ? [] : ['type']),
      schema.type === undefined ? 'parameters has no `type`; the root must be `type: object`' : `parameters has type ${JSON.stringify(schema.type)}; the root must be \`type: object\``,
      { hint: 'wrap single values in an object: type: object, properties: { value: {...} }' },
    );
  }

  const checked = withoutDialect(schema);
  let metaValid = true;
  if (!validateMetaSchema(checked)) {
    metaValid = false;
    for (const error of metaErrors(validateMetaSchema.errors ?? [])) {
      const path = error.instancePath.split('/').slice(1);
      reporter.report('TM0301', at(path), `parameters${path.length ? '.' + dottedPath(path) : ''} ${error.message ?? 'is not valid JSON Schema'}${allowed(error)}`);
    }
  }

  let refsResolve = true;
  walkSchema(checked, ({ node, path }) => {
    const properties = node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties) ? (node.properties as Record<string, unknown>) : undefined;
    if (Array.isArray(node.required)) {
      node.required.forEach((name, i) => {
        if (typeof name === 'string' && !(properties && Object.hasOwn(properties, name))) {
          reporter.report('TM0303', at([...path, 'required', String(i)]), `parameters${path.length ? '.' + dottedPath(path) : ''}.required names "${name}", which is not a property`, {
            hint: properties ? `defined properties: ${Object.keys(properties).join(', ') || '(none)'}` : 'add it under properties',
          });
        }
      });
    }
    if (properties) {
      for (const [name, prop] of Object.entries(properties)) {
        if (prop === null || typeof prop !== 'object') continue;
        const p = prop as Record<string, unknown>;
        const target = typeof p.$ref === 'string' ? (resolveLocalRef(checked, p.$ref) as Record<string, unknown> | undefined) : undefined;
        if (!p.description && !target?.description && !p.title) {
          reporter.report('TM0304', at([...path, 'properties', name]), `property "${dottedPath([...path, 'properties', name]).replace(/^properties\./, '')}" has no description`, {
            part: 'key',
            hint: 'say what the value means and its format; the model reads it to fill the argument',
          });
        }
      }
    }
    if ('enum' in node) {
      if (Array.isArray(node.enum) && node.enum.length === 0) {
        reporter.report('TM0306', at([...path, 'enum']), `parameters${path.length ? '.' + dottedPath(path) : ''}.enum is empty, so no value can ever be valid`);
      } else if (Array.isArray(node.enum)) {
        const seen = new Map<string, number>();
        node.enum.forEach((value, i) => {
          const key = canonicalJson(value);
          const first = seen.get(key);
          if (first === undefined) seen.set(key, i);
          else reporter.report('TM0307', at([...path, 'enum', String(i)]), `enum value ${JSON.stringify(value)} repeats item ${first}`);
        });
      }
    }
    if (typeof node.$ref === 'string' && resolveLocalRef(checked, node.$ref) === undefined) {
      refsResolve = false;
      reporter.report('TM0305', at([...path, '$ref']), `$ref ${JSON.stringify(node.$ref)} points at nothing` + (node.$ref.startsWith('#') ? '' : ' (only local references like "#/$defs/name" are resolved)'), {
        hint: 'define the target under $defs and refer to it as "#/$defs/<name>"',
      });
    }
  });

  return metaValid && refsResolve ? checked : undefined;
}

/** Reports ajv's strict-mode complaints about `schema` at the nodes they concern. */
export function reportStrictComplaints(
  complaints: readonly string[],
  schema: JsonSchema,
  base: string[],
  reporter: Reporter,
  mapPath: (path: string[]) => string[] = (path) => path,
): void {
  const at = (path: readonly string[]) => pointerOf([...base, ...path]);
  for (const message of complaints) {
    if (/enum must have non-empty array/.test(message)) continue; // TM0306 says it, with a location
    const path = strictPath(message, schema, mapPath);
    const unknown = /unknown keyword/.test(message);
    const key = path[path.length - 1] ?? '';
    // `{ description: a, b }` makes "b" a key: the usual cause of an unknown keyword with spaces.
    const flowComma = unknown && (/ /.test(key) || schemaAt(schema, path) === null);
    reporter.report('TM0301', at(path), `parameters: ajv (strict mode): ${message.replace(/^strict mode: /, '').replace(/ at (path )?"#[^"]*"/, '')}`, {
      part: unknown ? 'key' : 'value',
      hint: flowComma ? 'a comma inside { } ends the value before it; quote text that contains commas' : undefined,
    });
  }
}

function schemaAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const segment of path) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
  return node;
}

/** Where a strict-mode complaint is: ajv names a schema path for most, only the keyword for some. */
function strictPath(message: string, schema: unknown, mapPath: (path: string[]) => string[]): string[] {
  const at = /at (?:path )?"#([^"]*)"/.exec(message);
  if (at) return mapPath(at[1]!.split('/').slice(1).map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~')));
  const keyword = /unknown keyword: "([^"]+)"/.exec(message);
  if (keyword) {
    let found: string[] | undefined;
    walkSchema(schema, ({ node, path }) => {
      if (!found && Object.hasOwn(node, keyword[1]!)) found = [...path, keyword[1]!];
    });
    if (found) return found;
  }
  return [];
}

/** The meta-schema reports anyOf branches separately; keep one finding per node. */
function metaErrors(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword === 'anyOf' && errors.some((o) => o !== e && o.instancePath === e.instancePath)) return false;
    if (seen.has(e.instancePath)) return false;
    seen.add(e.instancePath);
    return true;
  });
}

function allowed(error: ErrorObject): string {
  const values = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return values ? `: ${values.map((v) => JSON.stringify(v)).join(', ')}` : '';
}
