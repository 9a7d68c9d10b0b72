import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';

/** One change to a tool's parameters; breaking when a call valid before may now fail (or mean something else). */
export interface ParameterChange {
  path: string;
  breaking: boolean;
  change: string;
}

const typesOf = (schema: Record<string, unknown>): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []).sort();

/** Lower bounds going up and upper bounds going down reject values that passed before. */
const TIGHTER_IF_HIGHER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const TIGHTER_IF_LOWER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/**
 * What changed between two versions of a tool's parameters, property by property (nested
 * objects and array items too), each change marked breaking or not from a caller's side: a
 * model (or a recorded call) that sent valid arguments to the old tool. Removing or newly
 * requiring a property, changing a type, dropping an enum value, tightening a bound or a
 * pattern, closing additionalProperties are breaking; adding an optional property, loosening,
 * and description edits are not.
 */
export function parameterChanges(before: unknown, after: unknown, path = '', depth = 0): ParameterChange[] {
  const changes: ParameterChange[] = [];
  if (!isRecord(before) || !isRecord(after) || depth > 32) {
    if (canonicalJson(before) !== canonicalJson(after)) changes.push({ path: path || '(root)', breaking: true, change: 'schema replaced' });
    return changes;
  }
  const at = path || '(root)';
  const ta = typesOf(before);
  const tb = typesOf(after);
  if (ta.join() !== tb.join() && ta.length && tb.length) {
    const widened = ta.every((t) => tb.includes(t) || (t === 'integer' && tb.includes('number')));
    changes.push({ path: at, breaking: !widened, change: `type ${ta.join('|')} → ${tb.join('|')}` });
  } else if (!ta.length && tb.length) changes.push({ path: at, breaking: true, change: `type added: ${tb.join('|')} (any type was accepted)` });
  else if (ta.length && !tb.length) changes.push({ path: at, breaking: false, change: `type removed (was ${ta.join('|')})` });
  // `enum`, `const`, and an anyOf/oneOf of only those, are all a list of allowed values.
  const va = allowedValues(before);
  const vb = allowedValues(after);
  if (va || vb) {
    const ea = va;
    const eb = vb;
    if (ea && eb) {
      const removed = ea.filter((v) => !eb.includes(v));
      const added = eb.filter((v) => !ea.includes(v));
      if (removed.length) changes.push({ path: at, breaking: true, change: `enum values removed: ${removed.join(', ')}` });
      if (added.length) changes.push({ path: at, breaking: false, change: `enum values added: ${added.join(', ')}` });
    } else if (eb) changes.push({ path: at, breaking: true, change: `now limited to ${eb.length === 1 ? `one value (${eb[0]})` : `values ${eb.join(', ')}`}` });
    else changes.push({ path: at, breaking: false, change: 'enum limit removed' });
  }
  if (before.multipleOf !== after.multipleOf) {
    const a = before.multipleOf;
    const b = after.multipleOf;
    if (typeof b !== 'number') changes.push({ path: at, breaking: false, change: `multipleOf removed (was ${String(a)})` });
    else if (typeof a !== 'number') changes.push({ path: at, breaking: true, change: `multipleOf added: ${b}` });
    else changes.push({ path: at, breaking: !Number.isInteger(a / b), change: `multipleOf ${a} → ${b}` });
  }
  if (before.uniqueItems !== after.uniqueItems) {
    const now = after.uniqueItems === true;
    if (now || before.uniqueItems === true) changes.push({ path: at, breaking: now, change: now ? 'uniqueItems added: repeated items are now refused' : 'uniqueItems removed' });
  }
  if (!sameJson(before.default, after.default)) changes.push({ path: at, breaking: false, change: `default ${show(before.default)} → ${show(after.default)}` });
  // Composition: what a subschema allows is not compared; any change is reported as possibly breaking.
  const enumOnly = (schema: Record<string, unknown>, key: string) => allowedValues(schema) !== null && !Array.isArray(schema.enum) && !('const' in schema) && key !== 'allOf' && key !== 'not';
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not'] as const) {
    if (sameJson(before[key], after[key])) continue;
    if ((before[key] === undefined || enumOnly(before, key)) && (after[key] === undefined || enumOnly(after, key))) continue; // compared as values above
    if (after[key] === undefined) changes.push({ path: at, breaking: false, change: `${key} removed` });
    else if (key === 'not' || key === 'allOf') changes.push({ path: at, breaking: true, change: `${key} ${before[key] === undefined ? 'added' : 'changed'}: more values may be refused` });
    else changes.push({ path: at, breaking: true, change: `${key} ${before[key] === undefined ? 'added' : 'changed'} (possibly breaking: toolman does not compare alternatives)` });
  }
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (KNOWN.has(key) || sameJson(before[key], after[key])) continue;
    if (ANNOTATIONS.has(key)) changes.push({ path: at, breaking: false, change: `${key} changed` });
    else changes.push({ path: at, breaking: true, change: `${key} ${before[key] === undefined ? 'added' : after[key] === undefined ? 'removed' : 'changed'} (possibly breaking: toolman does not interpret "${key}")` });
  }
  for (const key of TIGHTER_IF_HIGHER) compareBound(before[key], after[key], key, true, at, changes);
  for (const key of TIGHTER_IF_LOWER) compareBound(before[key], after[key], key, false, at, changes);
  if (before.pattern !== after.pattern) {
    if (after.pattern === undefined) changes.push({ path: at, breaking: false, change: 'pattern removed' });
    else changes.push({ path: at, breaking: true, change: before.pattern === undefined ? `pattern added: ${String(after.pattern)}` : `pattern changed: ${String(before.pattern)} → ${String(after.pattern)}` });
  }
  if (before.format !== after.format) changes.push({ path: at, breaking: after.format !== undefined, change: `format ${String(before.format ?? 'none')} → ${String(after.format ?? 'none')}` });
  if (before.additionalProperties !== false && after.additionalProperties === false) changes.push({ path: at, breaking: true, change: 'additionalProperties closed: unknown keys are now refused' });
  if (before.additionalProperties === false && after.additionalProperties !== false && after.additionalProperties !== undefined) changes.push({ path: at, breaking: false, change: 'additionalProperties opened' });
  if ((before.description ?? '') !== (after.description ?? '') && path) changes.push({ path: at, breaking: false, change: 'description changed' });

  const pa = isRecord(before.properties) ? before.properties : {};
  const pb = isRecord(after.properties) ? after.properties : {};
  const ra = new Set(Array.isArray(before.required) ? (before.required as string[]) : []);
  const rb = new Set(Array.isArray(after.required) ? (after.required as string[]) : []);
  const child = (name: string) => (path ? `${path}.${name}` : name);
  for (const name of Object.keys(pa)) {
    if (!Object.hasOwn(pb, name)) changes.push({ path: child(name), breaking: true, change: ra.has(name) ? 'required property removed' : 'property removed' });
  }
  for (const name of Object.keys(pb)) {
    if (!Object.hasOwn(pa, name)) changes.push({ path: child(name), breaking: rb.has(name), change: rb.has(name) ? 'required property added' : 'optional property added' });
    else changes.push(...parameterChanges(pa[name], pb[name], child(name), depth + 1));
  }
  for (const name of rb) if (!ra.has(name) && Object.hasOwn(pa, name)) changes.push({ path: child(name), breaking: true, change: 'now required' });
  for (const name of ra) if (!rb.has(name) && Object.hasOwn(pb, name)) changes.push({ path: child(name), breaking: false, change: 'now optional' });
  if (isRecord(before.items) || isRecord(after.items)) {
    if (Array.isArray(before.items) || Array.isArray(after.items)) changes.push({ path: at, breaking: true, change: 'items changed between one schema and a tuple (possibly breaking)' });
    else changes.push(...parameterChanges(before.items, after.items, `${path || ''}[]`, depth + 1));
  }
  // Tuples: `prefixItems`, or `items` as a list (draft 7).
  for (const key of ['prefixItems', 'items'] as const) {
    const a = before[key];
    const b = after[key];
    if (!Array.isArray(a) && !Array.isArray(b)) continue;
    if (!Array.isArray(a) || !Array.isArray(b)) {
      if (!isRecord(a) && !isRecord(b)) changes.push({ path: at, breaking: Array.isArray(b), change: `tuple ${key} ${Array.isArray(b) ? 'added' : 'removed'}` });
      continue;
    }
    for (let i = 0; i < Math.min(a.length, b.length); i++) changes.push(...parameterChanges(a[i], b[i], `${path || ''}[${i}]`, depth + 1));
    if (a.length !== b.length) changes.push({ path: at, breaking: true, change: `tuple ${key} ${a.length} → ${b.length} positions (possibly breaking)` });
  }
  if (isRecord(before.additionalProperties) && isRecord(after.additionalProperties)) changes.push(...parameterChanges(before.additionalProperties, after.additionalProperties, path ? `${path}.*` : '*', depth + 1));
  return changes;
}

