import type { ErrorObject, ValidateFunction } from 'ajv';
import generatedMetaValidator from '../generated/meta-schema-validator.js';
import { pointerOf } from '../catalog/diagnostic.js';
import { resolveLocalRef, schemaFamilies, walkSchema, type SchemaFamily } from '../catalog/json-schema.js';
import { checkSchemaNode } from './check-schema-sanity.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { JsonSchema } from '../catalog/types.js';
import type { Reporter } from '../catalog/reporter.js';
import KNOWN_KEYWORDS from '../generated/known-keywords.js';
import { closest } from '../shared/did-you-mean.js';
import { isRecord } from '../shared/is-record.js';
import { dottedPath } from '../catalog/reporter.js';
import { addEntryBeforeEdit, appendToListEdit, removeEntryEdit, renameKey, replaceValue, yamlScalar } from '../catalog/text-fixes.js';
import type { Fix } from '../catalog/diagnostic.js';
import { linearRegExp, mayNeedRe2Check } from '../shared/linear-regexp.js';

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
export function checkParameters(parameters: unknown, base: string[], reporter: Reporter): { compilable: JsonSchema | undefined; explained: Set<string> } {
  const at = (path: readonly string[]) => pointerOf([...base, ...path]);
  /** Schema paths already reported in the author's words: raw ajv messages about them would repeat it. */
  const explained = new Set<string>();
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) return { compilable: undefined, explained }; // the catalog schema reported it
  const schema = parameters as Record<string, unknown>;
  if (schema.type !== 'object') {
    const missing = schema.type === undefined;
    reporter.report(
      'TM0302',
      at(missing ? [] : ['type']),
      missing ? 'parameters has no `type`; the root must be `type: object`' : `parameters has type ${JSON.stringify(schema.type)}; the root must be \`type: object\``,
      { hint: missing && isRecord(schema.properties) ? 'add `type: object` beside `properties`' : 'wrap single values in an object: type: object, properties: { value: {...} }' },
    );
    explained.add('');
  }

  const checked = withoutDialect(schema);
  let refsResolve = true;
  // Built only when a `required` names something its own node does not define, or a property has
  // no description (rare in a good catalog): most schemas never pay for it.
  let families: Map<object, SchemaFamily> | undefined;
  const familyOf = (node: object) => (families ??= schemaFamilies(checked)).get(node);
  walkSchema(checked, ({ node, path }) => {
    explainKeywords(node, path, reporter, at, explained);
    checkSchemaNode(node, path, at, reporter);
    const properties = node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties) ? (node.properties as Record<string, unknown>) : undefined;
    if (Array.isArray(node.required)) {
      node.required.forEach((name, i) => {
        if (typeof name !== 'string' || (properties && Object.hasOwn(properties, name))) return;
        const known = familyOf(node)?.names;
        if (known?.has(name)) return;
        reporter.report('TM0303', at([...path, 'required', String(i)]), `parameters${path.length ? '.' + dottedPath(path) : ''}.required names "${name}", which is not a property`, {
          hint: known?.size ? `defined properties: ${[...known].join(', ')}` : properties ? 'defined properties: (none)' : 'add it under properties',
        });
      });
    }
    if (properties) {
      for (const [name, prop] of Object.entries(properties)) {
        if (prop === null || typeof prop !== 'object') continue;
        // A misspelled description is reported as the unknown keyword it is; once is enough.
        if (!described(prop as Record<string, unknown>, checked) && !misspellsDescription(prop as Record<string, unknown>) && !describedInFamily(familyOf(node), node, name, checked)) {
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
    checkPatterns(node, path, reporter, at, explained);
    if (typeof node.$ref === 'string' && resolveLocalRef(checked, node.$ref) === undefined) {
      refsResolve = false;
      reporter.report('TM0305', at([...path, '$ref']), `$ref ${JSON.stringify(node.$ref)} points at nothing` + (node.$ref.startsWith('#') ? '' : ' (only local references like "#/$defs/name" are resolved)'), {
        hint: 'define the target under $defs and refer to it as "#/$defs/<name>"',
      });
    }
  });

  // The meta-schema's findings, except where the walk above already said it in better words.
  let metaValid = true;
  let onlyExplained = true;
  if (!validateMetaSchema(checked)) {
    metaValid = false;
    for (const error of metaErrors(validateMetaSchema.errors ?? [])) {
      const path = error.instancePath.split('/').slice(1);
      if (explained.has(path.join('/'))) continue;
      onlyExplained = false;
      reporter.report('TM0301', at(path), `parameters${path.length ? '.' + dottedPath(path) : ''} ${error.message ?? 'is not valid JSON Schema'}${allowed(error)}`);
    }
  }
  // Every problem the meta-schema found was explained above: compile without those keywords, so
  // the rest (types, formats) is found in this same run.
  if (!metaValid && onlyExplained) return { compilable: withoutExplained(withoutDanglingRefs(checked), explained), explained };
  // A `$ref` to nothing stops ajv's compile; compiling with those references as "anything" still
  // finds every other problem now, instead of in a second wave after the reference is fixed.
  return { compilable: metaValid ? (refsResolve ? checked : withoutDanglingRefs(checked)) : undefined, explained };
}

/**
 * `pattern` and `patternProperties` run on RE2 (linear time, so a model's input cannot make
 * validation hang): JavaScript-only syntax, lookaround and backreferences, cannot run there.
 */
function checkPatterns(node: Record<string, unknown>, path: string[], reporter: Reporter, at: (path: readonly string[]) => string, explained: Set<string>): void {
  const check = (pattern: string, where: string[], part: 'key' | 'value') => {
    try {
      // Compiling is not matching: JavaScript's parser runs in linear time; only what it accepts is asked of RE2.
      new RegExp(pattern, 'u');
    } catch (error) {
      reporter.report('TM0301', at(where), `pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`, { part });
      explained.add(where.join('/'));
      return;
    }
    if (!mayNeedRe2Check(pattern)) return;
    try {
      linearRegExp(pattern);
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
      reporter.report('TM0309', at(where), `pattern ${JSON.stringify(pattern)} cannot be matched in linear time (${reason})`, {
        part,
        hint: 'toolman checks patterns with RE2 so no input can make validation hang: rewrite it without lookahead, lookbehind or backreferences (or describe the rule in the description)',
      });
      explained.add(where.join('/'));
    }
  };
  if (typeof node.pattern === 'string') check(node.pattern, [...path, 'pattern'], 'value');
  if (isRecord(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) check(key, [...path, 'patternProperties', key], 'key');
}

/** The formats ajv-formats checks (the draft 2020-12 ones and OpenAPI's), which toolman's validator knows. */
const KNOWN_FORMATS = ['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary'];
/** What authors write for a format that is spelt otherwise. */
const FORMAT_WORDS: Record<string, string> = { datetime: 'date-time', timestamp: 'date-time', iso8601: 'date-time', 'iso-8601': 'date-time', ip: 'ipv4', ipaddress: 'ipv4', 'e-mail': 'email', mail: 'email', link: 'uri', guid: 'uuid', host: 'hostname', regexp: 'regex' };

/** JSON Schema's type names, and what authors write for them (Python, Java, TypeScript). */
const TYPE_WORDS: Record<string, string> = { str: 'string', text: 'string', int: 'integer', long: 'integer', float: 'number', double: 'number', decimal: 'number', bool: 'boolean', dict: 'object', map: 'object', list: 'array', tuple: 'array', none: 'null', nil: 'null' };
const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * Reports what is wrong with one schema node's keys and `type` the way an author thinks of it,
 * all in one pass: unknown keywords with the closest known one (`descripton`, `maxlength`), type
 * names from other languages (`str`), and `required: true` on a property. The paths reported go
 * into `explained`, so ajv's own messages about the same places are not shown as well.
 */
function explainKeywords(node: Record<string, unknown>, path: string[], reporter: Reporter, at: (path: readonly string[]) => string, explained: Set<string>): void {
  const where = `parameters${path.length ? '.' + dottedPath(path) : ''}`;
  for (const key of Object.keys(node)) {
    const draftProblem = draftKeyword(node, key);
    if (draftProblem) {
      reporter.report('TM0301', at([...path, key]), `${where}: ${draftProblem.message}`, { part: 'key', hint: draftProblem.hint });
      explained.add([...path, key].join('/'));
      continue;
    }
    if (KNOWN_KEYWORDS.has(key)) continue;
    const suggestion = closestKeyword(key);
    const optional = key === 'optional';
    // `{ description: Name, e.g. Paris }`: in YAML's { } a comma ends the value, and the rest becomes a key.
    const splitText = node[key] === null && /\s/.test(key);
    const fix = suggestion && !Object.hasOwn(node, suggestion) ? renameKey(reporter.file, at([...path, key]), suggestion, `renamed "${key}" to "${suggestion}"`) : undefined;
    reporter.report('TM0301', at([...path, key]), `${where}: unknown keyword "${key}"` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
      part: 'key',
      ...(fix ? { fix } : {}),
      hint: optional
        ? "JSON Schema has no `optional`: properties are optional unless the parent's `required` lists them"
        : suggestion
          ? `rename it to "${suggestion}"`
          : splitText
            ? 'this looks like text cut off at a comma inside { }: quote the value that contains the comma'
            : 'remove it, or move what it says into the description',
    });
    explained.add([...path, key].join('/'));
  }
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : [];
  types.forEach((type, i) => {
    if (typeof type !== 'string' || JSON_TYPES.includes(type)) return;
    const suggestion = TYPE_WORDS[type.toLowerCase()] ?? (JSON_TYPES.includes(type.toLowerCase()) ? type.toLowerCase() : closest(type, JSON_TYPES));
    const typePointer = at(Array.isArray(node.type) ? [...path, 'type', String(i)] : [...path, 'type']);
    const fix = suggestion ? replaceValue(reporter.file, typePointer, suggestion, `changed type "${type}" to "${suggestion}"`) : undefined;
    reporter.report('TM0301', typePointer, `${where}: type "${type}" is not a JSON Schema type` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
      hint: `types: ${JSON_TYPES.join(', ')}`,
      ...(fix ? { fix } : {}),
    });
    explained.add([...path, 'type'].join('/'));
    if (Array.isArray(node.type)) explained.add([...path, 'type', String(i)].join('/'));
  });
  if (typeof node.format === 'string' && !KNOWN_FORMATS.includes(node.format)) {
    // ajv's strict compile refuses it too, but points at the node; say it here, at the value, in the author's words.
    const suggestion = FORMAT_WORDS[node.format.toLowerCase()] ?? closest(node.format, KNOWN_FORMATS);
    const fix = suggestion ? replaceValue(reporter.file, at([...path, 'format']), suggestion, `changed format "${node.format}" to "${suggestion}"`) : undefined;
    reporter.report('TM0301', at([...path, 'format']), `${where}: unknown format "${node.format}"` + (suggestion ? `; did you mean "${suggestion}"?` : ''), {
      hint: suggestion ? `write format: ${suggestion}` : `formats: ${KNOWN_FORMATS.slice(0, 12).join(', ')}... (or describe the format in the description)`,
      ...(fix ? { fix } : {}),
    });
    explained.add([...path, 'format'].join('/'));
  }
  if (typeof node.required === 'boolean' && path.length >= 2 && path[path.length - 2] === 'properties') {
    const name = path[path.length - 1]!;
    const fix = requiredFix(reporter, at, path, name, node.required);
    reporter.report('TM0301', at([...path, 'required']), `${where}: \`required: ${node.required}\` on a property does nothing in JSON Schema`, {
      part: 'key',
      hint: node.required ? `remove it and list "${name}" in the parent's \`required\` instead` : 'remove it: properties are optional unless the parent lists them',
      ...(fix ? { fix } : {}),
    });
    explained.add([...path, 'required'].join('/'));
  }
}

