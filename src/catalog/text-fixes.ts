import type { Fix, TextEdit } from './diagnostic.js';
import type { SourceFile } from './source-file.js';

/**
 * Fixes for findings whose hint names the change (`validate --fix`): edits of the file's text at
 * source offsets, so comments, quoting and layout stay as the author wrote them; the YAML is never
 * dumped again. Each builder returns undefined when the text is not in a shape it can edit safely.
 */

/** YAML words that a plain scalar would turn into something else. */
const RESERVED = /^(?:true|false|yes|no|on|off|null|~|y|n)$/i;

/** A scalar written as plain text when that reads back as the same string, else double-quoted. */
export function yamlScalar(value: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.\-/]*$/.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value);
}

/** Renames the key of the entry at `pointer`. */
export function renameKey(file: SourceFile, pointer: string, to: string, description: string): Fix | undefined {
  const key = file.range(pointer, 'key');
  if (!key || key.kind !== 'scalar') return undefined;
  return { description, edits: [{ start: key.start, end: key.end, text: yamlScalar(to) }] };
}

/** Replaces the scalar value at `pointer` with `text` (already YAML). */
export function replaceValue(file: SourceFile, pointer: string, text: string, description: string): Fix | undefined {
  const value = file.range(pointer);
  if (!value || value.kind !== 'scalar' || value.end <= value.start) return undefined;
  return { description, edits: [{ start: value.start, end: value.end, text }] };
}

/** Removes the entry at `pointer` from its mapping: its whole line in block style, with its comma in flow style. */
export function removeEntryEdit(file: SourceFile, pointer: string): TextEdit | undefined {
  const key = file.range(pointer, 'key');
  const value = file.range(pointer);
  if (!key || !value) return undefined;
  const text = file.text;
  const lineStart = text.lastIndexOf('\n', key.start - 1) + 1;
  const lineEnd = text.indexOf('\n', value.end);
  const before = text.slice(lineStart, key.start);
  const after = text.slice(value.end, lineEnd < 0 ? text.length : lineEnd);
  // Block style: the entry is alone on its line(s) (a comment after it goes with it).
  if (/^[ \t]*$/.test(before) && /^[ \t]*(?:#.*)?$/.test(after)) return { start: lineStart, end: lineEnd < 0 ? text.length : lineEnd + 1, text: '' };
  // Flow style: take the comma after it, or else the one before it.
  const next = /^\s*,\s*/.exec(text.slice(value.end));
  if (next) return { start: key.start, end: value.end + next[0].length, text: '' };
  const previous = /,\s*$/.exec(text.slice(0, key.start));
  if (previous) return { start: previous.index, end: value.end, text: '' };
  return undefined;
}

/** Adds `item` to the end of the list at `pointer`: before `]` in flow style, as a new `- item` line in block style. */
export function appendToListEdit(file: SourceFile, pointer: string, item: string): TextEdit | undefined {
  const list = file.range(pointer);
  if (!list || list.kind !== 'seq') return undefined;
  const text = file.text;
  if (list.flow) {
    const close = list.end - 1;
    const empty = /^\[\s*$/.test(text.slice(list.start, close));
    return { start: close, end: close, text: empty ? item : `, ${item}` };
  }
  // Block style: a new item under the last one, indented as it is.
  const lastLine = text.lastIndexOf('\n', list.end - 1) + 1;
  const indent = /^[ \t]*-/.exec(text.slice(lastLine))?.[0];
  if (!indent) return undefined;
  const lineEnd = text.indexOf('\n', list.end);
  const at = lineEnd < 0 ? text.length : lineEnd + 1;
  return { start: at, end: at, text: `${lineEnd < 0 ? '\n' : ''}${indent} ${item}\n` };
}

/** Adds `key: value` to the mapping at `mapPointer`, just before its entry `before`. */
export function addEntryBeforeEdit(file: SourceFile, mapPointer: string, before: string, key: string, value: string): TextEdit | undefined {
  const map = file.range(mapPointer);
  const anchor = file.range(`${mapPointer}/${before.replace(/~/g, '~0').replace(/\//g, '~1')}`, 'key');
  if (!map || map.kind !== 'map' || !anchor) return undefined;
  const text = file.text;
  if (map.flow) return { start: anchor.start, end: anchor.start, text: `${key}: ${value}, ` };
  const lineStart = text.lastIndexOf('\n', anchor.start - 1) + 1;
  const indent = text.slice(lineStart, anchor.start);
  if (!/^[ \t]*$/.test(indent)) return undefined;
  return { start: lineStart, end: lineStart, text: `${indent}${key}: ${value}\n` };
}

/**
 * Applies fixes to `text`, each whole or not at all: a fix whose edits overlap an earlier fix's
 * (two fixes of one list, say) waits for the next pass. Returns the new text and the fixes applied.
 */
export function applyFixes(text: string, fixes: readonly Fix[]): { text: string; applied: Fix[] } {
  const taken: TextEdit[] = [];
  const overlaps = (e: TextEdit) => taken.some((t) => e.start < Math.max(t.end, t.start + 1) && t.start < Math.max(e.end, e.start + 1));
  const applied: Fix[] = [];
  for (const fix of fixes) {
    if (fix.edits.length === 0 || fix.edits.some((e) => e.start > e.end || e.end > text.length || overlaps(e))) continue;
    taken.push(...fix.edits);
    applied.push(fix);
  }
  let out = text;
  for (const edit of [...taken].sort((a, b) => b.start - a.start || b.end - a.end)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return { text: out, applied };
}
