import { describe, expect, it } from 'vitest';
import { isValidHeader, Headers as OurHeaders } from '../../src/shared/fetch-headers.js';

// Checked against Node's own Headers (undici's, the standard's reference in Node): the same
// operations on both must give the same answers, and throw where Node's throws.
const NodeHeaders = globalThis.Headers;

type Operation = (h: Headers) => unknown;

/** What a run of operations gives: each step's result (iteration spelled out) or the error's class. */
function outcome(make: () => Headers, steps: Operation[]): unknown[] {
  const results: unknown[] = [];
  let headers: Headers;
  try {
    headers = make();
  } catch (error) {
    return [`throws ${(error as Error).constructor.name}`];
  }
  results.push([...headers]);
  for (const step of steps) {
    try {
      const value = step(headers);
      results.push(value === undefined ? 'ok' : value);
    } catch (error) {
      results.push(`throws ${(error as Error).constructor.name}`);
    }
    results.push([...headers]);
  }
  return results;
}

const same = (init: unknown, steps: Operation[] = []) => {
  const ours = outcome(() => new OurHeaders(init as never) as unknown as Headers, steps);
  const node = outcome(() => new NodeHeaders(init as never), steps);
  expect(ours).toEqual(node);
};

describe('Headers (src/shared/fetch-headers.ts) answers as Node\'s own', () => {
  it('constructs from nothing, records, pairs, Maps and other Headers; refuses what is neither', () => {
    same(undefined);
    same({ 'Content-Type': ' application/json ', Accept: '*/*', 'x-a': 1, 'x-b': null, 'x-c': undefined });
    same([['B', '2'], ['a', '1'], ['A', '3']]);
    same(new Map([['x', 'y']]));
    same(new NodeHeaders({ a: '1', 'set-cookie': 'k=v' }));
    same(new OurHeaders({ a: '1', 'set-cookie': 'k=v' }));
    for (const bad of [null, 'abc', 5, true, [['a']], [['a', 'b', 'c']], ['ab'], [[1, 2], 3], { [Symbol('s')]: 'x' }, { 'a b': 'x' }, { a: 'x\ny' }, { a: '\u0100' }, [['\u0100', 'x']]]) same(bad);
    const hidden = Object.defineProperty({ shown: '1' }, 'hidden', { value: '2', enumerable: false });
    same(hidden);
  });

  it('append, set, delete, get, has, getSetCookie: values combined, trimmed and checked as Node does', () => {
    same({}, [
      (h) => h.append('X-Multi', 'one'),
      (h) => h.append('x-multi', ' two\t'),
      (h) => h.get('X-MULTI'),
      (h) => h.has('x-multi'),
      (h) => h.append('Set-Cookie', 'a=1'),
      (h) => h.append('set-cookie', 'b=2, c=3'),
      (h) => h.get('set-cookie'),
      (h) => h.getSetCookie(),
      (h) => h.set('x-multi', '\r\n only \n'),
      (h) => h.get('x-multi'),
      (h) => h.delete('X-Multi'),
      (h) => h.get('x-multi'),
      (h) => h.has('nothing'),
      (h) => h.delete('nothing'),
      (h) => h.set('empty', ''),
      (h) => h.get('empty'),
      (h) => h.append('latin', 'caf\u00e9'),
    ]);
  });

  it('refuses bad names, bad values and missing arguments with a TypeError, as Node does', () => {
    const bad: Operation[] = [
      (h) => h.append('a b', 'x'),
      (h) => h.append('', 'x'),
      (h) => h.append('x', 'a\0b'),
      (h) => h.append('x', 'a\nb'),
      (h) => h.set('x', 'a\rb'),
      (h) => h.set('\u0100', 'x'),
      (h) => h.set('x', '\u2028'),
      (h) => h.get('a:b'),
      (h) => h.has('(x)'),
      (h) => h.delete('a b'),
      (h) => (h.get as () => unknown)(),
      (h) => (h.append as (n: string) => unknown)('x'),
      (h) => (h.set as () => unknown)(),
      (h) => (h.has as () => unknown)(),
      (h) => (h.delete as () => unknown)(),
      (h) => h.append(Symbol('s') as never, 'x'),
      (h) => h.forEach(5 as never),
    ];
    same({ keep: 'me' }, bad);
  });

  it('iterates sorted by name, with set-cookie apart, and sees changes made while iterating', () => {
    same({ b: '2', a: '1', 'Set-Cookie': 'z=1' }, [
      (h) => [...h.keys()],
      (h) => [...h.values()],
      (h) => [...h.entries()],
      (h) => {
        const seen: unknown[] = [];
        h.forEach(function (this: unknown, value, name, parent) {
          seen.push([value, name, parent === h, this]);
        }, 'this-arg');
        return seen;
      },
      (h) => {
        const iterator = h.entries();
        const steps: unknown[] = [iterator.next()];
        h.append('0-first', 'z');
        steps.push(iterator.next(), iterator.next(), iterator.next(), iterator.next());
        return steps;
      },
      (h) => Object.prototype.toString.call(h) + ' ' + Object.prototype.toString.call(h.keys()),
      (h) => {
        const iterator = h.values();
        return iterator[Symbol.iterator]() === iterator;
      },
    ]);
  });

  it('instanceof: its own objects and Node\'s are Headers; plain objects, Maps and pairs are not', () => {
    expect(new OurHeaders() instanceof OurHeaders).toBe(true);
    expect(new NodeHeaders() instanceof OurHeaders).toBe(true);
    for (const other of [{}, new Map(), [['a', 'b']], null, undefined, 'Headers', { [Symbol.toStringTag]: 'Headers' }]) expect(other instanceof OurHeaders).toBe(false);
    // A live request built from ours: Node's fetch reads them as the iterable of pairs they are.
    const request = new Request('http://example.invalid/', { headers: new OurHeaders({ Authorization: 'Bearer x', 'X-Two': 'a' }) as unknown as ConstructorParameters<typeof Headers>[0] });
    expect([...request.headers]).toEqual([['authorization', 'Bearer x'], ['x-two', 'a']]);
  });
});

describe('isValidHeader: a pair Node\'s Headers takes as it is (what a recording is checked with)', () => {
  const pairs: [string, string][] = [
    ['content-type', 'text/event-stream'],
    ['X-Odd_Name!', 'v'],
    ['bad name', 'v'],
    ['', 'v'],
    ['\u00e9tag', 'v'],
    ['x-latin1', 'caf\u00e9'],
    ['x-wide', 'caf\u0100'],
    ['x-emoji', '\ud83d\ude00'],
    ['x-nul', 'a\u0000b'],
    ['x-cr', 'a\rb'],
    ['x-lf', 'a\nb'],
    ['x-tab', 'a\tb'],
    ['x-empty', ''],
  ];
  it.each(pairs)('%j: %j', (name, value) => {
    let nodeTakes = true;
    try {
      new Headers([[name, value]]);
    } catch {
      nodeTakes = false;
    }
    expect(isValidHeader(name, value)).toBe(nodeTakes);
  });

  it('refuses a value only trimming would save, where Node trims it away', () => {
    expect(isValidHeader('x-end', 'a\n')).toBe(false);
    expect(new Headers([['x-end', 'a\n']]).get('x-end')).toBe('a');
  });
});