/**
 * `required: true` on property `name` at `path`: remove it, and (when true) list the name in the
 * parent object's `required` (added before its `properties` when it has none).
 */
function requiredFix(reporter: Reporter, at: (path: readonly string[]) => string, path: string[], name: string, required: boolean): Fix | undefined {
  const removal = removeEntryEdit(reporter.file, at([...path, 'required']));
  if (!removal) return undefined;
  if (!required) return { description: `removed "required: false" from property "${name}"`, edits: [removal] };
  const parent = path.slice(0, -2);
  const listed = reporter.file.range(at([...parent, 'required']));
  const addition = listed ? appendToListEdit(reporter.file, at([...parent, 'required']), yamlScalar(name)) : addEntryBeforeEdit(reporter.file, at(parent), 'properties', 'required', `[${yamlScalar(name)}]`);
  if (!addition) return undefined;
  return { description: `moved "required: true" of property "${name}" to the parent's required list`, edits: [removal, addition] };
}

function withoutExplained(schema: JsonSchema, explained: ReadonlySet<string>): JsonSchema {
  for (const path of explained) {
    const segments = path === '' ? [] : path.split('/');
    const key = segments.pop();
    if (key === undefined) continue;
    let node: unknown = schema;
    for (const segment of segments) node = isRecord(node) && Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (isRecord(node)) delete node[key];
  }
  return schema;
}

