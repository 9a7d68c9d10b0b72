import { Alias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { Diagnostic } from './diagnostic.js';
import { segmentsOf } from './diagnostic.js';

export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** Alias expansions allowed per document before it counts as an alias bomb. */
export const MAX_ALIAS_COUNT = 1000;

/**
 * One parsed YAML file that still knows where every node came from, so any later check can point
 * at `file:line:column` through a JSON Pointer.
 */
export class SourceFile {
  readonly data: unknown;
  private readonly lines: LineCounter;
  private lineStarts: number[] | undefined;

  private constructor(
    readonly path: string,
    readonly absolutePath: string,
    readonly text: string,
    private readonly doc: Document.Parsed,
    lines: LineCounter,
    data: unknown,
  ) {
    this.lines = lines;
    this.data = data;
  }

  /** Parses `text`; YAML problems come back as diagnostics, never as throws. */
  static parse(path: string, absolutePath: string, text: string): { file: SourceFile; diagnostics: Diagnostic[] } {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
    const diagnostics: Diagnostic[] = [];
    const at = (offset: number) => {
      const pos = lines.linePos(offset);
      return { line: pos.line, column: pos.col };
    };
    for (const error of doc.errors) {
      const duplicate = error.code === 'DUPLICATE_KEY';
      diagnostics.push({
        code: duplicate ? 'TM0002' : 'TM0001',
        severity: 'error',
        message: duplicate ? 'duplicate key: ' + firstLine(error.message).replace(/^Map keys must be unique.*$/, 'this key appears earlier in the same mapping') : firstLine(error.message),
        file: path,
        ...at(error.pos[0]),
        pointer: '',
      });
    }
    for (const warning of doc.warnings) {
      diagnostics.push({ code: 'TM0001', severity: 'warning', message: firstLine(warning.message), file: path, ...at(warning.pos[0]), pointer: '' });
    }
    let data: unknown = null;
    if (doc.errors.length === 0) {
      try {
        data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
      } catch (error) {
        const alias = firstAlias(doc);
        diagnostics.push({
          code: 'TM0003',
          severity: 'error',
          message: `aliases expand past the limit of ${MAX_ALIAS_COUNT} (${error instanceof Error ? firstLine(error.message) : 'resource limit'})`,
          file: path,
          ...at(alias?.range?.[0] ?? 0),
          pointer: '',
          hint: 'write the repeated parts out, or use fewer nested aliases',
        });
      }
    }
    return { file: new SourceFile(path, absolutePath, text, doc, lines, data), diagnostics };
  }

  /**
   * Where the node at `pointer` is. With `part: 'key'` a mapping entry points at its key (for
   * "unknown key" findings). A pointer that runs past the document points at the deepest node
   * that exists (a missing key is reported on the mapping that lacks it).
   */
  locate(pointer: string, part: 'value' | 'key' = 'value'): Span {
    let node: unknown = this.doc.contents;
    let keyNode: unknown;
    for (const segment of segmentsOf(pointer)) {
      if (node instanceof Alias) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && keyText(p.key) === segment);
        if (!pair) break;
        keyNode = pair.key;
        node = pair.value ?? pair.key;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)];
        if (item === undefined || !/^\d+$/.test(segment)) break;
        keyNode = undefined;
        node = item;
      } else {
        break;
      }
    }
    const target = (part === 'key' && keyNode ? keyNode : node) as Node | null;
    const range = target?.range ?? [0, 0, 0];
    const start = this.lines.linePos(range[0]);
    const end = this.lines.linePos(Math.max(range[0], range[1]));
    return { line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
  }

  /** The text of one 1-based line, for code frames. */
  lineText(line: number): string {
    this.lineStarts ??= this.lines.lineStarts;
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lineStarts[line];
    return this.text.slice(start, next === undefined ? undefined : next).replace(/\r?\n$/, '');
  }
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function firstAlias(doc: Document.Parsed): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias(_, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
