import { describe, expect, it } from 'vitest';
import type { ElicitRequest } from '../../src/manager/mcp-client.js';
import { AskingCall, ParkedCalls } from '../../src/serve/parked-calls.js';
import { canAsk, clientAnswer, relayedQuestion, unansweredText } from '../../src/serve/relayed-questions.js';
import { SecretSet } from '../../src/shared/secrets.js';

// The pieces of serve's relay of an upstream server's questions, in-process: what the client is
// shown, what the upstream server gets back, and the calls that wait for an answer.

const form: ElicitRequest = { mode: 'form', server: 's', message: 'Who?', schema: { properties: { name: { type: 'string', title: 'Name' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } }, required: ['name', 'gone'] } };

describe('relayedQuestion', () => {
  it('says which server asks, keeps only the spec\'s keywords, and redacts secrets', () => {
    const secrets = new SecretSet();
    secrets.add('hunter2-secret-value');
    const request: ElicitRequest = { ...form, message: 'key hunter2-secret-value?', schema: { properties: { name: { type: 'string', title: 'x\u001b[31m', default: 'hunter2-secret-value', $ref: '#/evil', 'x-more': 1 } }, required: ['name'] } };
    const relayed = relayedQuestion(request, secrets);
    expect(relayed).toEqual({ mode: 'form', params: { mode: 'form', message: 'MCP server "s" asks: key [redacted]?', requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'x', default: '[redacted]' } }, required: ['name'] } } });
  });

  it('gives a URL question an id of its own', () => {
    const relayed = relayedQuestion({ mode: 'url', server: 's', message: 'Sign in', url: 'https://a.example/x', host: 'a.example' }, new SecretSet());
    expect(relayed.mode).toBe('url');
    expect(relayed.params).toMatchObject({ mode: 'url', url: 'https://a.example/x', elicitationId: expect.stringMatching(/^[\w-]{16}$/) });
  });
});

describe('clientAnswer', () => {
  it('passes on the asked fields only, primitives and string lists, cleaned', () => {
    expect(clientAnswer({ action: 'accept', content: { name: 'a\u0007b', tags: ['a', 3, 'b\u200b'], other: 1 } }, form)).toEqual({ action: 'accept', content: { name: 'ab', tags: ['a', 'b'] } });
    expect(clientAnswer({ action: 'accept', content: { name: { deep: 1 } } }, form)).toEqual({ action: 'accept', content: {} });
    expect(clientAnswer({ action: 'accept', content: JSON.parse('{"__proto__": {"x": 1}, "name": "n"}') }, form)).toEqual({ action: 'accept', content: { name: 'n' } });
  });

  it('reads anything but accept or cancel as a decline', () => {
    expect(clientAnswer({ action: 'cancel' }, form)).toEqual({ action: 'cancel' });
    expect(clientAnswer({ action: 'yes please' }, form)).toEqual({ action: 'decline' });
    expect(clientAnswer('garbage', form)).toEqual({ action: 'decline' });
  });
});

describe('canAsk and unansweredText', () => {
  it('form needs form elicitation (a bare one in 2026-07-28), URL needs url', () => {
    expect(canAsk({ elicitation: {} }, 'form', 'modern')).toBe(true);
    expect(canAsk({ elicitation: {} }, 'form', 'legacy')).toBe(false);
    expect(canAsk({ elicitation: { form: {} } }, 'url', 'modern')).toBe(false);
    expect(canAsk({ elicitation: { url: {} } }, 'url', 'legacy')).toBe(true);
    expect(canAsk(undefined, 'form', 'modern')).toBe(false);
  });

  it('names the server and the question', () => {
    expect(unansweredText([form], new SecretSet())).toBe('toolman serve: MCP server "s" asked "Who?", and this MCP client cannot answer such questions (it did not declare elicitation); toolman declined for it.');
  });

  it("redacts and cleans the server's words, as a relayed question does", () => {
    const secrets = new SecretSet();
    secrets.add('sk-live-SECRET1234567890');
    const text = unansweredText([{ ...form, server: 's\u001b]0;x\u0007', message: 'token is sk-live-SECRET1234567890' }], secrets);
    expect(text).toContain('asked "token is [redacted]"');
    expect(text).not.toContain('sk-live');
    expect(text).not.toContain('\u001b');
  });
});

describe('a hostile form', () => {
  it('items nested thousands deep: one level kept, no stack exhausted', () => {
    let items: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) items = { type: 'array', items };
    const relayed = relayedQuestion({ ...form, schema: { properties: { deep: items }, required: [] } }, new SecretSet());
    const deep = (relayed.params as { requestedSchema: { properties: Record<string, Record<string, unknown>> } }).requestedSchema.properties.deep!;
    expect(deep.items).toEqual({ type: 'array' });
  });
});

