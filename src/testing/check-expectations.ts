import type { EvaluationVerdict } from '../execute/types.js';
import type { TurnReference } from '../loop/loop-events.js';
import type { CallExpectation, CountBound, Expectations } from './suite-types.js';
import { linearRegExp } from '../shared/linear-regexp.js';
import { mismatch } from './value-matchers.js';

/** A tool call as the test runner saw it: catalog name, decoded arguments, how it went. */
export interface ObservedCall {
  turn: number;
  round: number;
  name: string;
  /** The tool's other names (its aliases): a `not_called` pattern written for an old name still matches. */
  aliases?: readonly string[];
  arguments: unknown;
  ok: boolean;
  error: string | null;
  /** A meta-tool (tool_search, discover_tools...): how tools are found, not a tool choice. */
  meta: boolean;
  /** The call could not be run as made: unknown tool, arguments that are not JSON or fail the schema. */
  malformed: boolean;
  /** toolman did not run it (malformed, past the turn's cap, a take-control tool not called alone), with `error` saying why. */
  refused?: boolean;
  approval: 'approved' | 'declined' | null;
}

/** What expectations are checked against: one turn, or the whole conversation. */
export interface Observation {
  calls: ObservedCall[];
  answer: string;
  rounds: number;
  stop: string;
  usage: { input: number; output: number; estimated_input: number; reported: boolean };
  /** The sources of the turn the answer belongs to, as numbered for the model (`[n]`). */
  references: readonly TurnReference[];
  /** The verdicts of the evaluations that ran (every turn's, for a whole case). */
  evaluations: readonly EvaluationVerdict[];
}

/** One expectation that did not hold: which one, and what happened instead. */
export interface Failure {
  expectation: string;
  message: string;
}

