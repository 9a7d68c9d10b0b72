import { setOwn } from '../shared/own.js';
/**
 * Result truncation. Token counts here are estimates (4 characters a token, the usual rule of
 * thumb across providers): truncation needs one fast, provider-independent measure, and exact
 * counts belong to `toolman tokens`.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export type TruncationStrategy = 'head' | 'tail' | 'smart';

export interface Truncated {
  text: string;
  truncated: boolean;
  originalTokens: number;
}

/** Cuts `text` to at most `maxTokens` (estimated) with the strategy; says so when it cuts. */
export function truncateResult(text: string, maxTokens: number, strategy: TruncationStrategy): Truncated {
  const originalTokens = estimateTokens(text);
  if (originalTokens <= maxTokens) return { text, truncated: false, originalTokens };
  const limit = Math.max(32, maxTokens * CHARS_PER_TOKEN);
  if (strategy === 'smart') {
    const json = tryParse(text);
    if (json.ok) return { text: smartJson(json.value, limit, originalTokens), truncated: true, originalTokens };
  }
  const marker = `\n[… truncated: ${originalTokens} tokens, showing ${strategy === 'tail' ? 'the end' : strategy === 'head' ? 'the start' : 'start and end'} …]\n`;
  const room = Math.max(0, limit - marker.length);
  if (strategy === 'head') return { text: text.slice(0, room) + marker.trimEnd(), truncated: true, originalTokens };
  if (strategy === 'tail') return { text: marker.trimStart() + text.slice(text.length - room), truncated: true, originalTokens };
  const half = Math.floor(room / 2);
  return { text: text.slice(0, half) + marker + text.slice(text.length - (room - half)), truncated: true, originalTokens };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Shrinks a JSON value until it serialises within `limit` characters while staying valid JSON:
 * long arrays keep their first and last items around a "… N more items" marker, long strings keep
 * their start and end, nesting is kept. Tightens step by step; as a last resort returns a small
 * object that says what was cut.
 */
export function smartJson(value: unknown, limit: number, originalTokens: number): string {
  for (const [items, chars, depth] of [[10, 400, 12], [6, 200, 10], [4, 120, 8], [2, 60, 6], [1, 30, 4], [1, 12, 3], [0, 8, 2]] as const) {
    const text = JSON.stringify(shrink(value, items, chars, depth));
    if (text.length <= limit) return text;
  }
  const whole = JSON.stringify(value);
  const note = { truncated: true, original_tokens: originalTokens, preview: '' };
  for (let room = limit - JSON.stringify(note).length; room > 0; room = Math.floor(room * 0.8)) {
    note.preview = whole.slice(0, room);
    if (JSON.stringify(note).length <= limit) return JSON.stringify(note);
  }
  note.preview = '';
  const text = JSON.stringify(note);
  return text.length <= limit ? text : JSON.stringify({ truncated: true });
}

function shrink(value: unknown, items: number, chars: number, depth: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= chars * 2 + 20) return value;
    return `${value.slice(0, chars)}… (${value.length - chars * 2} characters cut) …${value.slice(value.length - chars)}`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth <= 0) return Array.isArray(value) ? `[… ${value.length} items]` : `{… ${Object.keys(value).length} keys}`;
  if (Array.isArray(value)) {
    if (value.length <= items * 2 + 1) return value.map((v) => shrink(v, items, chars, depth - 1));
    const head = value.slice(0, items).map((v) => shrink(v, items, chars, depth - 1));
    const tail = items > 0 ? value.slice(value.length - items).map((v) => shrink(v, items, chars, depth - 1)) : [];
    return [...head, `… ${value.length - items * 2} more items`, ...tail];
  }
  const entries = Object.entries(value);
  const keep = Math.max(items * 3, 4);
  const out: Record<string, unknown> = {};
  for (const [key, v] of entries.slice(0, keep)) setOwn(out, key, shrink(v, items, chars, depth - 1));
  if (entries.length > keep) out['…'] = `${entries.length - keep} more keys`;
  return out;
}
