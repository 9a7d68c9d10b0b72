import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/catalog/create-ajv.js';
import { checkExpectations, type Observation, type ObservedCall } from '../../src/testing/check-expectations.js';
import type { Expectations } from '../../src/testing/suite-types.js';
import { mismatch, parseArgMatchers, parseMatcher, MatcherError } from '../../src/testing/value-matchers.js';

const call = (name: string, args: unknown = {}, extra: Partial<ObservedCall> = {}): ObservedCall => ({ turn: 1, round: 1, name, arguments: args, ok: true, error: null, meta: false, malformed: false, approval: null, ...extra });
const seen = (calls: ObservedCall[], extra: Partial<Observation> = {}): Observation => ({ calls, answer: '', rounds: calls.length + 1, stop: 'done', usage: { input: 100, output: 10, estimated_input: 90, reported: true, side: [] }, references: [], evaluations: [], ...extra });
const expecting = (e: Partial<Expectations>): Expectations => ({ order: 'in_order', ...e });
const calls = (list: { tool: string; args?: Record<string, unknown> }[]) => list.map((c) => ({ tool: c.tool, ...(c.args ? { args: parseArgMatchers(c.args, '') } : {}), source: c }));

describe('argument matchers: each kind passes and fails with a reason', () => {
  it.each([
    ['plain value', 'Oslo', 'Oslo', 'Bergen', 'expected "Oslo", got "Bergen"'],
    ['object subset', { a: 1 }, { a: 1, b: 2 }, { a: 2, b: 2 }, 'x.a: expected 1, got 2'],
    ['equals (exact object)', { equals: { a: 1 } }, { a: 1 }, { a: 1, b: 2 }, 'expected {"a":1}'],
    ['contains (case-insensitive)', { contains: 'standup' }, 'Daily Standup', 'Lunch', 'expected to contain "standup", got "Lunch"'],
    ['not_contains', { not_contains: 'urgent' }, 'calm', 'URGENT now', 'expected not to contain "urgent"'],
    ['regex (RE2)', { regex: '^2026-11-23T09' }, '2026-11-23T09:00:00Z', '2026-11-24T09:00:00Z', 'expected to match /^2026-11-23T09/'],
    ['includes (text in a list)', { includes: 'dana' }, ['ana@x.com', 'dana@x.com'], ['ana@x.com'], 'expected a list including an item containing "dana"'],
    ['includes (object in a list)', { includes: { id: 2 } }, [{ id: 1 }, { id: 2, x: 1 }], [{ id: 1 }], 'expected a list including a matching item'],
    ['one_of', { one_of: ['metric', 'imperial'] }, 'metric', 'kelvin', 'expected one of ["metric","imperial"], got "kelvin"'],
    ['schema', { schema: { type: 'integer', minimum: 1 } }, 3, 0, 'does not match the schema'],
    ['exists: false', { exists: false }, undefined, 'x', 'expected to be absent'],
    ['exists: true', { exists: true }, 'x', undefined, 'expected to be given'],
    ['several at once', { contains: 'a', not_contains: 'b' }, 'a', 'ab', 'expected not to contain "b"'],
  ])('%s', (_label, raw, good, bad, reason) => {
    const matcher = parseMatcher(raw);
    expect(mismatch(good, matcher, 'x')).toBeNull();
    expect(mismatch(bad, matcher, 'x')).toContain(reason);
  });

  it.each([{ type: 'nope' }, { minimum: 'a' }, { properties: { a: { type: 3 } } }, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }])('says what ajv says of a schema it refuses, without ajv compiling the meta-schema (%j)', (schema) => {
    let ajvSays = '';
    try {
      createAjv({ strict: false, allErrors: false }).compile(schema);
    } catch (error) {
      ajvSays = (error as Error).message;
    }
    expect(ajvSays).not.toBe('');
    expect(() => parseMatcher({ schema }, '/args/a')).toThrow(`not a valid JSON Schema: ${ajvSays}`);
  });

  it('refuses matchers that cannot work, pointing at them', () => {
    expect(() => parseMatcher({ regex: '(?=lookahead)' }, '/args/a')).toThrow(MatcherError);
    expect(() => parseMatcher({ schema: { type: 'nope' } }, '/args/a')).toThrow(/not a valid JSON Schema/);
    expect(() => parseMatcher({ one_of: [] })).toThrow(/non-empty list/);
    try {
      parseMatcher({ contains: 'x', color: 'red' }, '/args/a');
      expect.unreachable();
    } catch (error) {
      expect((error as MatcherError).pointer).toBe('/args/a/color');
    }
  });

  it('treats __proto__ as an ordinary argument name', () => {
    const matcher = parseMatcher(JSON.parse('{"__proto__": {"contains": "x"}}'));
    expect(mismatch(JSON.parse('{"__proto__": "xyz"}'), matcher, '')).toBeNull();
    expect(mismatch({}, matcher, '')).toContain('__proto__');
  });
});