/** Every expectation that fails, in the order written. An empty list is a pass. */
export function checkExpectations(expect: Expectations, seen: Observation, prefix = ''): Failure[] {
  const failures: Failure[] = [];
  const fail = (expectation: string, message: string) => failures.push({ expectation: prefix + expectation, message });
  const tools = seen.calls.filter((c) => !c.meta);

  if (expect.calls) for (const f of checkCalls(expect.calls, expect.order, tools)) fail(f.expectation, f.message);
  if (expect.no_tool) {
    const malformed = seen.calls.filter((c) => c.malformed);
    if (malformed.length) fail('no_tool', `made a malformed call (a failure, never an abstention): ${malformed.map((c) => `${c.name}: ${c.error ?? 'invalid'}`).join('; ')}`);
    else if (tools.length) fail('no_tool', `expected no tool call, but called ${names(tools)}`);
  }
  for (const pattern of expect.not_called ?? []) {
    const hit = tools.filter((c) => globMatch(pattern, c.name) || (c.aliases ?? []).some((alias) => globMatch(pattern, alias)));
    if (hit.length) fail(`not_called ${pattern}`, `called ${names(hit)}`);
  }
  for (const [tool, range] of Object.entries(expect.call_count ?? {})) {
    const n = tool === '*' ? tools.length : tools.filter((c) => c.name === tool).length;
    const miss = outside(n, range);
    if (miss) fail(`call_count ${tool}`, `${tool === '*' ? 'tool calls' : `calls of ${tool}`}: ${miss}`);
  }
  if (expect.rounds) {
    const miss = outside(seen.rounds, expect.rounds);
    if (miss) fail('rounds', `rounds: ${miss}`);
  }
  if (expect.answer) {
    const a = expect.answer;
    const quoted = JSON.stringify(seen.answer.length > 120 ? `${seen.answer.slice(0, 117)}...` : seen.answer);
    for (const text of a.contains ?? []) if (!seen.answer.toLowerCase().includes(text.toLowerCase())) fail('answer.contains', `expected the answer to contain ${JSON.stringify(text)}; it was ${quoted}`);
    for (const text of a.not_contains ?? []) if (seen.answer.toLowerCase().includes(text.toLowerCase())) fail('answer.not_contains', `expected the answer not to contain ${JSON.stringify(text)}; it was ${quoted}`);
    if (a.regex !== undefined && !linearRegExp(a.regex).test(seen.answer)) fail('answer.regex', `expected the answer to match /${a.regex}/; it was ${quoted}`);
    if (a.equals !== undefined && seen.answer.trim() !== a.equals.trim()) fail('answer.equals', `expected the answer ${JSON.stringify(a.equals)}; it was ${quoted}`);
    for (const tool of a.cites ?? []) {
      const miss = uncited(tool, seen.answer, seen.references);
      if (miss) fail(`answer.cites ${tool}`, `${miss}; it was ${quoted}`);
    }
  }
  for (const [name, wanted] of Object.entries(expect.evaluations ?? {})) {
    const runs = seen.evaluations.filter((v) => v.name === name);
    if (!runs.length) {
      fail(`evaluations ${name}`, `${name} did not run: no tool that lists it in evaluation: was used`);
      continue;
    }
    // One failure fails the check; one undecided run leaves it undecided.
    const verdict = runs.some((v) => v.verdict === 'fail') ? 'fail' : runs.some((v) => v.verdict === 'error') ? 'error' : 'pass';
    const why = runs.find((v) => v.verdict === verdict && v.reason)?.reason;
    if (verdict !== wanted) fail(`evaluations ${name}`, `expected ${name} to ${wanted === 'pass' ? 'pass' : wanted === 'fail' ? 'fail' : 'be undecided (error)'}; it ${verdict === 'pass' ? 'passed' : verdict === 'fail' ? 'failed' : 'could not be decided'}${why ? `: ${why}` : ''}`);
  }
  if (expect.approvals) {
    const asked = [...new Set(seen.calls.filter((c) => c.approval !== null).map((c) => c.name))].sort();
    const wanted = [...new Set(expect.approvals)].sort();
    if (asked.join('\n') !== wanted.join('\n')) fail('approvals', `expected confirmation to be asked for ${wanted.length ? wanted.join(', ') : 'no tool'}; it was asked for ${asked.length ? asked.join(', ') : 'none'}`);
  }
  if (expect.tokens) {
    // The API's own counts; toolman's estimate of the input only when the API reported none.
    const input = seen.usage.reported ? seen.usage.input : seen.usage.estimated_input;
    const { output } = seen.usage;
    const source = seen.usage.reported ? 'API-reported' : "toolman's estimate";
    if (expect.tokens.input !== undefined && input > expect.tokens.input) fail('tokens.input', `${input} input tokens (${source}), over the bound of ${expect.tokens.input}`);
    if (expect.tokens.output !== undefined && output > expect.tokens.output) fail('tokens.output', `${output} output tokens, over the bound of ${expect.tokens.output}`);
    if (expect.tokens.total !== undefined && input + output > expect.tokens.total) fail('tokens.total', `${input + output} tokens in all (${source}), over the bound of ${expect.tokens.total}`);
  }
  if (expect.stop && seen.stop !== expect.stop) fail('stop', `expected the turn to end with ${expect.stop}; it ended with ${seen.stop}`);
  return failures;
}

/**
 * Why the answer does not cite `tool`'s sources ("*": any tool's), or null when it cites one: as
 * `[n]` with that source's number, or by its URL.
 */
function uncited(tool: string, answer: string, references: readonly TurnReference[]): string | null {
  const own = references.filter((r) => tool === '*' || r.tool === tool);
  const whose = tool === '*' ? 'any tool' : tool;
  if (!own.length) return `${whose} gave no sources in the turn, so the answer could cite none`;
  const cited = new Set([...answer.matchAll(/\[(\d{1,3})\]/g)].map((m) => Number(m[1])));
  if (own.some((r) => cited.has(r.n) || answer.includes(r.url))) return null;
  const listed = own.slice(0, 3).map((r) => `[${r.n}] ${r.url}`).join(', ');
  return `expected the answer to cite a source of ${whose} (${listed}${own.length > 3 ? ', ...' : ''})`;
}

function names(calls: readonly ObservedCall[]): string {
  const list = calls.map((c) => c.name);
  return list.length > 6 ? `${list.slice(0, 6).join(', ')}, ... (${list.length} calls)` : list.join(', ');
}

function outside(n: number, range: CountBound): string | null {
  if (range.min !== undefined && range.max !== undefined && range.min === range.max) return n === range.min ? null : `expected ${range.min}, got ${n}`;
  if (range.min !== undefined && n < range.min) return `expected at least ${range.min}, got ${n}`;
  if (range.max !== undefined && n > range.max) return `expected at most ${range.max}, got ${n}`;
  return null;
}

/** `delete_*`-style patterns over names; anything else is an exact name. */
export function globMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === name;
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(name);
}

