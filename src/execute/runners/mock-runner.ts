import { canonicalJson } from '../../shared/canonical-json.js';
import { fillValue } from '../templates.js';
import { delay } from '../../shared/timers.js';
import type { MockCase } from '../../catalog/types.js';
import type { RunContext, ToolRunner } from '../runner.js';
import { scriptedStream, type ScriptedRun } from '../scripted-stream.js';
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

/**
 * Answers from the first case whose `when` matches (a case without `when` is the default). For a
 * stateful tool (`start`), the case's `yields` come one by one, `latency_ms` before each.
 */
export const mockRunner: ToolRunner<'mock'> = {
  kind: 'mock',
  async run(handler, args, context: RunContext) {
    const chosen = chooseCase(handler.cases, args);
    if (chosen.latency_ms) await delay(chosen.latency_ms, context.signal);
    if (chosen.error !== undefined) throw new Error(String(fillValue(chosen.error, args)));
    return fillValue(chosen.result ?? null, args);
  },
  start(handler, args, context: RunContext) {
    let chosen: MockCase;
    try {
      chosen = chooseCase(handler.cases, args);
    } catch (error) {
      // Said when the job's first step is read, as a failure of the tool.
      return scriptedStream({ yields: [], error: error instanceof Error ? error.message : String(error) }, context.signal);
    }
    const run: ScriptedRun = { yields: (chosen.yields ?? []).map((value) => fillValue(value, args)), result: fillValue(chosen.result ?? null, args) };
    if (chosen.error !== undefined) run.error = String(fillValue(chosen.error, args));
    if (chosen.latency_ms) run.latencyMs = chosen.latency_ms;
    return scriptedStream(run, context.signal);
  },
};

function chooseCase(cases: readonly MockCase[], args: Record<string, unknown>): MockCase {
  const chosen = cases.find((c) => c.when === undefined || matches(args, c.when));
  if (!chosen) throw new Error(`no mock case matches these arguments (${cases.length} cases, none without "when")`);
  return chosen;
}
