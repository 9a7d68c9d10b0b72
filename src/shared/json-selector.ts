import { isRecord } from './is-record.js';

/**
 * A small, bounded subset of JSONPath for finding values in a tool's result (`references:`):
 * `$` (the value), `.key`, `['key']` / `["key"]`, `[N]` and `[*]`. Written here rather than
 * taken from npm: the JSONPath packages evaluate filter expressions (`?(...)`, script in
 * jsonpath-plus' case), which a selector in a catalog has no use for, and the subset that is
 * needed is one short parser whose cost is bounded by construction: at most MAX_STEPS steps, and
 * every step keeps at most `limit` values, so a selector can never walk more than
 * MAX_STEPS × limit nodes of a result, however large.
 */

export type SelectorStep = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'all' };

export interface Selector {
  text: string;
  steps: SelectorStep[];
}

export const MAX_SELECTOR_LENGTH = 200;
export const MAX_STEPS = 16;

export type ParsedSelector = { ok: true; selector: Selector } | { ok: false; message: string; offset: number };

/** Parses a selector; a failure says what is wrong and at which character (0-based). */
export function parseSelector(text: string): ParsedSelector {
  const failure = (message: string, offset: number): ParsedSelector => ({ ok: false, message, offset });
  if (text.length > MAX_SELECTOR_LENGTH) return failure(`a selector is at most ${MAX_SELECTOR_LENGTH} characters`, MAX_SELECTOR_LENGTH);
  if (!text.startsWith('$')) return failure('a selector starts with $ (the value itself)', 0);
  const steps: SelectorStep[] = [];
  let i = 1;
  while (i < text.length) {
    if (steps.length >= MAX_STEPS) return failure(`a selector has at most ${MAX_STEPS} steps`, i);
    const c = text[i];
    if (c === '.') {
      const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i + 1));
      if (!match) return failure(text[i + 1] === '.' ? 'recursive descent (..) is not supported: name each step' : 'expected a key name after "."', i + 1);
      steps.push({ kind: 'key', key: match[0] });
      i += 1 + match[0].length;
    } else if (c === '[') {
      const rest = text.slice(i + 1);
      if (rest.startsWith('*]')) {
        steps.push({ kind: 'all' });
        i += 3;
        continue;
      }
      const index = /^(\d{1,9})\]/.exec(rest);
      if (index) {
        steps.push({ kind: 'index', index: Number(index[1]) });
        i += 1 + index[0].length;
        continue;
      }
      const quote = rest[0];
      if (quote !== "'" && quote !== '"') return failure(rest.startsWith('?') ? 'filters ([?(...)]) are not supported' : 'expected *, a number or a quoted key inside [ ]', i + 1);
      let key = '';
      let j = 1;
      for (; j < rest.length && rest[j] !== quote; j++) {
        if (rest[j] === '\\' && j + 1 < rest.length) j++;
        key += rest[j];
      }
      if (rest[j] !== quote || rest[j + 1] !== ']') return failure('a quoted key must end with its quote and ]', i + 1 + j);
      steps.push({ kind: 'key', key });
      i += 1 + j + 2;
    } else {
      return failure(`unexpected "${c}": steps are .key, ['key'], [N] or [*]`, i);
    }
  }
  return { ok: true, selector: { text, steps } };
}

/**
 * The values `selector` finds in `value`, in document order, at most `limit` of them. Only a
 * value's own keys are followed (never `__proto__` or `constructor` of its prototype).
 */
export function select(selector: Selector, value: unknown, limit: number): unknown[] {
  let current: unknown[] = [value];
  for (const step of selector.steps) {
    const next: unknown[] = [];
    for (const node of current) {
      if (next.length >= limit) break;
      if (step.kind === 'key') {
        if (isRecord(node) && Object.hasOwn(node, step.key)) next.push(node[step.key]);
      } else if (step.kind === 'index') {
        if (Array.isArray(node) && step.index < node.length) next.push(node[step.index]);
      } else if (Array.isArray(node)) {
        for (const item of node) {
          if (next.length >= limit) break;
          next.push(item);
        }
      } else if (isRecord(node)) {
        for (const item of Object.values(node)) {
          if (next.length >= limit) break;
          next.push(item);
        }
      }
    }
    current = next;
  }
  return current.slice(0, limit);
}
