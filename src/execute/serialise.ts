import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';

/** A result (or a yield) as the text the model gets: text as it is, anything else as JSON; what JSON cannot hold says why. */
export function serialise(value: unknown): { ok: true; text: string } | { ok: false; reason: string } {
  if (typeof value === 'string') return { ok: true, text: value };
  if (value === undefined) return { ok: true, text: 'null' };
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return { ok: false, reason: `a ${typeof value}` };
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: `it nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    const text = JSON.stringify(value);
    return text === undefined ? { ok: false, reason: 'nothing serialisable' } : { ok: true, text };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
