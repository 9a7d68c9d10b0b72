import { constructFromEvents, CORE_SCHEMA, EVENT_ID, parseEvents, type Event } from 'js-yaml';
import { isRecord } from '../shared/is-record.js';
import type { Diagnostic } from './diagnostic.js';
import { segmentsOf } from './diagnostic.js';
import { NodeIndex, scalarStart, type NodeKind } from './node-index.js';
import { compactData } from './compact-data.js';
import { survivesJson, type ParseCache } from './parse-cache.js';

export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/**
 * Nodes that aliases may add to a document, counted as if each alias were replaced by a copy of
 * its anchor, before it counts as an alias bomb ("billion laughs"). Aliases are shared references
 * after loading, but every walk over the data (checks, JSON output) would expand them. Nodes
 * written out in the file do not count: their number is bounded by the file size limit.
 */
export const MAX_EXPANDED_NODES = 1_000_000;
/** Deepest nesting accepted; a deeper document is an attack or a mistake. */
export const MAX_DEPTH = 256;

export const NOT_A_CATALOG_HINT = 'a catalog is a YAML mapping that starts with `toolman: 1`; check that the path names a catalog file';

/** Hints for js-yaml's terser messages, by what usually causes them. */
const YAML_HINTS: [RegExp, string][] = [
  [/tab characters/, 'indent with spaces; YAML does not allow tabs there'],
  [/indentation/, 'check the indentation here, and that every quote and bracket opened above is closed'],
  [/missed comma between flow collection entries/, 'inside { } and [ ], quote text that contains ": " or commas'],
  [/unknown (scalar|mapping|sequence) tag/, 'toolman catalogs use plain YAML; remove the !tag'],
  [/end of the stream or a document separator is expected/, 'a line is indented less or more than its siblings, or a value continues after a closed quote'],
];

export interface ParseOptions {
  /**
   * The text should be a toolman catalog. An include or `--catalog` may name any file, so the
   * content of one that does not look like a catalog is never quoted: no code frames, and YAML
   * errors in words of toolman's, not the parser's (which may carry a snippet of the text).
   */
  catalog?: boolean;
  /** Data parsed earlier from the same text (see parse-cache.ts). */
  cache?: ParseCache;
}

/** A catalog mapping has `toolman:` or a `tools:` list; anything else is some other file. */
export function looksLikeCatalog(data: unknown): boolean {
  return isRecord(data) && (Object.hasOwn(data, 'toolman') || Array.isArray(data.tools));
}