describe('call expectations', () => {
  const expected = calls([{ tool: 'a', args: { n: 1 } }, { tool: 'b' }]);
  it.each([
    ['in_order', [call('x'), call('a', { n: 1 }), call('y'), call('b')], [call('b'), call('a', { n: 1 })], 'b was called, but not in the expected order'],
    ['any_order', [call('b'), call('a', { n: 1 })], [call('b'), call('a', { n: 1 }), call('c')], 'also called c'],
    ['subset', [call('b'), call('c'), call('a', { n: 1 })], [call('b'), call('c')], 'a was not called; called instead: b, c'],
    ['exact', [call('a', { n: 1 }), call('b')], [call('a', { n: 1 }), call('b'), call('b')], 'unexpected extra call number 3: b'],
  ] as const)('%s passes and fails', (order, good, bad, reason) => {
    expect(checkExpectations(expecting({ calls: expected, order }), seen([...good]))).toEqual([]);
    expect(checkExpectations(expecting({ calls: expected, order }), seen([...bad])).map((f) => f.message).join('\n')).toContain(reason);
  });

  it('names the argument that did not match', () => {
    const failures = checkExpectations(expecting({ calls: expected }), seen([call('a', { n: 2 }), call('b')]));
    expect(failures).toEqual([{ expectation: 'calls[0] a', message: 'a was called, but n: expected 1, got 2' }]);
  });

  it('matches overlapping expectations to distinct calls (any order)', () => {
    const overlap = calls([{ tool: 'a' }, { tool: 'a', args: { n: 1 } }]);
    // Greedy would give the first expectation the only call with n: 1 and fail the second.
    expect(checkExpectations(expecting({ calls: overlap, order: 'subset' }), seen([call('a', { n: 1 }), call('a', { n: 2 })]))).toEqual([]);
  });

  it('counts a meta-tool the expectations name: job_next read, job_stop not called', () => {
    const run = seen([call('run_tests'), call('job_next', { job_id: 'job_1' }, { meta: true }), call('tool_search', {}, { meta: true })]);
    expect(checkExpectations(expecting({ calls: calls([{ tool: 'run_tests' }, { tool: 'job_next', args: { job_id: 'job_1' } }]), order: 'exact' }), run)).toEqual([]);
    expect(checkExpectations(expecting({ not_called: ['job_next'] }), run)).toEqual([{ expectation: 'not_called job_next', message: 'called job_next' }]);
    expect(checkExpectations(expecting({ call_count: { job_next: { min: 2, max: 2 } } }), run)).toEqual([{ expectation: 'call_count job_next', message: 'calls of job_next: expected 2, got 1' }]);
  });

  it('leaves meta-tools out of call matching', () => {
    expect(checkExpectations(expecting({ calls: calls([{ tool: 'b' }]), order: 'exact' }), seen([call('tool_search', {}, { meta: true }), call('b')]))).toEqual([]);
  });
});

