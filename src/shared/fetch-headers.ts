/**
 * The Fetch standard's `Headers` class (https://fetch.spec.whatwg.org/#headers-class, read
 * 2026-11-24), for what toolman hands the provider SDKs: the headers they build for every request
 * (scripts/build-cli.mjs gives the SDK modules this class instead of the global) and those of a
 * replayed response (src/loop/recorded-response.ts).
 *
 * Why not Node's own: on Node 20 the global `Headers` is a lazy getter that loads all of Node's
 * fetch (its undici bundle, with http, http2, tls, zlib): about 17 ms of CPU of every process that
 * touches it, a tenth of a `toolman test --replay` that never opens a connection. The npm `undici`
 * package's headers.js loads nearly as much (its shared utilities need http, zlib, crypto), and
 * `headers-polyfill` departs from the standard (it drops an invalid name or value without a
 * TypeError and sorts by locale). So this one is written to the standard and checked against
 * Node's own, operation by operation (test/shared/fetch-headers.test.ts); a live request still
 * goes through Node's fetch, which reads these as the HeadersInit they are (an iterable of pairs).
 */

import { isProxy } from 'node:util/types';

/** HTTP whitespace bytes the standard strips from both ends of a value: tab, LF, CR, space. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** A header name: RFC 9110's token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a value may not hold once normalized: NUL, LF, CR. */
const FORBIDDEN_IN_VALUE = /[\0\n\r]/;

type HeaderPair = [string, string];
export type HeadersInitLike = Iterable<Iterable<unknown>> | Record<string, unknown>;