function withoutDanglingRefs(schema: Record<string, unknown>): JsonSchema {
  const copy = structuredClone(schema);
  walkSchema(copy, ({ node }) => {
    if (typeof node.$ref === 'string' && resolveLocalRef(copy, node.$ref) === undefined) delete node.$ref;
  });
  return copy;
}

/**
 * Keywords ajv accepts that mean something else, or nothing, in JSON Schema 2020-12 as providers
 * read it: OpenAPI's `nullable`, draft-07 tuples (`items` as a list), draft-04 boolean
 * `exclusiveMinimum`/`exclusiveMaximum`.
 */
function draftKeyword(node: Record<string, unknown>, key: string): { message: string; hint: string } | undefined {
  const type = typeof node.type === 'string' ? node.type : 'string';
  if (key === 'nullable') {
    return { message: '`nullable` is OpenAPI, not JSON Schema: OpenAI and Anthropic ignore it', hint: `write the type as a list with "null": type: [${type}, "null"]` };
  }
  if (key === 'items' && Array.isArray(node.items)) {
    return { message: '`items` is a list: that is a draft-07 tuple, which draft 2020-12 writes as `prefixItems`', hint: 'rename it to prefixItems (and add `items: false` if no more items may follow)' };
  }
  if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof node[key] === 'boolean') {
    const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    const value = typeof node[bound] === 'number' ? String(node[bound]) : 'N';
    return { message: `\`${key}: ${String(node[key])}\` is draft-04; in draft 2020-12 ${key} is a number`, hint: node[key] ? `write ${key}: ${value} instead of ${bound}: ${value} with ${key}: true` : `remove ${key}: false` };
  }
  return undefined;
}