describe('other expectations', () => {
  it('no_tool: an abstention passes, a call fails, a malformed call is a failure', () => {
    expect(checkExpectations(expecting({ no_tool: true }), seen([call('tool_search', {}, { meta: true })]))).toEqual([]);
    expect(checkExpectations(expecting({ no_tool: true }), seen([call('a')]))[0]!.message).toBe('expected no tool call, but called a');
    expect(checkExpectations(expecting({ no_tool: true }), seen([call('zzz', '{bad', { ok: false, error: 'unknown tool', malformed: true })]))[0]!.message).toContain('malformed call');
  });

  it('not_called takes patterns', () => {
    expect(checkExpectations(expecting({ not_called: ['delete_*'] }), seen([call('delete_event')]))[0]).toEqual({ expectation: 'not_called delete_*', message: 'called delete_event' });
    expect(checkExpectations(expecting({ not_called: ['delete_*'] }), seen([call('get')]))).toEqual([]);
  });

  it('call counts, rounds, stop', () => {
    const e = expecting({ call_count: { a: { min: 2, max: 2 }, '*': { max: 2 } }, rounds: { max: 2 }, stop: 'done' });
    expect(checkExpectations(e, seen([call('a'), call('a')], { rounds: 2 }))).toEqual([]);
    const failures = checkExpectations(e, seen([call('a'), call('b'), call('c')], { rounds: 4, stop: 'max_rounds' })).map((f) => `${f.expectation}: ${f.message}`);
    expect(failures).toEqual([
      'call_count a: calls of a: expected 2, got 1',
      'call_count *: tool calls: expected at most 2, got 3',
      'rounds: rounds: expected at most 2, got 4',
      'stop: expected the turn to end with done; it ended with max_rounds',
    ]);
  });

  it('the answer: contains, not_contains, regex, equals', () => {
    const e = expecting({ answer: { contains: ['Oslo'], not_contains: ['error'], regex: '\\d+ ?°C', equals: 'Oslo: 3 °C' } });
    expect(checkExpectations(e, seen([], { answer: 'Oslo: 3 °C' }))).toEqual([]);
    expect(checkExpectations(e, seen([], { answer: 'an error occurred' })).map((f) => f.expectation)).toEqual(['answer.contains', 'answer.not_contains', 'answer.regex', 'answer.equals']);
  });

  it('approvals asked, exactly', () => {
    const e = expecting({ approvals: ['cancel_booking'] });
    expect(checkExpectations(e, seen([call('cancel_booking', {}, { approval: 'approved' })]))).toEqual([]);
    expect(checkExpectations(e, seen([call('cancel_booking')]))[0]!.message).toContain('it was asked for none');
  });

  it('tokens under a bound, from the API, else toolman\'s estimate', () => {
    const e = expecting({ tokens: { input: 95, total: 105 } });
    expect(checkExpectations(e, seen([])).map((f) => f.message)).toEqual(['100 input tokens (API-reported), over the bound of 95', '110 tokens in all (API-reported), over the bound of 105']);
    expect(checkExpectations(e, seen([], { usage: { input: 0, output: 0, estimated_input: 90, reported: false, side: [] } }))).toEqual([]);
  });

  it('tokens bound the whole turn: the side calls (summaries, rubric grades) count, and the message says how much of it they were', () => {
    const side = [{ provider: 'openai', model: 'small-model', calls: 2, input: 4802, output: 80, cached: 0, unreported: 0, cost_usd: null }];
    // 571 of the conversation's own + 4,802 of the side calls: the totals are what the APIs were sent.
    const usage = { input: 571 + 4802, output: 20 + 80, cached: 0, estimated_input: 600, reported: true, side };
    const failures = checkExpectations(expecting({ tokens: { input: 1000, output: 50, total: 2000 } }), seen([], { usage }));
    expect(failures.map((f) => f.message)).toEqual([
      '5373 input tokens (API-reported, 4802 of them from 2 side calls), over the bound of 1000',
      '100 output tokens (80 of them from 2 side calls), over the bound of 50',
      '5473 tokens in all (API-reported, 4882 of them from 2 side calls), over the bound of 2000',
    ]);
    // The conversation's API reported nothing: toolman's count of its requests stands in, and the side calls' own counts are added.
    const unreported = { input: 4802, output: 80, cached: 0, estimated_input: 600, reported: false, side };
    expect(checkExpectations(expecting({ tokens: { input: 5000 } }), seen([], { usage: unreported })).map((f) => f.message)).toEqual(["5402 input tokens (toolman's estimate, 4802 of them from 2 side calls), over the bound of 5000"]);
  });
});

