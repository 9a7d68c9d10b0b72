import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { ToolPanel } from '../../src/repl/components.js';
import { routeConsole } from '../../src/repl/console-notes.js';
import type { CallRecord, ToolResponse } from '../../src/execute/types.js';
import type { LoopEvent } from '../../src/loop/loop-events.js';
import { edit, EMPTY_LINE, InputHistory, lineOf, type KeyAction } from '../../src/repl/line-editor.js';
import { TerminalKeys } from '../../src/repl/terminal-keys.js';
import { panelMarkers } from '../../src/repl/panel-view.js';
import { describeChoice, initialState, reduce, statusParts, type Item, type ReplAction, type ReplState } from '../../src/repl/repl-state.js';
import { COMMANDS, parseInput } from '../../src/repl/slash-commands.js';
import { displayText, plainText } from '../../src/repl/terminal-text.js';

const start = () => initialState({ provider: 'openai', model: 'gpt-test', profile: 'full', active: 3, deferred: 1, found: 0, forced: [], budget: 2000, search: 'client', yes: false });
const run = (actions: ReplAction[], state: ReplState = start()) => actions.reduce(reduce, state);
const ev = (event: LoopEvent): ReplAction => ({ type: 'event', event, now: 1000 });
/** A decoded call as the session records it: named directly, the catalog tool of the same name. */
const record = (id: string, name: string, args: unknown = {}): CallRecord => ({ id, name, tool: name, arguments: args, via: 'direct', meta: false });
const response = (id: string, name: string, extra: Record<string, unknown> = {}): ToolResponse => ({ id, name, tool: name, ok: true, content: '{"ok":true}', error: null, error_kind: null, deduplicated: false, truncated: false, original_tokens: null, duration_ms: 5, ...extra }) as ToolResponse;
const NO_USAGE = { input: 0, output: 0, cached: 0, estimated_input: null, side: [] };
const panels = (state: ReplState) => state.items.filter((i): i is Extract<Item, { kind: 'panel' }> => i.kind === 'panel').map((i) => i.panel);