/** Why `call` does not satisfy `expected`, or null when it does. */
function callMismatch(expected: CallExpectation, call: ObservedCall): string | null {
  if (call.name !== expected.tool) return `called ${call.name}`;
  // Named right but never run (bad arguments, not offered, over the cap): not the call the case asks for.
  if (call.malformed || call.refused) return `the call was refused before it ran: ${call.error ?? 'its arguments were not usable'}`;
  for (const [arg, matcher] of Object.entries(expected.args ?? {})) {
    const args = call.arguments !== null && typeof call.arguments === 'object' && !Array.isArray(call.arguments) ? (call.arguments as Record<string, unknown>) : {};
    const miss = mismatch(Object.hasOwn(args, arg) ? args[arg] : undefined, matcher, arg);
    if (miss) return miss;
  }
  return null;
}

/** The message for an expected call no actual call satisfied. */
function missing(expected: CallExpectation, candidates: readonly ObservedCall[], all: readonly ObservedCall[], note = ''): string {
  const same = candidates.filter((c) => c.name === expected.tool);
  if (same.length) return `${expected.tool} was called, but ${callMismatch(expected, same[same.length - 1]!)}${same.length > 1 ? ` (and ${same.length - 1} other call${same.length > 2 ? 's' : ''} of it did not match either)` : ''}${note}`;
  if (all.some((c) => c.name === expected.tool)) return `${expected.tool} was called, but not in the expected order${note}`;
  return `${expected.tool} was not called; ${all.length ? `called instead: ${names(all)}` : 'no tool was called'}${note}`;
}

function checkCalls(expected: readonly CallExpectation[], order: string, calls: readonly ObservedCall[]): Failure[] {
  const failures: Failure[] = [];
  const label = (i: number) => `calls[${i}] ${expected[i]!.tool}`;
  if (order === 'exact') {
    for (let i = 0; i < Math.max(expected.length, calls.length); i++) {
      const e = expected[i];
      const c = calls[i];
      if (!e) failures.push({ expectation: 'calls (exact)', message: `unexpected extra call number ${i + 1}: ${c!.name}` });
      else if (!c) failures.push({ expectation: label(i), message: `${e.tool} was not called (only ${calls.length} call${calls.length === 1 ? '' : 's'} made)` });
      else {
        const miss = callMismatch(e, c);
        if (miss) failures.push({ expectation: label(i), message: c.name === e.tool ? `call number ${i + 1}: ${miss}` : `call number ${i + 1} was ${c.name}, expected ${e.tool}` });
      }
    }
    return failures;
  }
  if (order === 'in_order') {
    // Earliest matches first: leaves the most room for the expectations after (optimal for subsequences).
    let from = 0;
    expected.forEach((e, i) => {
      const at = calls.findIndex((c, j) => j >= from && callMismatch(e, c) === null);
      if (at < 0) failures.push({ expectation: label(i), message: missing(e, calls.slice(from), calls) });
      else from = at + 1;
    });
    return failures;
  }
  // any_order and subset: a maximum matching of expectations to distinct calls.
  const assigned = maximumMatching(expected.length, calls.length, (i, j) => callMismatch(expected[i]!, calls[j]!) === null);
  const used = new Set(assigned.filter((j) => j >= 0));
  expected.forEach((e, i) => {
    if (assigned[i]! < 0) failures.push({ expectation: label(i), message: missing(e, calls.filter((_, j) => !used.has(j)), calls) });
  });
  if (order === 'any_order') {
    const named = new Set(expected.map((e) => e.tool));
    const others = calls.filter((c) => !named.has(c.name));
    if (others.length) failures.push({ expectation: 'calls (any_order)', message: `also called ${names(others)}; any_order allows no other tool (use subset to allow them)` });
  }
  return failures;
}

/** Kuhn's augmenting paths: for each left item the right item it gets, or -1. Sizes are a few dozen at most. */
function maximumMatching(left: number, right: number, fits: (i: number, j: number) => boolean): number[] {
  const owner = new Array<number>(right).fill(-1);
  const tryAssign = (i: number, seen: Set<number>): boolean => {
    for (let j = 0; j < right; j++) {
      if (seen.has(j) || !fits(i, j)) continue;
      seen.add(j);
      if (owner[j] === -1 || tryAssign(owner[j]!, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < left; i++) tryAssign(i, new Set());
  const result = new Array<number>(left).fill(-1);
  owner.forEach((i, j) => {
    if (i >= 0) result[i] = j;
  });
  return result;
}