describe('answer.cites and evaluations', () => {
  const references = [
    { n: 1, url: 'https://intranet.example.com/hr/leave', title: 'Leave', tool: 'search_intranet', call_id: 'c1' },
    { n: 2, url: 'https://example.org/news', tool: 'web_search', call_id: 'c2' },
  ];
  const cites = (answer: string, tools: string[]) => checkExpectations(expecting({ answer: { cites: tools } }), seen([], { answer, references }));

  it('cites: a [n] of one of the tool\'s sources, or its URL, in the answer', () => {
    expect(cites('Twenty weeks [1].', ['search_intranet'])).toEqual([]);
    expect(cites('See https://intranet.example.com/hr/leave for more.', ['search_intranet'])).toEqual([]);
    expect(cites('Both [1][2].', ['search_intranet', 'web_search'])).toEqual([]);
    expect(cites('News [2].', ['*'])).toEqual([]);
  });

  it('cites fails when the answer cites another tool\'s source, none, or the tool gave none', () => {
    expect(cites('News [2].', ['search_intranet'])).toEqual([{ expectation: 'answer.cites search_intranet', message: 'expected the answer to cite a source of search_intranet ([1] https://intranet.example.com/hr/leave); it was "News [2]."' }]);
    expect(cites('Twenty weeks.', ['*'])[0]!.message).toContain('expected the answer to cite a source of any tool');
    expect(cites('[3] is not a source.', ['web_search'])[0]!.message).toContain('[2] https://example.org/news');
    expect(cites('Twenty weeks [1].', ['fetch_url'])[0]!.message).toBe('fetch_url gave no sources in the turn, so the answer could cite none; it was "Twenty weeks [1]."');
  });

  const verdict = (name: string, v: 'pass' | 'fail' | 'error', reason?: string) => ({ name, verdict: v, on: 'answer' as const, tools: ['t'], ...(reason ? { reason } : {}) });
  const evaluate = (wanted: Record<string, 'pass' | 'fail' | 'error'>, evaluations: ReturnType<typeof verdict>[]) => checkExpectations(expecting({ evaluations: wanted }), seen([], { evaluations }));

  it('evaluations: each named check must reach its verdict; one failed run fails it, one undecided run leaves it undecided', () => {
    expect(evaluate({ no_pii: 'pass', grounded: 'fail' }, [verdict('no_pii', 'pass'), verdict('grounded', 'fail', 'adds a date')])).toEqual([]);
    expect(evaluate({ no_pii: 'pass' }, [verdict('no_pii', 'pass'), verdict('no_pii', 'fail', 'the answer matches /@/')])).toEqual([{ expectation: 'evaluations no_pii', message: 'expected no_pii to pass; it failed: the answer matches /@/' }]);
    expect(evaluate({ grounded: 'pass' }, [verdict('grounded', 'error', 'no model to grade the rubric with')])[0]!.message).toBe('expected grounded to pass; it could not be decided: no model to grade the rubric with');
    expect(evaluate({ grounded: 'error' }, [verdict('grounded', 'error')])).toEqual([]);
  });

  it('a check that never ran is a failure, not a pass', () => {
    expect(evaluate({ no_pii: 'pass' }, [])).toEqual([{ expectation: 'evaluations no_pii', message: 'no_pii did not run: no tool that lists it in evaluation: was used' }]);
  });
});