describe('AskingCall', () => {
  it('gathers the questions of one round, then gives the end', async () => {
    const call = new AskingCall(async (asker, signal) => {
      const [a, b] = await Promise.all([asker(form, signal), asker({ ...form, message: 'And?' }, signal)]);
      return `${a.action} ${b.action}`;
    });
    const step = await call.next();
    expect(step.kind).toBe('questions');
    if (step.kind !== 'questions') return;
    expect(step.questions.map((q) => q.request.message)).toEqual(['Who?', 'And?']);
    step.questions[0]!.answer({ action: 'accept', content: {} });
    step.questions[1]!.answer({ action: 'decline' });
    expect(await call.next()).toEqual({ kind: 'done', value: 'accept decline' });
  });

  it('cancels a waiting question when the call is stopped', async () => {
    const call = new AskingCall(async (asker, signal) => (await asker(form, signal)).action);
    expect((await call.next()).kind).toBe('questions');
    call.controller.abort();
    expect(await call.next()).toEqual({ kind: 'done', value: 'cancel' });
  });
});

describe('ParkedCalls', () => {
  const waiting = () => {
    const call = new AskingCall(async (asker, signal) => (await asker(form, signal)).action);
    return call;
  };

  it('gives a parked call back only to its principal, once', async () => {
    const parked = new ParkedCalls({ max: 10, perPrincipal: 10, timeoutMs: 60_000 });
    const call = waiting();
    const step = await call.next();
    if (step.kind !== 'questions') throw new Error('no question');
    const id = parked.park('alice', call as AskingCall<unknown>, step.questions)!;
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(parked.take(id, 'mallory')).toBeUndefined();
    expect(parked.take(id, 'alice')).toBeDefined();
    expect(parked.take(id, 'alice')).toBeUndefined();
    parked.close();
  });

  it('parks no more than the limits, and cancels every waiting call on close', async () => {
    const parked = new ParkedCalls({ max: 2, perPrincipal: 1, timeoutMs: 60_000 });
    const calls = [waiting(), waiting(), waiting()];
    const steps = await Promise.all(calls.map((c) => c.next()));
    const questions = steps.map((s) => (s.kind === 'questions' ? s.questions : []));
    expect(parked.park('a', calls[0] as AskingCall<unknown>, questions[0]!)).toBeDefined();
    expect(parked.park('a', calls[1] as AskingCall<unknown>, questions[1]!)).toBeUndefined();
    expect(parked.park('b', calls[1] as AskingCall<unknown>, questions[1]!)).toBeDefined();
    expect(parked.park('c', calls[2] as AskingCall<unknown>, questions[2]!)).toBeUndefined();
    parked.close();
    expect(await calls[0]!.next()).toEqual({ kind: 'done', value: 'cancel' });
    expect(parked.size).toBe(0);
  });

  it('cancels a call nobody answers in time', async () => {
    const lines: string[] = [];
    const parked = new ParkedCalls({ max: 2, perPrincipal: 2, timeoutMs: 50 }, (line) => lines.push(line));
    const call = waiting();
    const step = await call.next();
    if (step.kind !== 'questions') throw new Error('no question');
    const id = parked.park('a', call as AskingCall<unknown>, step.questions)!;
    expect(await call.next()).toEqual({ kind: 'done', value: 'cancel' });
    expect(parked.take(id, 'a')).toBeUndefined();
    expect(lines[0]).toContain('cancelled');
  });
});

describe('a field named __proto__', () => {
  it('stays a field of the relayed form, and of the answer', async () => {
    const { elicitRequest } = await import('../../src/mcp/mcp-interaction.js');
    const request = elicitRequest('s', JSON.parse('{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string","title":"P"}}}}'))!;
    expect(request.mode === 'form' && Object.keys(request.schema.properties)).toEqual(['__proto__']);
    const relayed = relayedQuestion(request, new SecretSet());
    expect(Object.keys((relayed.params as { requestedSchema: { properties: object } }).requestedSchema.properties)).toEqual(['__proto__']);
    const answer = clientAnswer(JSON.parse('{"action":"accept","content":{"__proto__":"v"}}'), request);
    expect(answer).toEqual({ action: 'accept', content: JSON.parse('{"__proto__":"v"}') });
    expect(Object.getPrototypeOf((answer as { content: object }).content)).toBe(Object.prototype);
  });
});
