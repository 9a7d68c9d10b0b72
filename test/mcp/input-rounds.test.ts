import { describe, expect, it } from 'vitest';
import { inputRounds, MAX_INPUT_ROUNDS } from '../../src/mcp/input-rounds.js';

// toolman's own answer loop for a 2026-07-28 server's `input_required` results
// (basic/patterns/mrtr.mdx, read 2026-11-24), run in the calling request's context.

const elicit = { method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } };

describe('inputRounds', () => {
  it('answers each round and sends the request again with the answers and the state as it came', async () => {
    const sent: Record<string, unknown>[] = [];
    const results = [{ resultType: 'input_required', inputRequests: { a: elicit }, requestState: 'opaque-1' }, { resultType: 'input_required', requestState: 'opaque-2' }, { content: [], resultType: 'complete' }];
    const result = await inputRounds({ name: 't' }, async (params) => (sent.push(params), results.shift()!), { capabilities: {}, elicit: async () => ({ action: 'accept', content: { name: 'x' } }) }, undefined);
    expect(result).toEqual({ content: [], resultType: 'complete' });
    expect(sent).toEqual([{ name: 't' }, { name: 't', inputResponses: { a: { action: 'accept', content: { name: 'x' } } }, requestState: 'opaque-1' }, { name: 't', inputResponses: {}, requestState: 'opaque-2' }]);
  });

  it('stops a server that asks for ever, and refuses a method toolman did not declare', async () => {
    let sends = 0;
    const forever = async () => (sends++, { resultType: 'input_required', requestState: 's' });
    await expect(inputRounds({}, forever, undefined, undefined)).rejects.toThrow(`still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    expect(sends).toBe(MAX_INPUT_ROUNDS + 1);
    const sampling = async () => ({ resultType: 'input_required', inputRequests: { s: { method: 'sampling/createMessage', params: {} } } });
    await expect(inputRounds({}, sampling, { capabilities: {} }, undefined)).rejects.toThrow('the server asked for sampling/createMessage, which toolman did not declare it answers');
  });
});