/** The known keyword closest to a typo: case differences first (`maxlength`), then edit distance. */
function closestKeyword(key: string): string | undefined {
  const lower = key.toLowerCase();
  for (const known of KNOWN_KEYWORDS) if (known.toLowerCase() === lower) return known;
  if (lower === 'example') return 'examples';
  return closest(key, [...KNOWN_KEYWORDS]);
}

function misspellsDescription(node: Record<string, unknown>): boolean {
  return Object.keys(node).some((key) => !KNOWN_KEYWORDS.has(key) && closestKeyword(key) === 'description');
}

/**
 * Whether another schema applying to the same value describes the property (an `if` that tests
 * `contactMethod` needs no description of its own when the schema around it has one).
 */
function describedInFamily(family: SchemaFamily | undefined, node: object, name: string, root: Record<string, unknown>): boolean {
  if (!family) return false;
  for (const member of family.members) {
    if (member === node || !isRecord((member as Record<string, unknown>).properties)) continue;
    const other = ((member as Record<string, unknown>).properties as Record<string, unknown>)[name];
    if (isRecord(other) && described(other, root)) return true;
  }
  return false;
}

/**
 * Whether a property tells the model what it is: a description or title on it, on what its
 * `$ref` points at, or on its union's branches (zod writes `anyOf: [{type, description}, {type: null}]`).
 */