/** WebIDL's ByteString: the value as a string, every code unit at most 0xFF. */
function byteString(value: unknown, what: string): string {
  if (typeof value === 'symbol') throw new TypeError(`${what} is a symbol, which cannot be converted to a ByteString.`);
  const text = String(value);
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0xff) throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${i} has a value of ${text.charCodeAt(i)} which is greater than 255.`);
  }
  return text;
}

function headerName(name: unknown, method: string): string {
  const text = byteString(name, `Headers.${method}: name`);
  if (!TOKEN.test(text)) throw new TypeError(`Headers.${method}: "${text}" is an invalid header name.`);
  return text.toLowerCase();
}

function headerValue(value: unknown, method: string): string {
  const text = byteString(value, `Headers.${method}: value`).replace(EDGE_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(text)) throw new TypeError(`Headers.${method}: "${text}" is an invalid header value.`);
  return text;
}

/** A code unit past Latin-1: a ByteString holds none. */
const BEYOND_BYTE = /[^\0-\xff]/;

/**
 * Whether `new Headers([[name, value]])` takes the pair as it is: a token for a name, a byte string
 * without NUL, CR or LF for a value (checked before the edge whitespace is trimmed, so a value
 * that only trimming would save is refused too). For checks ahead of time: a recording's headers
 * are checked with it when read (src/loop/recording.ts), not when the reply is made.
 */
export function isValidHeader(name: string, value: string): boolean {
  return TOKEN.test(name) && !BEYOND_BYTE.test(value) && !FORBIDDEN_IN_VALUE.test(value);
}

function requireArguments(count: number, needed: number, method: string): void {
  if (count < needed) throw new TypeError(`Headers.${method}: ${needed} argument${needed === 1 ? '' : 's'} required, but ${count} found.`);
}

/** True for anything that says it is of this kind: cheap, and never loads Node's fetch. */
export function taggedAs(value: unknown, tag: string): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && Object.prototype.toString.call(value) === `[object ${tag}]`;
}

export class Headers {
  /** Lower-cased name -> its values in order (combined with ", " when read, but for set-cookie). */
  readonly #list = new Map<string, string[]>();
  /** The sorted and combined pairs iteration walks, made again after a change. */
  #sorted: HeaderPair[] | undefined;

  constructor(init?: HeadersInitLike) {
    if (init === undefined) return;
    if ((typeof init !== 'object' && typeof init !== 'function') || init === null) {
      throw new TypeError('Headers constructor: Argument 1 could not be converted to one of: sequence<sequence<ByteString>>, record<ByteString, ByteString>.');
    }
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (iterator !== undefined) {
      // Converted whole first, as WebIDL converts the argument before the constructor runs.
      const pairs: string[][] = [];
      let index = 0;
      for (const item of init as Iterable<unknown>) {
        if ((typeof item !== 'object' && typeof item !== 'function') || item === null || typeof (item as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
          throw new TypeError(`Headers constructor: init[${index}] is not iterable.`);
        }
        pairs.push([...(item as Iterable<unknown>)].map((part) => byteString(part, 'Headers constructor: a name or value')));
        index++;
      }
      for (const pair of pairs) {
        if (pair.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${pair.length}.`);
        this.append(pair[0]!, pair[1]!);
      }
      return;
    }
    // A record: every own key, as Node's fetch (undici) reads one (WebIDL takes the enumerable
    // ones only, which undici does for a Proxy alone).
    const record: [string, string][] = [];
    const proxy = isProxy(init);
    for (const key of Reflect.ownKeys(init)) {
      if (proxy && !Reflect.getOwnPropertyDescriptor(init, key)?.enumerable) continue;
      record.push([byteString(key, 'Headers constructor: init'), byteString((init as Record<PropertyKey, unknown>)[key], 'Headers constructor: a value')]);
    }
    for (const [name, value] of record) this.append(name, value);
  }

  append(name: string, value: string): void {
    requireArguments(arguments.length, 2, 'append');
    const key = headerName(name, 'append');
    const text = headerValue(value, 'append');
    const values = this.#list.get(key);
    if (values) values.push(text);
    else this.#list.set(key, [text]);
    this.#sorted = undefined;
  }

  delete(name: string): void {
    requireArguments(arguments.length, 1, 'delete');
    if (this.#list.delete(headerName(name, 'delete'))) this.#sorted = undefined;
  }

  get(name: string): string | null {
    requireArguments(arguments.length, 1, 'get');
    const values = this.#list.get(headerName(name, 'get'));
    return values ? values.join(', ') : null;
  }

  getSetCookie(): string[] {
    return [...(this.#list.get('set-cookie') ?? [])];
  }

  has(name: string): boolean {
    requireArguments(arguments.length, 1, 'has');
    return this.#list.has(headerName(name, 'has'));
  }

  set(name: string, value: string): void {
    requireArguments(arguments.length, 2, 'set');
    const key = headerName(name, 'set');
    this.#list.set(key, [headerValue(value, 'set')]);
    this.#sorted = undefined;
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    requireArguments(arguments.length, 1, 'forEach');
    if (typeof callback !== 'function') throw new TypeError("Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.");
    // As WebIDL's pair iterators: the list is read afresh at each step, so changes made meanwhile show.
    for (let i = 0; i < this.#pairs().length; i++) {
      const [name, value] = this.#pairs()[i]!;
      callback.call(thisArg, value, name, this);
    }
  }

  entries(): IterableIterator<HeaderPair> {
    return this.#iterate((pair) => [pair[0], pair[1]]);
  }

  keys(): IterableIterator<string> {
    return this.#iterate((pair) => pair[0]);
  }

  values(): IterableIterator<string> {
    return this.#iterate((pair) => pair[1]);
  }

  [Symbol.iterator](): IterableIterator<HeaderPair> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  /**
   * `instanceof Headers`: this class's objects, and Node's own (an SDK given those by a caller, or
   * reading a live response's, must see them as headers). Node's class is asked only about what
   * says it is a Headers, so a plain object never loads Node's fetch.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    if (#list in value) return true;
    return taggedAs(value, 'Headers') && typeof globalThis.Headers === 'function' && (globalThis.Headers as unknown) !== Headers && value instanceof globalThis.Headers;
  }

  /** The standard's "sort and combine": lower-cased names in byte order, each set-cookie on its own. */
  #pairs(): HeaderPair[] {
    if (this.#sorted) return this.#sorted;
    const pairs: HeaderPair[] = [];
    for (const name of [...this.#list.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const values = this.#list.get(name)!;
      if (name === 'set-cookie') for (const value of values) pairs.push([name, value]);
      else pairs.push([name, values.join(', ')]);
    }
    return (this.#sorted = pairs);
  }

  #iterate<T>(pick: (pair: HeaderPair) => T): IterableIterator<T> {
    let index = 0;
    const pairs = () => this.#pairs();
    const iterator = {
      next(): IteratorResult<T> {
        const list = pairs();
        if (index >= list.length) return { value: undefined, done: true };
        return { value: pick(list[index++]!), done: false };
      },
      [Symbol.iterator]() {
        return iterator;
      },
      [Symbol.toStringTag]: 'Headers Iterator',
    };
    return iterator as IterableIterator<T>;
  }
}