describe('the reducer: loop events to the view model', () => {
  it('streams text into one reply per round, settled (and committed) when the round ends', () => {
    let s = run([{ type: 'user', text: 'hi' }, { type: 'turn_begin' }, ev({ type: 'text', round: 1, delta: 'Hel' }), ev({ type: 'text', round: 1, delta: 'lo' })]);
    expect(s.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'Hello', settled: false });
    expect(s.committed).toBe(1);
    s = run([ev({ type: 'round_end', round: 1 })], s);
    expect(s.items.at(-1)).toMatchObject({ settled: true });
    expect(s.committed).toBe(2);
  });

  it('follows a tool call from requested to running to done, with its duration and result', () => {
    let s = run([{ type: 'turn_begin' }, ev({ type: 'tool_calls', round: 1, calls: [record('c1', 'get_weather', { city: 'Oslo' })] })]);
    expect(panels(s)[0]).toMatchObject({ n: 1, status: 'requested', result: null });
    s = run([{ type: 'event', event: { type: 'tool_status', round: 1, id: 'c1', name: 'get_weather', status: 'running' }, now: 500 }], s);
    expect(panels(s)[0]).toMatchObject({ status: 'running', startedAt: 500 });
    expect(s.committed).toBe(0);
    s = run([ev({ type: 'tool_status', round: 1, id: 'c1', name: 'get_weather', status: 'done', duration_ms: 12 }), ev({ type: 'tool_result', round: 1, response: response('c1', 'get_weather') })], s);
    expect(panels(s)[0]).toMatchObject({ status: 'done', durationMs: 12, result: { ok: true, content: '{"ok":true}' } });
    expect(s.committed).toBe(1);
  });

  it('marks truncated, deduplicated, refused (each refusal kind), declined and failed calls', () => {
    const kinds = ['not_available', 'unknown_tool', 'invalid_arguments', 'over_limit', 'must_run_alone'] as const;
    const calls = [...kinds.map((k, i) => ({ id: `r${i}`, name: k })), { id: 't', name: 'big' }, { id: 'd', name: 'dup' }, { id: 'x', name: 'rm' }, { id: 'e', name: 'down' }];
    const s = run([
      { type: 'turn_begin' },
      ev({ type: 'tool_calls', round: 1, calls: calls.map((c) => record(c.id, c.name)) }),
      ...kinds.map((k, i) => ev({ type: 'tool_result', round: 1, response: response(`r${i}`, k, { ok: false, error: 'no', error_kind: k }) })),
      ev({ type: 'tool_result', round: 1, response: response('t', 'big', { truncated: true, original_tokens: 900 }) }),
      ev({ type: 'tool_result', round: 1, response: response('d', 'dup', { deduplicated: true }) }),
      ev({ type: 'tool_approval', round: 1, id: 'x', name: 'rm', decision: 'decline' }),
      ev({ type: 'tool_result', round: 1, response: response('x', 'rm', { ok: false, error: 'declined', error_kind: 'declined' }) }),
      ev({ type: 'tool_result', round: 1, response: response('e', 'down', { ok: false, error: 'down', error_kind: 'tool_error' }) }),
    ]);
    expect(panels(s).map(panelMarkers)).toEqual([
      ...kinds.map((k) => [`refused: ${k}`]),
      ['truncated from ~900 tokens'],
      ['deduplicated'],
      // Its status word says it: "declined", not a failure with a marker.
      [],
      ['error: tool_error'],
    ]);
    expect(panels(s).every((p) => p.status !== 'requested')).toBe(true);
  });

  it('expands a live panel in place, a committed one as a copy below, and says when there is no such call', () => {
    let s = run([{ type: 'turn_begin' }, ev({ type: 'tool_calls', round: 1, calls: [record('c1', 'slow')] })]);
    s = run([{ type: 'expand' }], s);
    expect(panels(s)[0]!.expanded).toBe(true);
    s = run([{ type: 'expand', n: 1 }], s);
    expect(panels(s)[0]!.expanded).toBe(false);
    s = run([ev({ type: 'tool_result', round: 1, response: response('c1', 'slow') }), { type: 'turn_end', summary: { answer: '', stop: 'done', rounds: 1, calls: [], usage: { input: 0, output: 0, cached: 0, estimated_input: 0, side: [] }, took_control: null, references: [], evaluations: [] } }, { type: 'expand', n: 1 }], s);
    expect(s.items.at(-1)).toMatchObject({ kind: 'expanded', panel: { n: 1, expanded: true } });
    s = run([{ type: 'expand', n: 7 }], s);
    expect(s.items.at(-1)).toMatchObject({ kind: 'note', level: 'error', text: 'no tool call #7; they are numbered 1 to 1' });
  });

  it('sums the API usage and toolman estimate over the session for the status line', () => {
    const s = run([ev({ type: 'usage', round: 1, usage: { input: 100, output: 5, cached: 20 }, estimated_input: 98 }), ev({ type: 'usage', round: 2, usage: { input: 150, output: 7, cached: 0 }, estimated_input: 140 }), { type: 'status', status: { definitions: 2100, found: 1 } }]);
    expect(s.status.usage).toEqual({ input: 250, output: 12, cached: 20, estimated: 238, requests: 2, side: { calls: 0, input: 0, output: 0 } });
    expect(statusParts(s.status)).toEqual(['openai gpt-test', 'profile full', '3 active, 1 deferred, 1 found', 'tokens 250 in (toolman est. 238), 20 cached, 12 out', 'definitions 2,100/2,000 over budget']);
  });

  it("adds each turn's side calls (summaries, grades) from its summary, shown apart on the status line", () => {
    const side = [{ provider: 'openai', model: 'small-model', calls: 1, input: 4802, output: 60, cached: 0, unreported: 0 }, { provider: 'openai', model: 'gpt-test', calls: 1, input: 312, output: 8, cached: 0, unreported: 0 }];
    const summary = { answer: '', stop: 'done', rounds: 2, calls: [], usage: { input: 571 + 5114, output: 30 + 68, cached: 0, estimated_input: 600, side }, took_control: null, references: [], evaluations: [] } as const;
    const s = run([{ type: 'turn_begin' }, ev({ type: 'usage', round: 1, usage: { input: 571, output: 30, cached: 0 }, estimated_input: 600 }), { type: 'turn_end', summary: summary as never }]);
    expect(s.status.usage).toMatchObject({ input: 571, output: 30, side: { calls: 2, input: 5114, output: 68 } });
    expect(statusParts(s.status)).toContain('side calls 2: 5,114 in, 68 out');
  });

  it('a call done before its result arrives (a sibling still runs) is drawn ✓, never ✗', () => {
    const s = run([
      { type: 'turn_begin' },
      ev({ type: 'tool_calls', round: 1, calls: [record('c1', 'get_weather'), record('c2', 'slow_task')] }),
      ev({ type: 'tool_status', round: 1, id: 'c1', name: 'get_weather', status: 'running' }),
      ev({ type: 'tool_status', round: 1, id: 'c2', name: 'slow_task', status: 'running' }),
      ev({ type: 'tool_status', round: 1, id: 'c1', name: 'get_weather', status: 'done', duration_ms: 12 }),
    ]);
    const [done, running] = panels(s);
    expect(done).toMatchObject({ status: 'done', result: null });
    const frame = render(createElement(ToolPanel, { panel: done!, frame: 0, now: 2000 })).lastFrame()!;
    expect(frame).toMatch(/^✓ #1 get_weather \{\}\n {2}done 12 ms/);
    expect(render(createElement(ToolPanel, { panel: running!, frame: 0, now: 1500 })).lastFrame()).toMatch(/^⠋ #2 slow_task \{\}\n {2}running 500 ms/);
  });

  it("leaves the wait for the user's approval out of a call's duration", () => {
    const at = (now: number, event: LoopEvent): ReplAction => ({ type: 'event', event, now });
    const s = run([
      { type: 'turn_begin' },
      ev({ type: 'tool_calls', round: 1, calls: [record('a', 'delete_event'), record('b', 'delete_event')] }),
      at(0, { type: 'tool_status', round: 1, id: 'a', name: 'delete_event', status: 'awaiting_approval', arguments: {}, reason: 'destructive' }),
      at(9000, { type: 'tool_approval', round: 1, id: 'a', name: 'delete_event', decision: 'approve' }),
      at(9000, { type: 'tool_status', round: 1, id: 'a', name: 'delete_event', status: 'running' }),
      at(9040, { type: 'tool_status', round: 1, id: 'a', name: 'delete_event', status: 'done', duration_ms: 9041 }),
      at(9040, { type: 'tool_status', round: 1, id: 'b', name: 'delete_event', status: 'awaiting_approval', arguments: {}, reason: 'destructive' }),
      at(15000, { type: 'tool_approval', round: 1, id: 'b', name: 'delete_event', decision: 'decline' }),
      at(15000, { type: 'tool_status', round: 1, id: 'b', name: 'delete_event', status: 'error', duration_ms: 5960, error: 'declined', error_kind: 'declined' }),
      at(15000, { type: 'tool_result', round: 1, response: response('a', 'delete_event', { duration_ms: 9041 }) }),
      at(15000, { type: 'tool_result', round: 1, response: response('b', 'delete_event', { ok: false, error: 'declined', error_kind: 'declined', duration_ms: 5960 }) }),
    ]);
    expect(panels(s).map((p) => p.durationMs)).toEqual([40, null]);
    const declined = render(createElement(ToolPanel, { panel: panels(s)[1]!, frame: 0, now: 15000 })).lastFrame()!;
    expect(declined).toMatch(/^⊘ #2 delete_event \{\}\n {2}declined · you declined it$/m);
    expect(declined).not.toMatch(/failed|\[declined\]/);
  });

  it('ends a turn with what stopped it', () => {
    const end = (stop: 'took_control' | 'cancelled' | 'max_rounds', extra: Record<string, unknown> = {}) => run([{ type: 'turn_begin' }, ev({ type: 'done', stop, answer: 'Report', rounds: 2, took_control: null, usage: NO_USAGE, ...extra })]).items.at(-1);
    // The tool that took control comes as data, whatever the message says.
    expect(end('took_control', { took_control: 'deep_research', message: 'something else entirely' })).toMatchObject({ kind: 'assistant', text: 'Report', via: 'deep_research' });
    expect(end('cancelled')).toMatchObject({ kind: 'note', text: 'turn cancelled; what was said so far is kept' });
    expect(end('max_rounds', { message: 'stopped after 4 rounds' })).toMatchObject({ kind: 'note', level: 'warning', text: 'stopped (max_rounds): stopped after 4 rounds' });
  });

  it("describes toolman's own tool choice (no provider's shape reaches the REPL)", () => {
    expect(describeChoice({ type: 'auto' })).toBeNull();
    expect(describeChoice({ type: 'tool', name: 'get_weather' })).toBe('get_weather is required');
    expect(describeChoice({ type: 'required', names: ['get_weather', 'find_flights'] })).toBe('one of get_weather, find_flights is required');
  });
});

describe('the input line', () => {
  const keys = (...raw: string[]) => {
    const decoder = new TerminalKeys();
    return raw.flatMap((r) => decoder.push(r));
  };
  it('splits a run of typed text at Enter, Backspace and Ctrl-C, and drops other controls', () => {
    expect(keys('ab\r')).toEqual([{ type: 'insert', text: 'ab' }, { type: 'enter' }]);
    expect(keys('x\r\n')).toEqual([{ type: 'insert', text: 'x' }, { type: 'enter' }]);
    expect(keys('a\u007fb\u0003')).toEqual([{ type: 'insert', text: 'a' }, { type: 'backspace' }, { type: 'insert', text: 'b' }, { type: 'ctrl_c' }]);
    expect(keys('a\u0007\u009bb')).toEqual([{ type: 'insert', text: 'ab' }]);
    expect(keys('\u0003')).toEqual([{ type: 'ctrl_c' }]);
    expect(keys('\u001b[A')).toEqual([{ type: 'up' }]);
    expect(keys('\u007f')).toEqual([{ type: 'backspace' }]);
  });

  it('edits by code point: insert, backspace, cursor moves, kills', () => {
    const apply = (actions: KeyAction[], state = EMPTY_LINE) => actions.reduce(edit, state);
    expect(apply([{ type: 'insert', text: 'héllo 🌍' }, { type: 'backspace' }, { type: 'left' }, { type: 'insert', text: '!' }])).toEqual({ text: 'héllo! ', cursor: 6 });
    expect(apply([{ type: 'home' }, { type: 'delete' }], lineOf('abc'))).toEqual({ text: 'bc', cursor: 0 });
    expect(apply([{ type: 'kill_word' }], lineOf('one two'))).toEqual({ text: 'one ', cursor: 4 });
    expect(apply([{ type: 'word_left' }, { type: 'kill_to_end' }], lineOf('one two'))).toEqual({ text: 'one ', cursor: 4 });
    expect(apply([{ type: 'left' }, { type: 'kill_line' }], lineOf('abc'))).toEqual({ text: 'c', cursor: 0 });
  });

  it('browses history up and down, keeping the draft', () => {
    const history = new InputHistory();
    history.push('first');
    history.push('second');
    history.push('second');
    expect(history.all).toEqual(['first', 'second']);
    expect(history.up('draft')).toBe('second');
    expect(history.up('second')).toBe('first');
    expect(history.up('first')).toBeUndefined();
    expect(history.down()).toBe('second');
    expect(history.down()).toBe('draft');
    expect(history.down()).toBeUndefined();
  });
});

describe('slash commands', () => {
  it('parses commands, arguments, messages, and suggests the closest for unknown ones', () => {
    expect(parseInput('  ')).toEqual({ kind: 'empty' });
    expect(parseInput('hello')).toEqual({ kind: 'message', text: 'hello' });
    expect(parseInput('//etc is a path')).toEqual({ kind: 'message', text: '/etc is a path' });
    expect(parseInput('/show  get_weather ')).toMatchObject({ kind: 'command', name: 'show', args: 'get_weather' });
    expect(parseInput('/QUIT')).toMatchObject({ kind: 'command', name: 'exit' });
    expect(parseInput('/hepl')).toEqual({ kind: 'unknown', name: 'hepl', suggestion: 'help' });
    expect(parseInput('/budgte')).toEqual({ kind: 'unknown', name: 'budgte', suggestion: 'budget' });
    expect(parseInput('/zzzzzz')).toEqual({ kind: 'unknown', name: 'zzzzzz' });
  });

  it('has every command the issue names', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(expect.arrayContaining(['tools', 'profile', 'force', 'search', 'budget', 'show', 'history', 'save', 'reset', 'help', 'exit']));
  });
});

describe('untrusted text', () => {
  it('loses every control sequence, and tabs become spaces', () => {
    expect(plainText('a\u001b]0;title\u0007b\u001b[2Jc\u001b]52;c;Zm9v\u001b\\d\re')).toBe('abcde');
    expect(displayText('a\tb')).toBe('a  b');
  });

  it('the status line draws model, provider, profile and forced tools without control sequences', () => {
    const status = { ...start().status, provider: 'openai\u001b[2J', model: 'gpt\u001b]0;title\u0007-x\u001b]52;c;Zm9v\u0007', profile: 'full\u009b31m', forced: ['get\u001b[1mweather\n'] };
    const parts = statusParts(status);
    expect(parts.slice(0, 2)).toEqual(['openai gpt-x', 'profile full31m']);
    expect(parts).toContain('next turn forces getweather');
    expect(parts.join('')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('console output is routed while the REPL runs, then the console is put back', async () => {
    const target = { log: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Console;
    const warn = target.warn;
    const notes: string[] = [];
    const restore = routeConsole((text, method) => notes.push(`${method}: ${text}`), target);
    target.warn('deprecated %s', 'thing', { a: 1 });
    target.error(new Error('boom'));
    target.log('');
    expect(notes).toEqual([]);
    await Promise.resolve();
    expect(notes[0]).toBe("warn: deprecated thing { a: 1 }");
    expect(notes[1]).toMatch(/^error: Error: boom/);
    expect(notes).toHaveLength(2);
    restore();
    expect(target.warn).toBe(warn);
  });
});
