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
  }
  if (Array.isArray(before.enum) || Array.isArray(after.enum)) {
    const ea = Array.isArray(before.enum) ? before.enum.map(canonicalJson) : null;
    const eb = Array.isArray(after.enum) ? after.enum.map(canonicalJson) : null;
    if (ea && eb) {
      const removed = ea.filter((v) => !eb.includes(v));
      const added = eb.filter((v) => !ea.includes(v));
      if (removed.length) changes.push({ path: at, breaking: true, change: `enum values removed: ${removed.join(', ')}` });
      if (added.length) changes.push({ path: at, breaking: false, change: `enum values added: ${added.join(', ')}` });
    } else if (eb) changes.push({ path: at, breaking: true, change: 'now limited to an enum' });
    else changes.push({ path: at, breaking: false, change: 'enum limit removed' });
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
  if (isRecord(before.items) || isRecord(after.items)) changes.push(...parameterChanges(before.items, after.items, `${path || ''}[]`, depth + 1));
  return changes;
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
