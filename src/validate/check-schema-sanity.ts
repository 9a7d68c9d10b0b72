import { pointerOf } from '../catalog/diagnostic.js';
import { walkSchema } from '../catalog/json-schema.js';
import type { Reporter } from '../catalog/reporter.js';
import { dottedPath } from '../catalog/reporter.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';

/** Bounds that must not cross: each pair's lower one greater than its upper one allows no value. */
const BOUNDS: { low: string; high: string; what: string }[] = [
  { low: 'minimum', high: 'maximum', what: 'number' },
  { low: 'exclusiveMinimum', high: 'exclusiveMaximum', what: 'number' },
  { low: 'minimum', high: 'exclusiveMaximum', what: 'number' },
  { low: 'exclusiveMinimum', high: 'maximum', what: 'number' },
  { low: 'minLength', high: 'maxLength', what: 'string' },
  { low: 'minItems', high: 'maxItems', what: 'list' },
  { low: 'minProperties', high: 'maxProperties', what: 'object' },
  { low: 'minContains', high: 'maxContains', what: 'list' },
];

/**
 * Contradictions inside a parameter schema that ajv and the meta-schema accept: a range no value
 * fits (TM0311: `minimum: 10, maximum: 1`, and the length, items and properties twins), and a
 * `default` the schema itself refuses (TM0310: not one of its `enum`, another `type`, outside its
 * bounds). Both pass every provider, and then every call fails validation, or a model that
 * leaves the argument out gets a value the tool was told is invalid.
 */
export function checkSchemaSanity(parameters: unknown, base: string[], reporter: Reporter): void {
  if (!isRecord(parameters)) return;
  const at = (path: readonly string[]) => pointerOf([...base, ...path]);
  walkSchema(parameters, ({ node, path }) => checkSchemaNode(node, path, at, reporter));
}

/** The same for one node of a schema being walked (checkParameters' walk calls it, saving a second walk). */
export function checkSchemaNode(node: Record<string, unknown>, path: readonly string[], at: (path: readonly string[]) => string, reporter: Reporter): void {
  const where = () => `parameters${path.length ? '.' + dottedPath(path) : ''}`;
  for (const { low, high, what } of BOUNDS) {
    const a = node[low];
    if (typeof a !== 'number') continue;
    const b = node[high];
    if (typeof b !== 'number') continue;
    const exclusive = low.startsWith('exclusive') || high.startsWith('exclusive');
    if (a < b || (a === b && !exclusive)) continue;
    reporter.report('TM0311', at([...path, low]), `${where()}: ${low} ${a} is ${a === b ? 'equal to' : 'greater than'} ${high} ${b}, so no ${what} is valid and every call fails`, {
      part: 'key',
      hint: `swap them, or correct the one that is wrong (${low} ≤ ${high}${exclusive ? ', and strictly below with exclusive bounds' : ''})`,
    });
  }
  if (node.default !== undefined) {
    const problem = defaultProblem(node.default, node);
    if (problem) {
      reporter.report('TM0310', at([...path, 'default']), `${where()}: default ${shown(node.default)} ${problem}`, {
        hint: 'a model that leaves the argument out expects the default to be a valid value: make it one, or remove it',
      });
    }
  }
}

/** Why `value` is not a valid value of `schema` (only the schema's own simple keywords), or undefined. */
function defaultProblem(value: unknown, schema: Record<string, unknown>): string | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && !schema.enum.some((option) => canonicalJson(option) === canonicalJson(value))) {
    return `is not one of its enum values (${schema.enum.slice(0, 6).map(shown).join(', ')}${schema.enum.length > 6 ? ', …' : ''})`;
  }
  if ('const' in schema && canonicalJson(schema.const) !== canonicalJson(value)) return `is not its const ${shown(schema.const)}`;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length > 0 && !types.some((type) => hasType(value, type))) return `is ${typeName(value)}, but the type is ${types.join(' or ')}`;
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `is below its minimum ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `is above its maximum ${schema.maximum}`;
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return `is not above its exclusiveMinimum ${schema.exclusiveMinimum}`;
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return `is not below its exclusiveMaximum ${schema.exclusiveMaximum}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) return `is shorter than its minLength ${schema.minLength}`;
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `is longer than its maxLength ${schema.maxLength}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `has fewer items than its minItems ${schema.minItems}`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `has more items than its maxItems ${schema.maxItems}`;
  }
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true; // an unknown type is TM0301's finding
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
