import { EVENT_ID, getScalarValue, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import { ownCopy } from './compact-data.js';

export type NodeKind = 'scalar' | 'seq' | 'map';
const KINDS: readonly NodeKind[] = ['scalar', 'seq', 'map'];
const SCALAR = 0;
const SEQ = 1;
const MAP = 2;
/** Mappings with fewer keys are searched key by key for a duplicate; larger ones get a Map. */
const SMALL_MAPPING = 16;

/** A key written twice in one mapping: YAML keeps the last. */
export interface DuplicateKey {
  key: string;
  offset: number;
  firstOffset: number;
  pointer: string;
}

/**
 * Where every node of a YAML document is, in flat typed arrays: a node is a number, with its kind
 * and start offset, and either its end (a scalar) or where its children are listed. A tree of
 * objects and Maps (as this was first) took about 6.5 KB a tool, most of the memory of a
 * 50,000-tool catalog; this takes 9 bytes a node, plus 4 a sequence item and 12 a mapping entry.
 * A mapping's entries keep the order and the last-wins rule of a Map set key by key: a duplicate
 * key takes the place of the first one, with its own key and value.
 */
export class NodeIndex {
  private constructor(
    readonly root: number,
    private readonly kinds: Uint8Array,
    private readonly starts: Int32Array,
    /** A scalar's end offset; a collection's place in `lists`. */
    private readonly spans: Int32Array,
    /**
     * Each collection's children, at its place: their count, then a sequence's items, or a
     * mapping's entries as (name, key node, value node), the name an index into `names`.
     */
    private readonly lists: Int32Array,
    /** The mapping keys' names, each once. */
    private readonly names: readonly string[],
  ) {}

  kind(node: number): NodeKind {
    return KINDS[this.kinds[node]!]!;
  }

  start(node: number): number {
    return this.starts[node]!;
  }

  /** A scalar's end offset (quotes included). */
  end(node: number): number {
    return this.spans[node]!;
  }

  /** The entry of `segment` in a mapping (its key and value), or the item at that index in a sequence. */
  child(node: number, segment: string): { key: number | undefined; value: number } | undefined {
    const kind = this.kinds[node];
    if (kind === SCALAR) return undefined;
    const at = this.spans[node]!;
    const count = this.lists[at]!;
    if (kind === MAP) {
      for (let entry = at + 1; entry < at + 1 + 3 * count; entry += 3) if (this.names[this.lists[entry]!] === segment) return { key: this.lists[entry + 1]!, value: this.lists[entry + 2]! };
      return undefined;
    }
    if (!/^\d+$/.test(segment)) return undefined;
    const item = Number(segment);
    return item < count ? { key: undefined, value: this.lists[at + 1 + item]! } : undefined;
  }

  /** A sequence's last item, a mapping's last entry's value; undefined when empty or a scalar. */
  last(node: number): number | undefined {
    const kind = this.kinds[node];
    if (kind === SCALAR) return undefined;
    const at = this.spans[node]!;
    const count = this.lists[at]!;
    if (count === 0) return undefined;
    return kind === MAP ? this.lists[at + 3 * count]! : this.lists[at + count]!;
  }

  /** Builds the index of the first document from the parser's events, and finds duplicate keys on the way. */
  static build(text: string, events: readonly Event[]): { index: NodeIndex | null; duplicates: DuplicateKey[] } {
    const duplicates: DuplicateKey[] = [];
    if (events[0]?.type !== EVENT_ID.DOCUMENT || !events[1] || events[1].type === EVENT_ID.POP) return { index: null, duplicates };
    // At most one node per event (an alias reuses its anchor's node); a list takes at most one
    // count per collection and three slots per child.
    const capacity = events.length;
    const kinds = new Uint8Array(capacity);
    const starts = new Int32Array(capacity);
    const spans = new Int32Array(capacity);
    const lists = new Int32Array(capacity * 4);
    // The children of the collections still open, innermost last: no array per collection.
    const pending = new Int32Array(capacity * 3);
    let top = 0;
    const names: string[] = [];
    const nameIds = new Map<string, number>();
    const anchors = new Map<string, number>();
    // The keys leading to the node being built: a pointer is made only for a duplicate key.
    const path: string[] = [];
    let nodes = 0;
    let used = 0;
    let i = 1;
    // Where the last node seen ends (or a collection starts): an empty value has no offset of its own.
    let lastEnd = 0;
    const pointerTo = (name: string) => [...path, name].map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    const scalar = (start: number, end: number) => {
      kinds[nodes] = SCALAR;
      starts[nodes] = start;
      spans[nodes] = end;
      return nodes++;
    };
    const collection = (kind: number, start: number) => {
      lastEnd = start;
      kinds[nodes] = kind;
      starts[nodes] = start;
      return nodes++;
    };
    /** Moves the children pending since `mark` to the collection's place in `lists`. */
    const place = (node: number, mark: number, count: number) => {
      spans[node] = used;
      lists[used++] = count;
      lists.set(pending.subarray(mark, top), used);
      used += top - mark;
      top = mark;
    };
    const node = (): number => {
      const event = events[i++]!;
      let built: number;
      switch (event.type) {
        case EVENT_ID.SCALAR:
          if (event.valueStart < 0) {
            const at = emptyValueOffset(text, event, lastEnd);
            built = scalar(at, at);
          } else {
            built = scalar(scalarStart(event), event.valueEnd + (event.style === SCALAR_STYLE.DOUBLE_QUOTED || event.style === SCALAR_STYLE.SINGLE_QUOTED ? 1 : 0));
          }
          lastEnd = spans[built]!;
          break;
        case EVENT_ID.ALIAS:
          lastEnd = event.anchorEnd;
          return anchors.get(text.slice(event.anchorStart, event.anchorEnd)) ?? scalar(Math.max(0, event.anchorStart - 1), event.anchorEnd);
        case EVENT_ID.SEQUENCE: {
          built = collection(SEQ, event.start);
          const mark = top;
          let count = 0;
          while (events[i] && events[i]!.type !== EVENT_ID.POP) {
            path.push(String(count));
            const item = node();
            path.pop();
            pending[top++] = item;
            count++;
          }
          i++;
          place(built, mark, count);
          break;
        }
        case EVENT_ID.MAPPING: {
          built = collection(MAP, event.start);
          // (name, key, value) per entry, in the order a Map would keep them.
          const mark = top;
          let count = 0;
          // Past a few keys, where each name's entry is (the search stays linear in the keys).
          let byName: Map<number, number> | undefined;
          while (events[i] && events[i]!.type !== EVENT_ID.POP) {
            const keyEvent = events[i]!;
            const name = keyEvent.type === EVENT_ID.SCALAR ? getScalarValue(text, keyEvent) : '';
            const key = node();
            path.push(name);
            const value = node();
            path.pop();
            let id = nameIds.get(name);
            // A copy of its own: a long key is otherwise a view that keeps the file's whole text alive.
            if (id === undefined) nameIds.set(name, (id = names.push(ownCopy(name)) - 1));
            let earlier = byName?.get(id) ?? -1;
            if (!byName) {
              for (let entry = mark; entry < top; entry += 3) {
                if (pending[entry] === id) {
                  earlier = entry;
                  break;
                }
              }
            }
            if (earlier < 0) {
              byName?.set(id, top);
              pending[top++] = id;
              pending[top++] = key;
              pending[top++] = value;
              if (++count === SMALL_MAPPING) {
                byName = new Map();
                for (let entry = mark; entry < top; entry += 3) byName.set(pending[entry]!, entry);
              }
              continue;
            }
            if (keyEvent.type === EVENT_ID.SCALAR) duplicates.push({ key: ownCopy(name), offset: starts[key]!, firstOffset: starts[pending[earlier + 1]!]!, pointer: pointerTo(name) });
            pending[earlier + 1] = key;
            pending[earlier + 2] = value;
          }
          i++;
          place(built, mark, count);
          break;
        }
        default:
          return scalar(0, 0);
      }
      if (event.anchorStart >= 0) anchors.set(text.slice(event.anchorStart, event.anchorEnd), built);
      return built;
    };
    const root = node();
    // Copied to their size: the capacity was the most the events could need.
    return { index: new NodeIndex(root, kinds.slice(0, nodes), starts.slice(0, nodes), spans.slice(0, nodes), lists.slice(0, used), names), duplicates };
  }
}

export function scalarStart(event: ScalarEvent): number {
  const quoted = event.style === SCALAR_STYLE.DOUBLE_QUOTED || event.style === SCALAR_STYLE.SINGLE_QUOTED;
  return quoted ? event.valueStart - 1 : event.valueStart;
}

/**
 * Where an empty value (`key:` with nothing after it, a bare `-`) is: at its tag or anchor if it
 * has one, else just past the `:` or `-` that follows the node before it.
 */
function emptyValueOffset(text: string, event: ScalarEvent, previousEnd: number): number {
  if (event.tagStart >= 0) return event.tagStart;
  if (event.anchorStart >= 0) return Math.max(0, event.anchorStart - 1);
  let at = previousEnd;
  while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  return at < text.length && ':-?'.includes(text[at]!) ? at + 1 : previousEnd;
}
