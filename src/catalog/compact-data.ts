/**
 * Parsed YAML data made smaller in place, for catalogs held in memory for a whole run (50,000
 * tools are about 2 million values):
 * - the parser builds each sequence by pushing, so V8 gives every array spare room (a one-item
 *   list took 152 bytes): arrays are copied at their exact length;
 * - it copies each short scalar anew, so `type: string` cost a string per property: equal short
 *   strings become one string per file;
 * - a longer scalar is a view into the file's whole text (V8 slices substrings of 13 characters or
 *   more), so any one value kept the text alive, held as UTF-16 once a single character needs it
 *   (2 bytes a character, twice the file): each becomes a copy of its own, one byte a character
 *   where it can be, and the text is let go (SourceFile keeps it as UTF-8 bytes).
 *
 * Only for data without aliases: an alias is the same node in two places, which a copy would split.
 */
export function compactData(value: unknown): unknown {
  return compactValue(value, new Map());
}

/**
 * Below this length V8 copies a substring (its `SlicedString::kMinLength`, also the shortest
 * concatenation it keeps as a pair of parts); at or above it, a string may point into another.
 */
const SHORT_STRING = 13;

let scratch = Buffer.allocUnsafe(1 << 16);
/** ES2024's String.prototype.isWellFormed (Node 20 has it; the project's `lib` is ES2023). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/**
 * A string equal to `text` that points into no other string: encoded to UTF-8 and decoded again,
 * which V8 stores one byte a character when every character is ASCII (about 20 ns a value). A
 * string with a lone surrogate (a YAML escape can write one) would not come back the same: it is
 * left as it is.
 */
export function ownCopy(text: string): string {
  if (text.length < SHORT_STRING || !(text as WellFormedCheck).isWellFormed()) return text;
  // At most 3 UTF-8 bytes per UTF-16 unit.
  if (text.length * 3 > scratch.length) {
    if (text.length * 3 > 1 << 24) return Buffer.from(text, 'utf8').toString('utf8');
    scratch = Buffer.allocUnsafe(text.length * 3);
  }
  const bytes = scratch.write(text, 0, 'utf8');
  return scratch.toString('utf8', 0, bytes);
}

function compactValue(value: unknown, shared: Map<string, string>): unknown {
  if (typeof value === 'string') {
    if (value.length >= SHORT_STRING) return ownCopy(value);
    const known = shared.get(value);
    if (known !== undefined) return known;
    shared.set(value, value);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // Sized up front: exactly as many slots as items.
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = compactValue(value[i], shared);
    return copy;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const before = record[key];
    // Objects are compacted in place; strings and arrays are replaced (a copy of a string is `===` to it, so always).
    if (before === null || (typeof before !== 'string' && (typeof before !== 'object' || !Array.isArray(before)))) {
      if (before !== null && typeof before === 'object') compactValue(before, shared);
      continue;
    }
    const after = compactValue(before, shared);
    // The parser defines a `__proto__` key as an own property; assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(record, key, { value: after, writable: true, enumerable: true, configurable: true });
    else record[key] = after;
  }
  return record;
}
