import { describe, expect, it } from 'vitest';
import { MAX_SELECTOR_LENGTH, MAX_STEPS, parseSelector, select } from '../../src/shared/json-selector.js';

const sel = (text: string) => {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.selector;
};

describe('json selectors (references:)', () => {
  const result = { pages: [{ title: 'A', url: 'https://a' }, { title: 'B', url: 'https://b' }], 'odd key': { 'x.y': 1 } };

  it('reads keys, quoted keys, indexes and wildcards', () => {
    expect(select(sel('$'), result, 10)).toEqual([result]);
    expect(select(sel('$.pages[*].url'), result, 10)).toEqual(['https://a', 'https://b']);
    expect(select(sel('$.pages[1].title'), result, 10)).toEqual(['B']);
    expect(select(sel("$['odd key'][\"x.y\"]"), result, 10)).toEqual([1]);
    expect(select(sel('$[*]'), { a: 1, b: 2 }, 10)).toEqual([1, 2]);
    expect(select(sel("$['it\\'s']"), { "it's": 3 }, 10)).toEqual([3]);
  });

  it('finds nothing where the path does not lead, and never follows a prototype', () => {
    expect(select(sel('$.pages[5].url'), result, 10)).toEqual([]);
    expect(select(sel('$.pages.url'), result, 10)).toEqual([]);
    expect(select(sel('$.constructor'), {}, 10)).toEqual([]);
    expect(select(sel('$.__proto__'), JSON.parse('{"a":1}'), 10)).toEqual([]);
    expect(select(sel('$.toString'), [], 10)).toEqual([]);
  });

  it('keeps at most `limit` values at every step, so a wide result costs little', () => {
    const wide = { items: Array.from({ length: 20_000 }, (_, i) => ({ url: `u${i}`, children: Array.from({ length: 50 }, () => ({ url: 'x' })) })) };
    const started = performance.now();
    expect(select(sel('$.items[*].children[*].url'), wide, 50)).toHaveLength(50);
    expect(select(sel('$.items[*].url'), wide, 3)).toEqual(['u0', 'u1', 'u2']);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it.each([
    ['pages[*]', 'starts with $', 0],
    ['$..url', 'recursive descent', 2],
    ['$.pages[?(@.url)]', 'filters', 8],
    ['$.pages[', 'expected *, a number or a quoted key', 8],
    ["$['open", 'must end with its quote', 7],
    ['$ .x', 'unexpected " "', 1],
    ['$.9x', 'expected a key name', 2],
  ])('refuses %s, saying why and where', (text, message, offset) => {
    const parsed = parseSelector(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toContain(message);
      expect(parsed.offset).toBe(offset);
    }
  });

  it('is bounded in length and in steps', () => {
    expect(parseSelector('$' + '.a'.repeat(MAX_SELECTOR_LENGTH)).ok).toBe(false);
    expect(parseSelector('$' + '.a'.repeat(MAX_STEPS)).ok).toBe(true);
    const tooDeep = parseSelector('$' + '.a'.repeat(MAX_STEPS + 1));
    expect(tooDeep.ok === false && tooDeep.message).toContain(`at most ${MAX_STEPS} steps`);
  });
});