/** For text that is not valid YAML: a line that starts with a `toolman:` or `tools:` key (also as JSON). */
const CATALOG_KEY_LINE = /^[ \t{]*["']?(?:toolman|tools)["']?[ \t]*:/m;

/**
 * One parsed YAML file that knows where every node came from, so any check can point at
 * `file:line:column` through a JSON Pointer.
 *
 * Parsing uses js-yaml's event stream: one pass gives both the data and the source offsets of
 * every node, at about 30 MB/s (the `yaml` package's CST parser reached about 3 MB/s here, too
 * slow for 10,000-tool catalogs; see docs/architecture.md).
 */
export class SourceFile {
  /** Where each node of the document is: built from the parser's events, on first use. */
  private index: NodeIndex | null | undefined;
  /** Where each line starts, in UTF-16 units (offsets into `text`). */
  private lineStarts: Int32Array | undefined;
  /** Where each line starts in `bytes`, for quoting one line without decoding the file. */
  private lineByteStarts: Int32Array | undefined;
  /**
   * The text as UTF-8, out of V8's heap. The text as a string takes 2 bytes a character once one
   * character needs it (any em dash), and V8 lets its heap grow to a few times what it holds
   * before collecting: at 50,000 tools the catalog's strings were 93 MB of a 330 MB live heap.
   * Every value parsed from it is a string of its own (compact-data.ts), so nothing keeps the
   * string alive once parsed; `text` decodes it again for the few that need it whole.
   */
  private readonly bytes: Buffer;

  private constructor(
    readonly path: string,
    readonly absolutePath: string,
    text: string,
    readonly data: unknown,
    /** The parser's events until the position index is built; undefined for data from the cache (parsed again when positions are needed). */
    private events: Event[] | undefined,
    /** Whether findings may quote this file's lines (code frames); false for files that are not catalogs. */
    readonly quotable: boolean,
  ) {
    // The UTF-8 of a decoded file's text decodes back to exactly that text: it holds no lone surrogate.
    this.bytes = Buffer.from(text, 'utf8');
    lastDecoded = { file: this, text };
  }

  /**
   * The whole text, decoded from its bytes (the last one decoded is kept: callers go file by file).
   * For checks over every file, `includes` and `hashInto` read the bytes instead.
   */
  get text(): string {
    if (lastDecoded?.file === this) return lastDecoded.text;
    const text = this.bytes.toString('utf8');
    lastDecoded = { file: this, text };
    return text;
  }

  /** Whether the text contains `needle`, searched in its UTF-8 bytes (the same answer: UTF-8 is self-synchronising). */
  includes(needle: string): boolean {
    return this.bytes.includes(needle, 0, 'utf8');
  }

  /** The first characters of the text (at most `chars`), without decoding the rest. */
  head(chars: number): string {
    // At most 4 bytes a character: these bytes hold at least `chars` whole characters.
    return this.bytes.toString('utf8', 0, Math.min(this.bytes.length, chars * 4)).slice(0, chars);
  }

  /** Adds the text to `hash` as its UTF-8 bytes (what `hash.update(text)` would add), and returns its length in bytes. */
  hashInto(hash: { update(data: Uint8Array): unknown }): number {
    hash.update(this.bytes);
    return this.bytes.length;
  }

  /** Parses `text`; YAML problems come back as diagnostics, never as throws. */
  static parse(path: string, absolutePath: string, text: string, options: ParseOptions = {}): { file: SourceFile; diagnostics: Diagnostic[] } {
    const cached = options.cache?.get(text);
    // Only clean catalog files are cached: no finding to report, so no positions needed yet.
    if (cached !== undefined) return { file: new SourceFile(path, absolutePath, text, cached, undefined, true), diagnostics: [] };
    const diagnostics: Diagnostic[] = [];
    let events: Event[] = [];
    let data: unknown = null;
    const report = (code: Diagnostic['code'], message: string, line: number, column: number, hint?: string) => {
      diagnostics.push({ code, severity: 'error', message, file: path, line, column, pointer: '', ...(hint ? { hint } : {}) });
    };
    try {
      events = parseEvents(text, { filename: path, maxDepth: MAX_DEPTH });
      const documents = events.filter((e) => e.type === EVENT_ID.DOCUMENT).length;
      const expansion = expandedSize(text, events);
      if (documents > 1) {
        const second = secondDocumentStart(events);
        const pos = positionAt(lineStartsOf(text), second);
        report('TM0001', `the file holds ${documents} YAML documents (separated by ---); a catalog is one document`, pos.line, pos.column, 'split them into files and join them with include');
      } else if (expansion.size > MAX_EXPANDED_NODES) {
        const pos = positionAt(lineStartsOf(text), expansion.firstAlias);
        report('TM0003', `aliases expand this document to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} nodes`, pos.line, pos.column, 'write the repeated parts out, or use fewer nested aliases');
      } else {
        // json: true lets later duplicate keys win instead of throwing at the first; the index
        // below reports every duplicate at its own key.
        data = constructFromEvents(events, { source: text, schema: CORE_SCHEMA, json: true })[0] ?? null;
        if (!events.some((e) => e.type === EVENT_ID.ALIAS)) data = compactData(data);
      }
    } catch (error) {
      const mark = (error as { mark?: { line: number; column: number } }).mark;
      // js-yaml's `message` ends with a snippet of the text; its `reason` is the bare cause.
      const reason = (error as { reason?: string }).reason ?? 'the YAML parser failed here';
      const line = (mark?.line ?? 0) + 1;
      if (options.catalog && !CATALOG_KEY_LINE.test(text)) {
        report('TM0001', `not valid YAML (line ${line}), and the file does not look like a toolman catalog`, line, (mark?.column ?? 0) + 1, NOT_A_CATALOG_HINT);
      } else {
        report('TM0001', reason, line, (mark?.column ?? 0) + 1, YAML_HINTS.find(([pattern]) => pattern.test(reason))?.[1]);
      }
      events = [];
    }
    const quotable = !options.catalog || (data !== null ? looksLikeCatalog(data) : CATALOG_KEY_LINE.test(text));
    const aliases = events.some((e) => e.type === EVENT_ID.ALIAS);
    const file = new SourceFile(path, absolutePath, text, data, events, quotable);
    // Positions are asked for while the text is at hand; later they would decode it again.
    file.lineStarts = lineStartsOf(text);
    // Duplicate keys of a file that is not a catalog would name its keys; the loader reports it as not a catalog instead.
    if (data !== null && quotable) {
      for (const duplicate of file.duplicateKeys()) {
        const pos = file.position(duplicate.offset);
        diagnostics.push({
          code: 'TM0002',
          severity: 'error',
          message: `duplicate key "${duplicate.key}": YAML keeps only the last one`,
          file: path,
          line: pos.line,
          column: pos.column,
          pointer: duplicate.pointer,
          hint: `the key first appears on line ${file.position(duplicate.firstOffset).line}`,
        });
      }
    }
    if (options.cache && options.catalog && diagnostics.length === 0 && quotable && looksLikeCatalog(data) && !aliases && survivesJson(data)) options.cache.set(text, data);
    return { file, diagnostics };
  }

  /**
   * Where the node at `pointer` is. With `part: 'key'` a mapping entry points at its key (for
   * "unknown key" findings). A pointer that runs past the document points at the deepest node
   * that exists (a missing key is reported on the mapping that lacks it).
   */
  locate(pointer: string, part: 'value' | 'key' = 'value'): Span {
    const index = this.nodeIndex();
    let node = index?.root;
    let key: number | undefined;
    for (const segment of segmentsOf(pointer)) {
      if (!index || node === undefined) break;
      const entry = index.child(node, segment);
      if (!entry) break;
      key = entry.key;
      node = entry.value;
    }
    const target = part === 'key' && key !== undefined ? key : node;
    const start = index && target !== undefined ? index.start(target) : 0;
    const end = index && target !== undefined && index.kind(target) === 'scalar' ? Math.max(index.end(target), start) : start + 1;
    const from = this.position(start);
    const to = this.position(end);
    return { line: from.line, column: from.column, endLine: to.line, endColumn: to.column };
  }

  /**
   * Source offsets of the node at `pointer` (its key with `part: 'key'`), only when the pointer
   * names a node that exists: a scalar's [start, end) (quotes included), a collection's start and
   * end (a flow collection's closing bracket included). For fixes that edit the text in place.
   */
  range(pointer: string, part: 'value' | 'key' = 'value'): { start: number; end: number; kind: NodeKind; flow: boolean } | undefined {
    const index = this.nodeIndex();
    if (!index) return undefined;
    let node = index.root;
    let key: number | undefined;
    for (const segment of segmentsOf(pointer)) {
      const entry = index.child(node, segment);
      if (!entry) return undefined;
      key = entry.key;
      node = entry.value;
    }
    const target = part === 'key' ? key : node;
    if (target === undefined) return undefined;
    const start = index.start(target);
    const kind = index.kind(target);
    const text = this.text;
    return { start, end: endOf(text, index, target), kind, flow: kind !== 'scalar' && (text[start] === '[' || text[start] === '{') };
  }

  /** The text of one 1-based line, for code frames; empty for a file that is not quotable. */
  lineText(line: number): string {
    if (!this.quotable) return '';
    this.lineByteStarts ??= byteLineStartsOf(this.bytes);
    const start = this.lineByteStarts[line - 1];
    if (start === undefined || line < 1) return '';
    const next = this.lineByteStarts[line];
    // Lines split at a newline byte, which is never part of a longer UTF-8 sequence.
    return this.bytes.toString('utf8', start, next === undefined ? undefined : next).replace(/\r?\n$/, '');
  }

  /** 1-based line and column of a character offset. */
  position(offset: number): { line: number; column: number } {
    return positionAt(this.starts(), offset);
  }

  private starts(): Int32Array {
    this.lineStarts ??= lineStartsOf(this.text);
    return this.lineStarts;
  }

  private nodeIndex(): NodeIndex | null {
    if (this.index === undefined) {
      this.index = NodeIndex.build(this.text, this.parsedEvents()).index;
      this.events = [];
    }
    return this.index;
  }

  /** The events, parsing the text again for data that came from the cache (it parsed cleanly before). */
  private parsedEvents(): Event[] {
    if (this.events === undefined) {
      try {
        this.events = parseEvents(this.text, { filename: this.path, maxDepth: MAX_DEPTH });
      } catch {
        this.events = [];
      }
    }
    return this.events;
  }

  private duplicateKeys(): { key: string; offset: number; firstOffset: number; pointer: string }[] {
    const built = NodeIndex.build(this.text, this.parsedEvents());
    this.index = built.index;
    this.events = []; // the index has all it needs; events are the largest structure by far
    return built.duplicates;
  }
}

/** The text `SourceFile.text` decoded last, and its file. */
let lastDecoded: { file: SourceFile; text: string } | undefined;

/** Where a node ends: a scalar's end, a flow collection's closing bracket, a block collection's last value. */
function endOf(text: string, index: NodeIndex, node: number): number {
  const start = index.start(node);
  if (index.kind(node) === 'scalar') return index.end(node);
  if (text[start] === '[' || text[start] === '{') return matchingBracket(text, start) + 1;
  const last = index.last(node);
  return last === undefined ? start : endOf(text, index, last);
}

/** The offset of the bracket that closes the one at `open`, skipping quoted text; the text's end if none. */
function matchingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      // YAML quotes: "" escapes with backslashes, '' with a doubled quote.
      for (i++; i < text.length; i++) {
        if (c === '"' && text[i] === '\\') i++;
        else if (text[i] === c && !(c === "'" && text[i + 1] === "'")) break;
        else if (c === "'" && text[i] === "'") i++;
      }
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return text.length - 1;
}

/**
 * How many nodes following every alias adds to the document: each alias counts the full size of
 * its anchor's node, itself expanded. Stops counting once past the limit.
 */
function expandedSize(text: string, events: Event[]): { size: number; firstAlias: number } {
  const anchorSizes = new Map<string, number>();
  // Expanded size of each open collection, for the anchors among them.
  const open: { size: number; anchor: string | undefined }[] = [];
  const anchorOf = (e: { anchorStart: number; anchorEnd: number }) => (e.anchorStart >= 0 ? text.slice(e.anchorStart, e.anchorEnd) : undefined);
  const add = (n: number) => {
    const top = open[open.length - 1];
    if (top) top.size += n;
  };
  let added = 0;
  let firstAlias = 0;
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.SCALAR: {
        add(1);
        const anchor = anchorOf(event);
        if (anchor !== undefined) anchorSizes.set(anchor, 1);
        break;
      }
      case EVENT_ID.ALIAS: {
        if (added === 0) firstAlias = Math.max(0, event.anchorStart - 1);
        const size = anchorSizes.get(text.slice(event.anchorStart, event.anchorEnd)) ?? 1;
        added += size;
        add(size);
        if (added > MAX_EXPANDED_NODES) return { size: added, firstAlias };
        break;
      }
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING:
        open.push({ size: 1, anchor: anchorOf(event) });
        break;
      case EVENT_ID.POP: {
        const done = open.pop();
        if (!done) break; // the end of a document
        if (done.anchor !== undefined) anchorSizes.set(done.anchor, done.size);
        add(done.size);
        break;
      }
    }
  }
  return { size: added, firstAlias };
}

