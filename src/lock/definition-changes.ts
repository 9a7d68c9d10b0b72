import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * One change to a pinned field, in the words of `toolman diff` (`testing/parameter-changes.ts`):
 * the field (`description`, `inputSchema`, `annotations.readOnlyHint`), where inside a schema
 * (`path`), what changed, and whether a caller that relied on the old definition may now break.
 */
export interface FieldChange {
  field: string;
  path?: string;
  change: string;
  breaking?: boolean;
}

/**
 * A schema differ in `toolman diff`'s vocabulary: property by property, each change marked
 * breaking or not. `parameterChanges` (testing/) is the one the CLI passes in; the core cannot
 * import a driver's code, and the manager's own refusals need only which fields changed.
 */
export type SchemaChanges = (before: unknown, after: unknown) => { path: string; breaking: boolean; change: string }[];

/** How much of a changed text a message quotes, each side. */
const EXCERPT = 160;

/**
 * What changed between a pinned definition and the server's current one, field by field. Text is
 * untrusted (it came from a server): excerpts lose control characters and are quoted.
 */
export function definitionChanges(before: ToolDefinition, after: ToolDefinition, schemaChanges?: SchemaChanges): FieldChange[] {
  const changes: FieldChange[] = [];
  if (!same(before.title, after.title)) changes.push({ field: 'title', change: `${show(before.title)} → ${show(after.title)}` });
  if (!same(before.description, after.description)) {
    changes.push({ field: 'description', change: typeof before.description === 'string' && typeof after.description === 'string' ? textChange(before.description, after.description) : `${show(before.description)} → ${show(after.description)}` });
  }
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    if (same(before[field], after[field])) continue;
    if (before[field] === undefined || after[field] === undefined) {
      changes.push({ field, change: before[field] === undefined ? 'added' : 'removed', ...(field === 'inputSchema' ? { breaking: true } : {}) });
      continue;
    }
    const found = schemaChanges?.(before[field], after[field]) ?? [];
    // Without a differ (or when it finds nothing it can name: a key order, a $comment), one line.
    if (found.length === 0) changes.push({ field, change: 'changed' });
    // An output schema's "breaking" is the other way round (it is what the tool promises): not marked.
    for (const c of found) changes.push({ field, path: c.path, change: c.change, ...(field === 'inputSchema' ? { breaking: c.breaking } : {}) });
  }
  if (!same(before.annotations, after.annotations)) {
    const a = isRecord(before.annotations) ? before.annotations : {};
    const b = isRecord(after.annotations) ? after.annotations : {};
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (same(a[key], b[key])) continue;
      // A tool that now may write, or may now destroy, is the change a user most needs to see.
      const breaking = (key === 'readOnlyHint' && a[key] === true) || (key === 'destructiveHint' && b[key] !== false && a[key] === false);
      changes.push({ field: `annotations.${plainText(key)}`, change: `${show(a[key])} → ${show(b[key])}`, ...(breaking ? { breaking } : {}) });
    }
    if (!isRecord(before.annotations) !== !isRecord(after.annotations) && changes.every((c) => !c.field.startsWith('annotations.'))) changes.push({ field: 'annotations', change: `${show(before.annotations)} → ${show(after.annotations)}` });
  }
  return changes;
}

/** A field change as one line: `inputSchema path: type string → integer (breaking)`. */
export function describeChange(change: FieldChange): string {
  return `${change.field}${change.path && change.path !== '(root)' ? ` ${change.path}` : ''}: ${change.change}${change.breaking ? ' (breaking)' : ''}`;
}

/**
 * Two texts by where they differ: the common start and end are dropped (whole words kept), the
 * rest quoted with a few words before it, so a sentence slipped into a long description is what
 * the message shows.
 */
export function textChange(before: string, after: string): string {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  // A cut inside a word goes out to the whole word: "no" → "every" reads worse than "nothing" → "everything".
  const word = (c: string | undefined) => c !== undefined && /\S/.test(c);
  if (word(before[start - 1]) && (word(before[start]) || word(after[start]))) while (start > 0 && word(before[start - 1])) start--;
  if (word(before[endBefore]) && (word(before[endBefore - 1]) || word(after[endAfter - 1]))) {
    while (endBefore < before.length && word(before[endBefore])) {
      endBefore++;
      endAfter++;
    }
  }
  const removed = before.slice(start, endBefore);
  const added = after.slice(start, endAfter);
  let from = Math.max(0, start - 30);
  while (from > 0 && /\S/.test(before[from - 1]!)) from++;
  const context = `${from > 0 ? '…' : ''}${before.slice(from, start)}`;
  const parts = [removed ? `removed ${quote(removed)}` : '', added ? `added ${quote(added)}` : ''].filter(Boolean).join(', ');
  return `${parts}${context ? ` after ${quote(context)}` : ' at the start'}`;
}

function quote(text: string): string {
  const plain = plainText(text);
  return JSON.stringify(plain.length > EXCERPT ? `${plain.slice(0, EXCERPT)}… (${plain.length} characters)` : plain);
}

function show(value: unknown): string {
  if (value === undefined) return 'none';
  const text = plainText(typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
