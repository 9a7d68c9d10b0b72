import { describe, expect, it } from 'vitest';
import { Headers as Ours } from '../../src/shared/fetch-headers.js';

/** A tiny seeded generator: the same cases every run. */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

const NAMES = ['a', 'A', 'b', 'Set-Cookie', 'set-cookie', 'content-type', 'X-Z', 'x-z', '', 'bad name', 'é', '__proto__', 'constructor', 'toString', 'retry-after', 'Retry-After', '\u0100x', 'a\tb', 'a:b'];
const VALUES = ['1', ' 2 ', '\t3\n', 'a, b', '', '  ', 'é', 'x\u0000y', 'x\ry', 'x\ny', '\u00ff', '\u0100', 'v\u000b', '\u000bv'];

function outcome(run: () => unknown): unknown {
  try {
    const value = run();
    return { value };
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

describe('Headers against Node\'s, random operations', () => {
  it('gives the same answers and the same TypeErrors in 3,000 random operations', () => {
    const random = rng(7);
    const pick = <T,>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    for (let round = 0; round < 100; round++) {
      const ours = new Ours();
      const node = new globalThis.Headers();
      for (let step = 0; step < 30; step++) {
        const op = pick(['append', 'set', 'delete', 'get', 'has', 'getSetCookie', 'entries']);
        const name = pick(NAMES);
        const value = pick(VALUES);
        const doIt = (h: any) => () => (op === 'entries' ? [...h] : op === 'getSetCookie' ? h.getSetCookie() : op === 'append' || op === 'set' ? h[op](name, value) : h[op](name));
        expect(outcome(doIt(ours)), `${op}(${JSON.stringify(name)}, ${JSON.stringify(value)})`).toEqual(outcome(doIt(node)));
      }
      expect([...ours]).toEqual([...node]);
    }
  });

  it('constructs from records like Node does', () => {
    const records: Record<string, unknown>[] = [{ 'Set-Cookie': 'a', 'set-cookie': 'b' }, { x: 1, y: null, z: undefined, w: { toString: () => 'o' } }, { 'bad name': 'x' }, { a: 'x\ny' }];
    for (const record of records) {
      const ours = outcome(() => [...new Ours(record as never)]);
      const node = outcome(() => [...new globalThis.Headers(record as never)]);
      expect(ours, JSON.stringify(record)).toEqual(node);
    }
  });
});
