import { canonicalJson } from '../../shared/canonical-json.js';
import { fillValue } from '../templates.js';
import { timerDelay } from '../../shared/timers.js';
import type { RunContext, ToolRunner } from '../runner.js';
import { ownValue } from '../../shared/own.js';
import { linearRegExp } from '../../shared/linear-regexp.js';

/**
 * Whether `actual` satisfies `expected`: plain values compare as JSON; objects match as a subset;
 * an object of operators matches a value: `$regex` (RE2), `$contains`, `$in`, `$exists`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$ne`.
 */
export function matches(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    const entries = Object.entries(expected as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([k]) => k.startsWith('$'))) return entries.every(([op, arg]) => operator(op, actual, arg));
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return entries.every(([key, value]) => matches(ownValue(actual as Record<string, unknown>, key), value));
  }
  return canonicalJson(actual) === canonicalJson(expected);
}

function operator(op: string, actual: unknown, arg: unknown): boolean {
  switch (op) {
    case '$exists':
      return (actual !== undefined) === Boolean(arg);
    case '$regex':
      return typeof actual === 'string' && typeof arg === 'string' && linearRegExp(arg).test(actual);
    case '$contains':
      return typeof actual === 'string' ? typeof arg === 'string' && actual.includes(arg) : Array.isArray(actual) && actual.some((v) => matches(v, arg));
    case '$in':
      return Array.isArray(arg) && arg.some((v) => matches(actual, v));
    case '$ne':
      return !matches(actual, arg);
    case '$gt':
      return typeof actual === 'number' && typeof arg === 'number' && actual > arg;
    case '$gte':
      return typeof actual === 'number' && typeof arg === 'number' && actual >= arg;
    case '$lt':
      return typeof actual === 'number' && typeof arg === 'number' && actual < arg;
    case '$lte':
      return typeof actual === 'number' && typeof arg === 'number' && actual <= arg;
    default:
      throw new Error(`unknown matcher ${op} in a mock case`);
  }
}

/** Answers from the first case whose `when` matches (a case without `when` is the default). */
export const mockRunner: ToolRunner<'mock'> = {
  kind: 'mock',
  async run(handler, args, context: RunContext) {
    const chosen = handler.cases.find((c) => c.when === undefined || matches(args, c.when));
    if (!chosen) throw new Error(`no mock case matches these arguments (${handler.cases.length} cases, none without "when")`);
    if (chosen.latency_ms) await delay(chosen.latency_ms, context.signal);
    if (chosen.error !== undefined) throw new Error(String(fillValue(chosen.error, args)));
    return fillValue(chosen.result ?? null, args);
  },
};

export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, timerDelay(ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