/** Keywords compared above; any other change is reported as possibly breaking. */
const KNOWN = new Set([
  'type', 'enum', 'const', 'multipleOf', 'uniqueItems', 'default', 'anyOf', 'oneOf', 'allOf', 'not', 'pattern', 'format', 'additionalProperties', 'description',
  'properties', 'required', 'items', 'prefixItems', ...TIGHTER_IF_HIGHER, ...TIGHTER_IF_LOWER,
]);
/** Keywords that do not change which values are valid. */
const ANNOTATIONS = new Set(['title', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly', 'x-order']);

const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const show = (v: unknown) => (v === undefined ? 'none' : canonicalJson(v));

/** The values a schema is limited to (canonical JSON), from enum, const, or an anyOf/oneOf of only those; null when not limited. */
function allowedValues(schema: Record<string, unknown>): string[] | null {
  if (Array.isArray(schema.enum)) return schema.enum.map(canonicalJson);
  if ('const' in schema) return [canonicalJson(schema.const)];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || !branches.length) continue;
    const values: string[] = [];
    for (const branch of branches) {
      if (!isRecord(branch)) return null;
      const own = Object.keys(branch).filter((k) => !ANNOTATIONS.has(k) && k !== 'description' && k !== 'type');
      if (own.length !== 1 || (own[0] !== 'enum' && own[0] !== 'const')) return null;
      values.push(...allowedValues(branch)!);
    }
    return values;
  }
  return null;
}

function compareBound(a: unknown, b: unknown, key: string, tighterIfHigher: boolean, at: string, changes: ParameterChange[]): void {
  if (a === b) return;
  if (typeof b !== 'number') {
    if (typeof a === 'number') changes.push({ path: at, breaking: false, change: `${key} removed (was ${a})` });
    return;
  }
  if (typeof a !== 'number') {
    changes.push({ path: at, breaking: true, change: `${key} added: ${b}` });
    return;
  }
  const tighter = tighterIfHigher ? b > a : b < a;
  changes.push({ path: at, breaking: tighter, change: `${key} ${a} → ${b}` });
}