function described(property: Record<string, unknown>, root: Record<string, unknown>, depth = 0): boolean {
  if (property.description || property.title) return true;
  if (depth > 8) return false;
  if (typeof property.$ref === 'string') {
    const target = resolveLocalRef(root, property.$ref);
    if (isRecord(target) && described(target, root, depth + 1)) return true;
  }
  for (const list of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = Array.isArray(property[list]) ? (property[list] as unknown[]).filter(isRecord) : [];
    if (branches.some((branch) => described(branch, root, depth + 1))) return true;
  }
  return false;
}

/** Reports ajv's strict-mode complaints about `schema` at the nodes they concern. */
export function reportStrictComplaints(
  complaints: readonly string[],
  schema: JsonSchema,
  base: string[],
  reporter: Reporter,
  mapPath: (path: string[]) => string[] = (path) => path,
  explained: ReadonlySet<string> = new Set(),
): void {
  const at = (path: readonly string[]) => pointerOf([...base, ...path]);
  for (const message of complaints) {
    if (/enum must have non-empty array/.test(message)) continue; // TM0306 says it, with a location
    // Unknown keywords and patterns RE2 cannot run are reported by checkParameters's own walk, located.
    if (/unknown keyword/.test(message) || /error parsing regexp/.test(message)) continue;
    const path = strictPath(message, schema, mapPath);
    if (explained.has(path.join('/')) || (explained.has('') && path.length === 0 && /missing type/.test(message))) continue;
    const unknown = /unknown keyword/.test(message);
    const key = path[path.length - 1] ?? '';
    // `{ description: a, b }` makes "b" a key: the usual cause of an unknown keyword with spaces.
    const flowComma = unknown && (/ /.test(key) || schemaAt(schema, path) === null);
    // Where in `parameters` this is: `base` may already point into it (schemas are compiled in pieces).
    const full = [...base.slice(base.indexOf('parameters') + 1), ...path];
    const where = `parameters${full.length ? '.' + dottedPath(full) : ''}`;
    const missingType = /missing type "(\w+)" for keyword "(\w+)"/.exec(message);
    if (missingType) {
      reporter.report('TM0301', at(path), `${where}: "${missingType[2]}" applies to ${missingType[1]} values, but this schema does not say it is one`, {
        hint: `add type: ${missingType[1]} (without it, the keyword checks nothing for other values)`,
      });
      continue;
    }
    const unknownFormat = /unknown format "([^"]+)"/.exec(message);
    // Reported at the value by the keyword walk, with the closest known format.
    if (unknownFormat && explained.has([...path, 'format'].join('/'))) continue;
    if (unknownFormat) {
      reporter.report('TM0301', at(path), `${where}: unknown format "${unknownFormat[1]}"`, {
        part: 'value',
        hint: 'formats: date-time, date, time, duration, email, hostname, ipv4, ipv6, uri, uuid, regex... (or describe the format in the description)',
      });
      continue;
    }
    reporter.report('TM0301', at(path), `${where}: ${message.replace(/^strict mode: /, '').replace(/ at (path )?"#[^"]*"/, '')}`, {
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
export function metaErrors(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword === 'anyOf' && errors.some((o) => o !== e && o.instancePath === e.instancePath)) return false;
    if (seen.has(e.instancePath)) return false;
    seen.add(e.instancePath);
    return true;
  });
}

export function allowed(error: ErrorObject): string {
  const values = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return values ? `: ${values.map((v) => JSON.stringify(v)).join(', ')}` : '';
}