/** Offsets in `bytes` at which each line starts. */
function byteLineStartsOf(bytes: Buffer): Int32Array {
  let lines = 1;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) lines++;
  const starts = new Int32Array(lines);
  let line = 1;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) starts[line++] = i + 1;
  return starts;
}

/**
 * Offsets at which each line starts, in a typed array of their exact number: 4 bytes a line (a
 * pushed array of numbers took 8 and kept spare room; a 50,000-tool catalog has 1.2 million lines).
 */
function lineStartsOf(text: string): Int32Array {
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  const starts = new Int32Array(lines);
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts[line++] = i + 1;
  return starts;
}

/** 1-based line and column of `offset`, by binary search over line starts. */
function positionAt(starts: Int32Array, offset: number): { line: number; column: number } {
  offset = Math.max(0, offset); // an empty node has no offset of its own (-1)
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

function startOf(event: Event): number {
  if (event.type === EVENT_ID.SCALAR) return scalarStart(event);
  if (event.type === EVENT_ID.SEQUENCE || event.type === EVENT_ID.MAPPING) return event.start;
  if (event.type === EVENT_ID.ALIAS) return Math.max(0, event.anchorStart - 1);
  return 0;
}

function secondDocumentStart(events: Event[]): number {
  let seen = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.type === EVENT_ID.DOCUMENT && ++seen === 2) return startOf(events[i + 1] ?? events[i]!);
  }
  return 0;
}
